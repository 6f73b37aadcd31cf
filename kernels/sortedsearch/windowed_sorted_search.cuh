// Windowed sorted search: our variant for today's GPUs, beyond ModernGPU. Tiles are
// fixed runs of needles (not merge-path diagonals), so no per-thread merge path and no compaction
// pass: each tile stages its haystack span [bound(first needle), bound(next tile's first needle))
// in one shared-memory window, and each thread resolves its run of VT consecutive needles with one
// binary search in the window and a walk. The tile follows |B| / |A|: the launcher picks the
// needles per thread whose expected span fits the window (one fixed tile made the span overflow,
// or the kernel loop over several windows, beyond 1.78 : 1; a loop over windows cost 8 registers
// and a quarter of the blocks per SM on an H100: 0.367 against 0.324 ms at 2^26 + 2^26). A tile
// whose span still overflows (clustered keys) searches it in global memory, VT searches in
// lockstep. Beyond a switch ratio (measured, per key size: kBinarySwitchRatio) reading all of B
// loses to searching it, and the launcher runs one binary search per needle.
// The complete search (lower bound of A into B and upper bound of B into A, match flags and
// counts, as ModernGPU's SortedSearch<Lower, IndexMatch, IndexMatch>) rides on the same tiles: the
// B keys between the lower bounds of needles k and k + 1 have upper bound k + 1 into A, so each
// thread writes the B outputs between its needles' bounds into the window's slots; the B keys
// outside A's key range are one grid-wide fill.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "../common/cuda_check.cuh"
#include "auto_rule.hpp"
#include "binary_search.cuh"
#include "bounds.hpp"
#include "tile_counts.cuh"

namespace lp::sortedsearch {

template <int NT, int VT, int WINDOW, int SKIP = 0>
struct WindowedTuning {
  static constexpr int nt = NT, vt = VT, nv = NT * VT, window = WINDOW, skip = SKIP;
};

// A block shape and window; the launcher picks the needles per thread (VT) from the ratio.
template <int NT, int WINDOW, int SKIP = 0>
struct WindowedShape {
  static constexpr int nt = NT, window = WINDOW, skip = SKIP;
  template <int VT>
  using tuning = WindowedTuning<NT, VT, WINDOW, SKIP>;
  // The smallest tile: one needle per thread of half a block (a block of at least two warps).
  static constexpr int half_nt = NT >= 64 ? NT / 2 : NT;
  using half_tuning = WindowedTuning<half_nt, 1, WINDOW, SKIP>;
};

// The window (16 KiB for every key size) holds about twice the needles' worth of haystack at the
// largest tile (VT = 9), within 48 KiB of static shared memory; 8 blocks of 256 threads per SM at
// 32 registers for 4-byte keys. Skipping 8 keys at a time (H100, 2^26 + 2^26): duplicate-heavy
// keys 51% -> 77% of the copy ceiling, distinct keys 85% -> 84%.
template <class T>
using DefaultWindowedShape = std::conditional_t<sizeof(T) <= 4, WindowedShape<256, 4096, 8>, WindowedShape<128, 2048, 8>>;

// The needles per thread the launcher chooses among (largest first; kHalfTile: one needle per
// thread of half a block), and the headroom left in the window for a tile whose span runs above
// the ratio's mean.
constexpr int kHalfTile = -1;
constexpr int kWindowedVts[] = {9, 5, 3, 2, 1, kHalfTile};
constexpr double kSpanSlack = 1.15;

// |B| / |A| beyond which one binary search per needle beats reading all of B, from the H100
// ratio sweeps (results/h100/sortedsearch/ratios_*.json, |A| + |B| = 2^27): int32 binary search 0.298
// against the windowed search's 0.314 ms at 16 on distinct keys (0.303 against 0.228 on
// duplicates), 0.258 against 0.322 at 24; int64 0.479 against 0.453 at 12, 0.424 against 0.663
// at 16 (8-byte keys double the bytes a merge reads per B key, not a search's). The numbers are
// auto's decision table's (auto_rule.hpp), where the profile may move them.
template <class T>
constexpr double kBinarySwitchRatio = sizeof(T) <= 4 ? auto_rule::kBinarySwitch4 : auto_rule::kBinarySwitch8;

// Never switch: the windowed merge at every ratio (the sweep's merge curve).
constexpr double kNeverSwitch = 1e30;

// The launcher's choice: one binary search per needle where B has more than switch_ratio keys per
// needle.
inline bool searches_per_needle(std::int64_t a_count, std::int64_t b_count, double switch_ratio) {
  return a_count > 0 && double(b_count) > switch_ratio * double(a_count);
}

// Needles per tile at a kWindowedVts entry.
template <class Shape>
constexpr int windowed_tile_needles(int vt) {
  return vt == kHalfTile ? Shape::half_nt : Shape::nt * vt;
}

// Needles per thread at |B| / |A|: the largest tile whose expected span fits the window. (At
// 16 : 1 a whole block's span overflowed half of the int32 tiles into global-memory searches:
// 0.311 ms against the merge path's 0.291 on the H100.)
template <class Shape>
int windowed_vt(std::int64_t a_count, std::int64_t b_count) {
  const double r = a_count > 0 ? double(b_count) / double(a_count) : 0.0;
  for (int vt : kWindowedVts)
    if (double(windowed_tile_needles<Shape>(vt)) * r * kSpanSlack <= double(Shape::window)) return vt;
  return kHalfTile;
}

// bounds[t] = bound of the first needle of tile t into B; bounds[tiles] = the end of the last
// tile's span: its last needle's bound (B beyond it is no needle's concern; when A's keys end well
// before B's, that tail would be one tile's to read), or for the complete search the upper bound
// of A's last key (the B keys equal to it match it). The complete search's B keys outside
// [bounds[0], bounds[tiles]) lie below or above every needle: fill_outside_kernel writes them.
template <Bounds B, bool Complete, class T, class Comp>
__global__ void window_partition_kernel(const T* __restrict__ a, int a_count, const T* __restrict__ b, int b_count,
                                        int nv, int tiles, int* __restrict__ bounds, Comp comp) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t > tiles) return;
  if (t == tiles) {
    const T& last = a[a_count - 1];
    bounds[t] = static_cast<int>(Complete ? bound_in<Bounds::Upper>(b, 0, b_count, last, comp) : bound_in<B>(b, 0, b_count, last, comp));
  } else {
    bounds[t] = static_cast<int>(bound_in<B>(b, 0, b_count, a[std::int64_t(t) * nv], comp));
  }
}

// The complete search's B keys below A's first key (upper bound 0) and above its last (|A|), no
// match either way: a grid-stride fill, so a long tail is no one tile's serial work.
static __global__ void fill_outside_kernel(const int* __restrict__ bounds, int tiles, int b_count, std::uint32_t a_count,
                                           std::uint32_t* __restrict__ out_b) {
  const int head = bounds[0], tail = bounds[tiles];
  const int outside = head + (b_count - tail);
  for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < outside; i += gridDim.x * blockDim.x) {
    if (i < head) out_b[i] = 0;
    else out_b[tail + (i - head)] = a_count;
  }
}

template <class Tuning, Bounds B, bool Complete, class T, class Comp>
__global__ void __launch_bounds__(Tuning::nt)
    windowed_search_kernel(const T* __restrict__ a, int a_count, const T* __restrict__ b, int b_count, const int* __restrict__ bounds,
                           std::uint32_t* __restrict__ out, std::uint32_t* __restrict__ out_b, unsigned* __restrict__ tile_counts, Comp comp,
                           std::uint32_t a_base) {
  static_assert(!Complete || B == Bounds::Lower, "the complete search is lower A -> B, upper B -> A");
  constexpr int NT = Tuning::nt, VT = Tuning::vt, NV = Tuning::nv, WINDOW = Tuning::window, SKIP = Tuning::skip;
  static_assert(sizeof(T) >= sizeof(std::uint32_t), "the complete search's B outputs reuse the window's slots");
  // Runs are staged with an odd stride so that thread k's run starts in bank (k * stride) mod 32:
  // the 32 threads of a warp read 32 different banks. Results reuse the needles' bytes.
  constexpr int STRIDE = VT + (VT % 2 == 0);
  union Runs {
    T needles[NT * STRIDE];
    std::uint32_t results[NT * STRIDE];
  };
  __shared__ T win[WINDOW];
  __shared__ Runs runs;
  const int tid = threadIdx.x;
  const int a0 = blockIdx.x * NV;
  const int a_n = min(NV, a_count - a0);
  const int w0 = bounds[blockIdx.x], w1 = bounds[blockIdx.x + 1];
  const int w_n = w1 - w0;
  const bool staged = w_n <= WINDOW;

  // Coalesced, striped loads (all issued before the first shared store), transposed to runs; the
  // window's loads go out with them, so a tile waits on memory once.
  {
    T reg[VT];
#pragma unroll
    for (int k = 0; k < VT; ++k) {
      int i = k * NT + tid;
      if (i < a_n) reg[k] = a[a0 + i];
    }
#pragma unroll
    for (int k = 0; k < VT; ++k) {
      int i = k * NT + tid;
      if (i < a_n) runs.needles[(i / VT) * STRIDE + i % VT] = reg[k];
    }
  }
  if (staged)
    for (int i = tid; i < w_n; i += NT) win[i] = b[w0 + i];
  __syncthreads();

  const int steps = min(VT, a_n - tid * VT);
  T key[VT];
#pragma unroll
  for (int k = 0; k < VT; ++k)
    if (k < steps) key[k] = runs.needles[tid * STRIDE + k];
  std::uint32_t res[VT];
  unsigned a_matches = 0;
  if (steps > 0) {
    if (staged) {
      // One binary search for the run's first needle, then a merge-like walk.
      int j = static_cast<int>(bound_in<B>(win, 0, w_n, key[0], comp));
#pragma unroll
      for (int k = 0; k < VT; ++k) {
        if (k < steps) {
          // Runs of equal haystack keys make some lane of a warp walk far at almost every k;
          // skipping SKIP keys at a time bounds that lane's walk (and the warp's wait).
          if (SKIP > 0)
            while (j + SKIP <= w_n && !take_a<B>(key[k], win[j + SKIP - 1], comp)) j += SKIP;
          while (j < w_n && !take_a<B>(key[k], win[j], comp)) ++j;
          res[k] = static_cast<std::uint32_t>(w0 + j);
          if (Complete) {
            // Lower: the only possible match is b[w0 + j], in the window unless j is its end.
            const bool match = j < w_n ? !comp(key[k], win[j]) : (w0 + j < b_count && !comp(key[k], b[w0 + j]));
            a_matches += match;
            if (match) res[k] |= kMatchBit;
          }
        }
      }
    } else {
      // The span is too large to stage (clustered keys): VT binary searches over b[w0, w1) in
      // lockstep, so that each step issues VT independent loads instead of one.
      // Branchless form: the remaining length n is the same for every needle, and every probe
      // b[base + half] lies inside [w0, w1).
      int base[VT];
#pragma unroll
      for (int k = 0; k < VT; ++k) base[k] = w0;
      for (int n = w_n; n > 1; n -= n >> 1) {
        const int half = n >> 1;
#pragma unroll
        for (int k = 0; k < VT; ++k)
          if (k < steps && !take_a<B>(key[k], b[base[k] + half], comp)) base[k] += half;
      }
#pragma unroll
      for (int k = 0; k < VT; ++k) {
        if (k < steps && w_n > 0 && !take_a<B>(key[k], b[base[k]], comp)) ++base[k];
        res[k] = static_cast<std::uint32_t>(base[k]);
        if (Complete && k < steps) {
          const bool match = base[k] < b_count && !comp(key[k], b[base[k]]);
          a_matches += match;
          if (match) res[k] |= kMatchBit;
        }
      }
    }
  }
  __syncthreads();  // the needles and the window are read
#pragma unroll
  for (int k = 0; k < VT; ++k)
    if (k < steps) runs.results[tid * STRIDE + k] = res[k];
  __syncthreads();
  if constexpr (Complete) {
    // The B keys of the span: upper bound into A = a0 + (needles of the tile with bound <= g),
    // with a match where the needle just below holds the same key.
    unsigned b_matches = 0;
    auto bound_of = [&](int n) { return static_cast<int>(runs.results[(n / VT) * STRIDE + n % VT] & ~kMatchBit); };
    if (staged) {
      // Each thread writes the B keys between its needles' bounds into the window's slots, each
      // slot read then written by one thread; a slot becomes the key's 32-bit output.
#pragma unroll
      for (int k = 0; k < VT; ++k) {
        if (k < steps) {
          const int n = tid * VT + k;
          const int to = n + 1 < a_n ? bound_of(n + 1) : w1;
          const std::uint32_t ub = static_cast<std::uint32_t>(a0 + n + 1);
          for (int g = static_cast<int>(res[k] & ~kMatchBit); g < to; ++g) {
            std::uint32_t v = ub;
            if (!comp(key[k], win[g - w0])) v |= kMatchBit, ++b_matches;
            *reinterpret_cast<std::uint32_t*>(win + (g - w0)) = v;
          }
        }
      }
      __syncthreads();
      for (int i = tid; i < w_n; i += NT) out_b[w0 + i] = *reinterpret_cast<const std::uint32_t*>(win + i);
    } else {
      // A span beyond the window: one binary search per B key over the tile's bounds, balanced
      // across threads however the keys cluster.
      for (int i = tid; i < w_n; i += NT) {
        const int g = w0 + i;
        int lo = 0, hi = a_n;
        while (lo < hi) {
          const int mid = (lo + hi) >> 1;
          if (bound_of(mid) <= g) lo = mid + 1;
          else hi = mid;
        }
        std::uint32_t v = static_cast<std::uint32_t>(a0 + lo);
        if (lo > 0 && !comp(a[a0 + lo - 1], b[g])) v |= kMatchBit, ++b_matches;
        out_b[g] = v;
      }
    }
    __shared__ unsigned warp_sums[NT / 32];
    detail::block_sum_to<NT>(a_matches, warp_sums, tile_counts + 2 * blockIdx.x);
    detail::block_sum_to<NT>(b_matches, warp_sums, tile_counts + 2 * blockIdx.x + 1);
  }
#pragma unroll
  for (int k = 0; k < VT; ++k) {
    int i = k * NT + tid;
    if (i < a_n) out[a0 + i] = a_base + runs.results[(i / VT) * STRIDE + i % VT];
  }
}

// The partition array (tiles + 1 ints at the smallest tile), then two match counts per tile (the
// complete search).
template <class Shape>
std::size_t windowed_scratch_bytes(std::int64_t a_count) {
  const std::size_t tiles = static_cast<std::size_t>((a_count + Shape::half_nt - 1) / Shape::half_nt);
  return (tiles + 1) * sizeof(int) + 2 * tiles * sizeof(unsigned);
}

namespace detail {

// Calls f(Shape::tuning<vt>{}) for a vt of kWindowedVts.
template <class Shape, class F>
void with_windowed_tuning(int vt, F&& f) {
  switch (vt) {
    case 9: return f(typename Shape::template tuning<9>{});
    case 5: return f(typename Shape::template tuning<5>{});
    case 3: return f(typename Shape::template tuning<3>{});
    case 2: return f(typename Shape::template tuning<2>{});
    case 1: return f(typename Shape::template tuning<1>{});
    default: return f(typename Shape::half_tuning{});
  }
}

// One launch of the tiles at `vt` needles per thread (the complete search: and its counts).
template <class Shape, Bounds B, bool Complete, class T, class Comp>
void windowed_tiles(int vt, const T* a, int a_count, const T* b, int b_count, std::uint32_t* out, std::uint32_t* out_b, void* scratch,
                    unsigned long long* match_counts, cudaStream_t stream, Comp comp, std::uint32_t a_base = 0) {
  with_windowed_tuning<Shape>(vt, [&](auto tuning) {
    using Tuning = decltype(tuning);
    const int tiles = (a_count + Tuning::nv - 1) / Tuning::nv;
    int* bounds = static_cast<int*>(scratch);
    unsigned* tile_counts = Complete ? reinterpret_cast<unsigned*>(bounds + tiles + 1) : nullptr;
    window_partition_kernel<B, Complete><<<(tiles + 1 + 127) / 128, 128, 0, stream>>>(a, a_count, b, b_count, Tuning::nv, tiles, bounds, comp);
    LP_CUDA_LAUNCH("window_partition_kernel");
    windowed_search_kernel<Tuning, B, Complete><<<tiles, Tuning::nt, 0, stream>>>(a, a_count, b, b_count, bounds, out, out_b, tile_counts, comp,
                                                                                 a_base);
    LP_CUDA_LAUNCH("windowed_search_kernel");
    if (Complete) {
      const int fill_blocks = static_cast<int>(b_count / 256 < 1024 ? b_count / 256 + 1 : 1024);
      fill_outside_kernel<<<fill_blocks, 256, 0, stream>>>(bounds, tiles, b_count, static_cast<std::uint32_t>(a_count), out_b);
      LP_CUDA_LAUNCH("fill_outside_kernel");
      sum_tile_counts_kernel<<<1, 1024, 0, stream>>>(tile_counts, tiles, match_counts);
      LP_CUDA_LAUNCH("sum_tile_counts_kernel");
    }
  });
}

}  // namespace detail

// Bound (Lower or Upper) of every needle of sorted A into sorted B. Sizes below 2^31. Where B has
// more than switch_ratio keys per needle, one thread per needle searches the whole haystack: it
// reads only the cache lines on the needles' search paths, where the windows would read all of B.
// `vt` overrides the needles per thread (a kWindowedVts entry; 0: by the ratio, windowed_vt).
// `a_base` is added to every index: B is a slice of a haystack starting there (several GPUs).
template <class Shape, Bounds B, class T, class Comp = Less>
void windowed_sorted_search(const T* a, int a_count, const T* b, int b_count, std::uint32_t* out, void* scratch,
                            cudaStream_t stream, double switch_ratio = kBinarySwitchRatio<T>, Comp comp = {}, int vt = 0,
                            std::uint32_t a_base = 0) {
  if (a_count == 0) return;
  if (searches_per_needle(a_count, b_count, switch_ratio)) {
    binary_search<B>(a, a_count, b, b_count, out, stream, comp, a_base);
    return;
  }
  detail::windowed_tiles<Shape, B, false>(vt != 0 ? vt : windowed_vt<Shape>(a_count, b_count), a, a_count, b, b_count, out, nullptr,
                                          scratch, nullptr, stream, comp, a_base);
}

// The complete search on the windowed tiles: a_out[i] = lower bound of a[i] into B, b_out[j] =
// upper bound of b[j] into A, each with kMatchBit where the key occurs on the other side, and
// match_counts[0..1] (device) = how many A and B keys matched. It reads all of B whatever the ratio.
template <class Shape, class T, class Comp = Less>
void windowed_complete_search(const T* a, int a_count, const T* b, int b_count, std::uint32_t* a_out, std::uint32_t* b_out,
                              void* scratch, unsigned long long* match_counts, cudaStream_t stream, Comp comp = {}, int vt = 0) {
  if (a_count == 0) {  // every B key has upper bound 0 and no match
    if (b_count > 0) LP_CUDA(cudaMemsetAsync(b_out, 0, std::size_t(b_count) * sizeof(std::uint32_t), stream));
    LP_CUDA(cudaMemsetAsync(match_counts, 0, 2 * sizeof(unsigned long long), stream));
    return;
  }
  detail::windowed_tiles<Shape, Bounds::Lower, true>(vt != 0 ? vt : windowed_vt<Shape>(a_count, b_count), a, a_count, b, b_count, a_out,
                                                     b_out, scratch, match_counts, stream, comp);
}

}  // namespace lp::sortedsearch
