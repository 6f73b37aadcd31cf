// Windowed sorted search: our variant for today's GPUs, beyond ModernGPU (issue 21). Tiles are
// fixed runs of needles (not merge-path diagonals), so no per-thread merge path and no compaction
// pass: each tile's haystack span [bound(first needle), bound(next tile's first needle)) is staged
// in shared memory a window at a time (as many windows as the span needs: the tile follows its
// actual span, whatever |B| / |A| is), and each thread resolves its run of VT consecutive needles
// with one binary search in the first window that holds its bound, then a linear walk.
// Where the haystack per needle exceeds a switch ratio (measured, per key size: see
// kBinarySwitchRatio), reading all of B loses to searching it: the launcher runs one binary search
// per needle when the whole input is that sparse, and a tile whose own span is (clustered keys)
// searches it in global memory in lockstep.
// The complete search (lower bound of A into B and upper bound of B into A, match flags and
// counts, as ModernGPU's SortedSearch<Lower, IndexMatch, IndexMatch>) rides on the same tiles: a
// B key between the lower bounds of needles k and k + 1 has upper bound k + 1 into A.
#pragma once
#include <cuda_runtime.h>

#include <climits>
#include <cstdint>
#include <type_traits>

#include "../common/cuda_check.cuh"
#include "binary_search.cuh"
#include "bounds.hpp"
#include "tile_counts.cuh"

namespace lp::sortedsearch {

template <int NT, int VT, int WINDOW, int SKIP = 0>
struct WindowedTuning {
  static constexpr int nt = NT, vt = VT, nv = NT * VT, window = WINDOW, skip = SKIP;
};

// The window holds about twice a tile's needles' worth of haystack, within 48 KiB of static
// shared memory for every key size. Skipping 8 keys at a time (measured on an H100, 2^26 + 2^26):
// duplicate-heavy keys 51% -> 77% of the copy ceiling, distinct keys 85% -> 84%.
template <class T>
using DefaultWindowedTuning = std::conditional_t<sizeof(T) <= 4, WindowedTuning<256, 9, 4096, 8>, WindowedTuning<128, 9, 2048, 8>>;

// |B| / |A| beyond which one binary search per needle beats reading all of B, from the H100
// ratio sweep (results/h100/sortedsearch_ratios/, int32, |A| + |B| = 2^27: binary search 0.302
// against the merge path's 0.293 ms at 16, 0.258 against 0.292 at 24). 8-byte keys double the
// bytes a merge reads per B key and barely change a search's: a lower ratio, not yet measured.
template <class T>
constexpr double kBinarySwitchRatio = sizeof(T) <= 4 ? 20.0 : 12.0;

// Never switch: the windowed merge at every ratio (the sweep's merge curve).
constexpr double kNeverSwitch = 1e30;

// The launcher's choice: one binary search per needle where B has more than switch_ratio keys per
// needle.
inline bool searches_per_needle(std::int64_t a_count, std::int64_t b_count, double switch_ratio) {
  return a_count > 0 && double(b_count) > switch_ratio * double(a_count);
}

// bounds[t] = bound of the first needle of tile t into B (0 for tile 0 of the complete search,
// whose B keys below every needle are outputs too); bounds[tiles] = |B|.
template <Bounds B, bool Complete, class T, class Comp>
__global__ void window_partition_kernel(const T* __restrict__ a, int a_count, const T* __restrict__ b, int b_count,
                                        int nv, int tiles, int* __restrict__ bounds, Comp comp) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t > tiles) return;
  // The last tile's span ends at its last needle's bound (B beyond it is no needle's concern;
  // when A's keys end well before B's, that tail would be one tile's to read). The complete
  // search writes every B key's bound, so its last tile reaches |B|.
  if (t == tiles) bounds[t] = Complete ? b_count : static_cast<int>(bound_in<B>(b, 0, b_count, a[a_count - 1], comp));
  else if (Complete && t == 0) bounds[t] = 0;
  else bounds[t] = static_cast<int>(bound_in<B>(b, 0, b_count, a[std::int64_t(t) * nv], comp));
}

template <class Tuning, Bounds B, bool Complete, class T, class Comp>
__global__ void __launch_bounds__(Tuning::nt)
    windowed_search_kernel(const T* __restrict__ a, int a_count, const T* __restrict__ b, int b_count, const int* __restrict__ bounds,
                           std::uint32_t* __restrict__ out, std::uint32_t* __restrict__ out_b, unsigned* __restrict__ tile_counts,
                           float tile_switch, Comp comp) {
  static_assert(!Complete || B == Bounds::Lower, "the complete search is lower A -> B, upper B -> A");
  constexpr int NT = Tuning::nt, VT = Tuning::vt, NV = Tuning::nv, WINDOW = Tuning::window, SKIP = Tuning::skip;
  // Runs are staged with an odd stride so that thread k's run starts in bank (k * stride) mod 32:
  // the 32 threads of a warp read 32 different banks.
  constexpr int STRIDE = VT + (VT % 2 == 0);
  // The staged needles, and the tile's bounds in needle order (complete search: unresolved ones
  // INT_MAX, read by the B keys), then its outputs. The lower search reads its needles from
  // registers once staged, so its outputs reuse the needles' bytes (fewer bytes, more blocks).
  constexpr int kNeedleBytes = NT * STRIDE * int(sizeof(T)), kBoundBytes = NV * int(sizeof(int));
  __shared__ T win[WINDOW];
  __shared__ __align__(16) unsigned char stage[Complete ? kNeedleBytes + kBoundBytes : (kNeedleBytes > kBoundBytes ? kNeedleBytes : kBoundBytes)];
  T* needles = reinterpret_cast<T*>(stage);
  int* lbs = reinterpret_cast<int*>(stage + (Complete ? kNeedleBytes : 0));
  const int tid = threadIdx.x;
  const int a0 = blockIdx.x * NV;
  const int a_n = min(NV, a_count - a0);
  const int w0 = bounds[blockIdx.x], w1 = bounds[blockIdx.x + 1];
  const int w_n = w1 - w0;
  // A span too sparse to read (clustered keys) is searched in global memory instead.
  const bool sparse = !Complete && float(w_n) > tile_switch * float(a_n);

  // Coalesced, striped loads (all issued before the first shared store), transposed to runs; the
  // first window's loads go out with them, so a tile waits on memory once.
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
      if (i < a_n) needles[(i / VT) * STRIDE + i % VT] = reg[k];
      if (Complete) lbs[k * NT + tid] = INT_MAX;
    }
    if (!sparse)
      for (int i = tid; i < min(WINDOW, w_n); i += NT) win[i] = b[w0 + i];
  }
  __syncthreads();

  const int steps = min(VT, a_n - tid * VT);
  T key[VT];
#pragma unroll
  for (int k = 0; k < VT; ++k)
    if (k < steps) key[k] = needles[tid * STRIDE + k];
  std::uint32_t res[VT];
  unsigned a_matches = 0, b_matches = 0;

  if (sparse) {
    // VT binary searches over b[w0, w1) in lockstep, so that each step issues VT independent
    // loads instead of one. Branchless form: the remaining length n is the same for every
    // needle, and every probe lies inside [w0, w1).
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
    for (int k = 0; k < VT; ++k)
      if (k < steps && w_n > 0 && !take_a<B>(key[k], b[base[k]], comp)) ++base[k];
#pragma unroll
    for (int k = 0; k < VT; ++k) res[k] = static_cast<std::uint32_t>(base[k]);
  } else {
    int cursor = 0;  // the thread's first needle whose bound lies beyond the windows so far
    for (int c0 = 0;; c0 += WINDOW) {
      const int len = min(WINDOW, w_n - c0);
      const bool last = c0 + WINDOW >= w_n;
      if (c0 > 0) {  // the first window was staged with the needles
        __syncthreads();  // the previous window's readers are done
        for (int i = tid; i < len; i += NT) win[i] = b[w0 + c0 + i];
        __syncthreads();
      }
      // The needles whose bound lies in this window (a prefix of the unresolved ones: they are
      // sorted): one binary search for the first, then a merge-like walk.
      bool going = true;
      int j = -1;
#pragma unroll
      for (int k = 0; k < VT; ++k) {
        if (going && k >= cursor && k < steps) {
          if (last || take_a<B>(key[k], win[len - 1], comp)) {
            if (j < 0) {
              j = static_cast<int>(bound_in<B>(win, 0, len, key[k], comp));
            } else {
              // Runs of equal haystack keys make some lane of a warp walk far at almost every k;
              // skipping SKIP keys at a time bounds that lane's walk (and the warp's wait).
              if (SKIP > 0)
                while (j + SKIP <= len && !take_a<B>(key[k], win[j + SKIP - 1], comp)) j += SKIP;
              while (j < len && !take_a<B>(key[k], win[j], comp)) ++j;
            }
            const int g = w0 + c0 + j;
            res[k] = static_cast<std::uint32_t>(g);
            if (Complete) {
              // Lower: the only possible match is b[g], in the window unless g is its end.
              const bool match = j < len ? !comp(key[k], win[j]) : (g < b_count && !comp(key[k], b[g]));
              lbs[tid * VT + k] = g;
              a_matches += match;
              if (match) res[k] |= kMatchBit;
            }
            cursor = k + 1;
          } else {
            going = false;
          }
        }
      }
      if (Complete) {
        // This window's B keys: upper bound into A = a0 + (needles of the tile with bound <= g);
        // the needles resolved so far are all that can be (the rest lie beyond the window).
        __syncthreads();
        for (int i = tid; i < len; i += NT) {
          const int g = w0 + c0 + i;
          int lo = 0, hi = a_n;
          while (lo < hi) {
            const int mid = (lo + hi) >> 1;
            if (lbs[mid] <= g) lo = mid + 1;
            else hi = mid;
          }
          // Upper bound of B into A: a match can only be A's key just below, needle lo - 1.
          std::uint32_t v = static_cast<std::uint32_t>(a0 + lo);
          if (lo > 0) {
            const int n = lo - 1;
            const bool match = !comp(needles[(n / VT) * STRIDE + n % VT], win[i]);
            b_matches += match;
            if (match) v |= kMatchBit;
          }
          out_b[g] = v;
        }
      }
      if (last) break;
    }
  }
  if (Complete) {
    __shared__ unsigned warp_sums[NT / 32];
    detail::block_sum_to<NT>(a_matches, warp_sums, tile_counts + 2 * blockIdx.x);
    detail::block_sum_to<NT>(b_matches, warp_sums, tile_counts + 2 * blockIdx.x + 1);
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < VT; ++k)
    if (k < steps) lbs[tid * VT + k] = static_cast<int>(res[k]);
  __syncthreads();
#pragma unroll
  for (int k = 0; k < VT; ++k) {
    int i = k * NT + tid;
    if (i < a_n) out[a0 + i] = static_cast<std::uint32_t>(lbs[i]);
  }
}

// The partition array (tiles + 1 ints), then two match counts per tile (the complete search).
template <class Tuning>
std::size_t windowed_scratch_bytes(std::int64_t a_count) {
  const std::size_t tiles = static_cast<std::size_t>((a_count + Tuning::nv - 1) / Tuning::nv);
  return (tiles + 1) * sizeof(int) + 2 * tiles * sizeof(unsigned);
}

// Bound (Lower or Upper) of every needle of sorted A into sorted B. Sizes below 2^31. Where B has
// more than switch_ratio keys per needle, one thread per needle searches the whole haystack: it
// reads only the cache lines on the needles' search paths, where the windows would read all of B.
// A tile whose own span is that sparse (at most the measured ratio, whatever switch_ratio says)
// searches it in global memory.
template <class Tuning, Bounds B, class T, class Comp = Less>
void windowed_sorted_search(const T* a, int a_count, const T* b, int b_count, std::uint32_t* out, void* scratch,
                            cudaStream_t stream, double switch_ratio = kBinarySwitchRatio<T>, Comp comp = {}) {
  if (a_count == 0) return;
  if (searches_per_needle(a_count, b_count, switch_ratio)) {
    binary_search<B>(a, a_count, b, b_count, out, stream, comp);
    return;
  }
  int tiles = (a_count + Tuning::nv - 1) / Tuning::nv;
  int* bounds = static_cast<int*>(scratch);
  window_partition_kernel<B, false><<<(tiles + 1 + 127) / 128, 128, 0, stream>>>(a, a_count, b, b_count, Tuning::nv, tiles, bounds, comp);
  LP_CUDA_LAUNCH("window_partition_kernel");
  windowed_search_kernel<Tuning, B, false><<<tiles, Tuning::nt, 0, stream>>>(a, a_count, b, b_count, bounds, out, nullptr, nullptr,
                                                                             float(switch_ratio < kBinarySwitchRatio<T> ? switch_ratio : kBinarySwitchRatio<T>), comp);
  LP_CUDA_LAUNCH("windowed_search_kernel");
}

// The complete search on the windowed tiles: a_out[i] = lower bound of a[i] into B, b_out[j] =
// upper bound of b[j] into A, each with kMatchBit where the key occurs on the other side, and
// match_counts[0..1] (device) = how many A and B keys matched. It reads all of B whatever the ratio.
template <class Tuning, class T, class Comp = Less>
void windowed_complete_search(const T* a, int a_count, const T* b, int b_count, std::uint32_t* a_out, std::uint32_t* b_out,
                              void* scratch, unsigned long long* match_counts, cudaStream_t stream, Comp comp = {}) {
  if (a_count == 0) {  // every B key has upper bound 0 and no match
    if (b_count > 0) LP_CUDA(cudaMemsetAsync(b_out, 0, std::size_t(b_count) * sizeof(std::uint32_t), stream));
    LP_CUDA(cudaMemsetAsync(match_counts, 0, 2 * sizeof(unsigned long long), stream));
    return;
  }
  int tiles = (a_count + Tuning::nv - 1) / Tuning::nv;
  int* bounds = static_cast<int*>(scratch);
  unsigned* tile_counts = reinterpret_cast<unsigned*>(bounds + tiles + 1);
  window_partition_kernel<Bounds::Lower, true><<<(tiles + 1 + 127) / 128, 128, 0, stream>>>(a, a_count, b, b_count, Tuning::nv, tiles, bounds, comp);
  LP_CUDA_LAUNCH("window_partition_kernel");
  windowed_search_kernel<Tuning, Bounds::Lower, true><<<tiles, Tuning::nt, 0, stream>>>(a, a_count, b, b_count, bounds, a_out, b_out,
                                                                                       tile_counts, float(kNeverSwitch), comp);
  LP_CUDA_LAUNCH("windowed_search_kernel<complete>");
  detail::sum_tile_counts_kernel<<<1, 1024, 0, stream>>>(tile_counts, tiles, match_counts);
  LP_CUDA_LAUNCH("sum_tile_counts_kernel");
}

}  // namespace lp::sortedsearch
