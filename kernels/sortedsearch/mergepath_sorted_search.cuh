// Vectorized sorted search by merge path (ModernGPU "Vectorized Sorted Search": MergePathPartitions,
// KernelSortedSearch/DeviceLoadSortedSearch/CTASortedSearch/DeviceSerialSearch, SortedEqualityCount).
// One kernel serves every mode: lower or upper bound of A into B, the opposite bound of B into A,
// 0/1 match outputs, and indices with the match flag in the most significant bit.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "../common/cuda_check.cuh"
#include "bounds.hpp"
#include "tile_counts.cuh"

namespace lp::sortedsearch {

// What one side's output holds (MgpuSearchType).
enum class Output { None, Index, Match, IndexMatch };

constexpr bool has_index(Output o) { return o == Output::Index || o == Output::IndexMatch; }
constexpr bool has_match(Output o) { return o == Output::Match || o == Output::IndexMatch; }

// Global partition: for every tile boundary (diagonal t * nv of the merge of A and B), how many A
// elements precede it. One thread per boundary.
template <Bounds B, class T, class Comp>
__global__ void merge_partition_kernel(const T* __restrict__ a, int a_count, const T* __restrict__ b,
                                       int b_count, int nv, int num_boundaries, int* __restrict__ mp,
                                       Comp comp) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= num_boundaries) return;
  std::int64_t diag = std::min<std::int64_t>(std::int64_t(t) * nv, std::int64_t(a_count) + b_count);
  mp[t] = static_cast<int>(merge_path<B>(a, a_count, b, b_count, diag, comp));
}

template <int NT, int VT>
struct MergePathTuning {
  static constexpr int nt = NT, vt = VT, nv = NT * VT;
};

// Tile shapes per key size: 4-byte keys 256 x 23 = 5888 merge steps a tile, 8-byte keys 256 x 15.
// Why tiles this large: the partition's binary searches along the cross diagonals touch a distinct
// sector of A and of B at nearly every step (each diagonal's range is its own, unlike a search for
// a key, whose first levels all threads share), so its cost is random DRAM reads in proportion to
// the tile count. At |A| = |B| = 2^26 on the H200 (tests/gpu/probe_merge_path.cu,
// results/h200/sortedsearch/probes/probe_merge_path.json) the earlier 128 x 15 tiles spent 75 us of
// the lower bound's 327 in the partition (int64 at 128 x 11: 108 of 515); 256 x 23 spends 29 us,
// and more steps a thread also amortise the search kernel's per-thread merge-path search: int32
// lower bound 0.272 ms, complete search 0.396 (0.485 before); int64 256 x 15: 0.477 and 0.581
// (0.659). Larger still (512 x 15) the search kernel slows more than the partition gains.
template <class T>
using DefaultMergePathTuning = std::conditional_t<sizeof(T) <= 4, MergePathTuning<256, 23>, MergePathTuning<256, 15>>;

namespace detail {

// DeviceSerialSearch: VT steps of the merge from (a_i, b_i) in shared memory. Results go to
// registers in traversal order, the decision bits (set = an A step) to the return value.
template <int VT, Bounds B, bool RangeCheck, bool IndexA, bool MatchA, bool IndexB, bool MatchB, class T, class Comp>
__device__ __forceinline__ unsigned serial_search(const T* keys, int a_i, int a_end, int b_i, int b_end, int a_offset, int b_offset, int steps, std::uint32_t* out,
                                                  unsigned& a_matches, unsigned& b_matches, Comp comp) {
  constexpr std::uint32_t flag_a = IndexA ? kMatchBit : 1u;
  constexpr std::uint32_t flag_b = IndexB ? kMatchBit : 1u;
  T a_key = keys[a_i], b_key = keys[b_i];
  T a_prev = a_key, b_prev = b_key;
  if (a_i > 0) a_prev = keys[a_i - 1];
  if (b_i > 0) b_prev = keys[b_i - 1];
  unsigned decisions = 0;
#pragma unroll
  for (int i = 0; i < VT; ++i) {
    if (RangeCheck && i >= steps) break;
    bool p;
    if (RangeCheck && a_i >= a_end)
      p = false;
    else if (RangeCheck && b_i >= b_end)
      p = true;
    else
      p = take_a<B>(a_key, b_key, comp);
    if (p) {
      // An A step: the bound of a_key is b_i. Lower: a match can only be b_key (the predicate
      // proved !(b < a), so test !(a < b)); Upper: only b_prev.
      bool match = false;
      if (MatchA) {
        if (B == Bounds::Upper)
          match = (!RangeCheck || b_i > a_end) && !comp(b_prev, a_key);  // b_prev is a B key (halo included)
        else
          match = (!RangeCheck || b_i < b_end) && !comp(a_key, b_key);
      }
      std::uint32_t v = IndexA ? static_cast<std::uint32_t>(b_offset + b_i) : 0u;
      if (match) v |= flag_a;
      out[i] = v;
      a_matches += match;
      decisions |= 1u << i;
      a_prev = a_key;
      a_key = keys[++a_i];
    } else {
      // A B step: Lower: a match can only be a_prev; Upper: only a_key.
      bool match = false;
      if (MatchB) {
        if (B == Bounds::Upper)
          match = (!RangeCheck || (b_i < b_end && a_i < a_end)) && !comp(b_key, a_key);
        else
          match = (!RangeCheck || (b_i < b_end && a_i > 0)) && !comp(a_prev, b_key);
      }
      std::uint32_t v = IndexB ? static_cast<std::uint32_t>(a_offset + a_i) : 0u;
      if (match) v |= flag_b;
      out[i] = v;
      b_matches += match;
      b_prev = b_key;
      b_key = keys[++b_i];
    }
  }
  return decisions;
}

}  // namespace detail

// KernelSortedSearch (and, with `a_lower` set, KernelSortedEqualityCount): one tile of NV merge
// steps per block.
template <int NT, int VT, Bounds B, Output OA, Output OB, class T, class Comp>
__global__ void __launch_bounds__(NT) sorted_search_kernel(const T* __restrict__ a, int a_count,
                                                           const T* __restrict__ b, int b_count,
                                                           const int* __restrict__ mp,
                                                           std::uint32_t* __restrict__ a_out,
                                                           std::uint32_t* __restrict__ b_out,
                                                           const std::uint32_t* __restrict__ a_lower,
                                                           unsigned* __restrict__ tile_counts, Comp comp,
                                                           std::uint32_t a_base) {
  constexpr int NV = NT * VT;
  constexpr bool IndexA = has_index(OA), MatchA = has_match(OA), IndexB = has_index(OB), MatchB = has_match(OB);
  // Keys need room for the tile, four halo elements and the read-ahead past the last step; the
  // indices reuse the same bytes once the keys are consumed (ModernGPU's occupancy trick).
  union Shared {
    T keys[NV + 8];
    std::uint32_t indices[NV];
  };
  __shared__ Shared sh;
  const int tid = threadIdx.x;
  const int tile = blockIdx.x;
  const int a0 = mp[tile], a1 = mp[tile + 1];
  const int diag0 = tile * NV;
  const int diag1 = static_cast<int>(std::min<std::int64_t>(std::int64_t(diag0) + NV, std::int64_t(a_count) + b_count));
  const int b0 = diag0 - a0, b1 = diag1 - a1;
  const int a_n = a1 - a0, b_n = b1 - b0, count = a_n + b_n;

  // Halos (DeviceLoadSortedSearch): a match test may need the element just outside the tile.
  const int left_a = MatchB && B == Bounds::Lower && a0 > 0;
  const int left_b = MatchA && B == Bounds::Upper && b0 > 0;
  const int right_a = a1 < a_count, right_b = b1 < b_count;
  const int a_start = left_a, a_end = a_start + a_n + right_a;
  const int b_start = a_end + left_b, b_end = b_start + b_n + right_b;

  // DeviceLoad2ToShared: all loads issued before the first store so they overlap.
  {
    const T* a_src = a + (a0 - left_a);
    const T* b_src = b + (b0 - left_b);
    T reg[VT + 1];
#pragma unroll
    for (int k = 0; k <= VT; ++k) {
      int i = k * NT + tid;
      if (i < a_end)
        reg[k] = a_src[i];
      else if (i < b_end)
        reg[k] = b_src[i - a_end];
    }
#pragma unroll
    for (int k = 0; k <= VT; ++k) {
      int i = k * NT + tid;
      if (i < b_end) sh.keys[i] = reg[k];
    }
  }
  __syncthreads();

  // Range checks are needed only at the ends of the arrays or where a match test lacks a halo.
  const bool extended = right_a && right_b && (!(MatchB && B == Bounds::Lower) || left_a) &&
                        (!(MatchA && B == Bounds::Upper) || left_b);
  const int diag = VT * tid;
  std::uint32_t results[VT];
  unsigned decisions = 0, a_matches = 0, b_matches = 0;
  int a_i = 0, b_i = 0;
  if (diag < count) {
    int m = static_cast<int>(merge_path<B>(sh.keys + a_start, a_n, sh.keys + b_start, b_n, diag, comp));
    a_i = a_start + m;
    b_i = b_start + diag - m;
    if (extended)
      decisions = detail::serial_search<VT, B, false, IndexA, MatchA, IndexB, MatchB>(
          sh.keys, a_i, a_end, b_i, b_end, a0 - a_start, b0 - b_start, VT, results, a_matches, b_matches, comp);
    else
      decisions = detail::serial_search<VT, B, true, IndexA, MatchA, IndexB, MatchB>(
          sh.keys, a_i, a_end, b_i, b_end, a0 - a_start, b0 - b_start, count - diag, results, a_matches,
          b_matches, comp);
  }
  __syncthreads();

  // Compaction: A results to [0, a_n), B results to [a_n, a_n + b_n), by the decision bits.
  if (diag < count) {
    int steps = min(VT, count - diag);
    int ao = a_i - a_start, bo = a_n + (b_i - b_start);
#pragma unroll
    for (int k = 0; k < VT; ++k) {
      if (k >= steps) break;
      if ((decisions >> k) & 1u) {
        if (OA != Output::None) sh.indices[ao] = results[k];
        ++ao;
      } else {
        if (OB != Output::None) sh.indices[bo] = results[k];
        ++bo;
      }
    }
  }
  __syncthreads();

  if (OA != Output::None) {
    for (int i = tid; i < a_n; i += NT) {
      std::uint32_t v = sh.indices[i];
      if (a_lower) v -= a_lower[a0 + i];  // SortedEqualityCount: upper bound minus lower bound
      else v += a_base;
      a_out[a0 + i] = v;
    }
  }
  if (OB != Output::None)
    for (int i = tid; i < b_n; i += NT) b_out[b0 + i] = sh.indices[a_n + i];
  if (tile_counts) {
    __shared__ unsigned warp_sums[NT / 32];
    detail::block_sum_to<NT>(a_matches, warp_sums, tile_counts + 2 * tile);
    detail::block_sum_to<NT>(b_matches, warp_sums, tile_counts + 2 * tile + 1);
  }
}

// Scratch the launcher needs: the partition array, then two match counts per tile.
template <class Tuning>
std::size_t mergepath_scratch_bytes(std::int64_t a_count, std::int64_t b_count) {
  std::int64_t tiles = (a_count + b_count + Tuning::nv - 1) / Tuning::nv;
  return static_cast<std::size_t>(tiles + 2) * sizeof(int) + static_cast<std::size_t>(tiles) * 2 * sizeof(unsigned);
}

// SortedSearch<Bounds, TypeA, TypeB>. Sizes below 2^31 (indices are 32-bit with a flag bit).
// `match_counts` (device, two words: A keys matched, B keys matched) is filled when non-null.
// `a_lower` turns the A output into SortedEqualityCount (B must be Upper, OA Index). `a_base` is
// added to every A index (OA Index, no a_lower): B is a slice of a haystack starting there.
template <class Tuning, Bounds B, Output OA, Output OB, class T, class Comp = Less>
void mergepath_sorted_search(const T* a, int a_count, const T* b, int b_count, std::uint32_t* a_out,
                             std::uint32_t* b_out, void* scratch, unsigned long long* match_counts,
                             cudaStream_t stream, const std::uint32_t* a_lower = nullptr, Comp comp = {},
                             std::uint32_t a_base = 0) {
  static_assert(Tuning::vt <= 32, "decision bits are kept in one 32-bit word");
  std::int64_t total = std::int64_t(a_count) + b_count;
  if (total == 0) {
    if (match_counts) LP_CUDA(cudaMemsetAsync(match_counts, 0, 2 * sizeof(unsigned long long), stream));
    return;
  }
  int tiles = static_cast<int>((total + Tuning::nv - 1) / Tuning::nv);
  int* mp = static_cast<int*>(scratch);
  unsigned* tile_counts = match_counts ? reinterpret_cast<unsigned*>(mp + tiles + 2) : nullptr;
  merge_partition_kernel<B><<<(tiles + 1 + 127) / 128, 128, 0, stream>>>(a, a_count, b, b_count, Tuning::nv, tiles + 1, mp, comp);
  LP_CUDA_LAUNCH("merge_partition_kernel");
  sorted_search_kernel<Tuning::nt, Tuning::vt, B, OA, OB><<<tiles, Tuning::nt, 0, stream>>>(
      a, a_count, b, b_count, mp, a_out, b_out, a_lower, tile_counts, comp, a_base);
  LP_CUDA_LAUNCH("sorted_search_kernel");
  if (match_counts) {
    detail::sum_tile_counts_kernel<<<1, 1024, 0, stream>>>(tile_counts, tiles, match_counts);
    LP_CUDA_LAUNCH("sum_tile_counts_kernel");
  }
}

}  // namespace lp::sortedsearch
