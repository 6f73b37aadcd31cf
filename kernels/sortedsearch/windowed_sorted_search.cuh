// Windowed sorted search: our variant for today's GPUs, beyond ModernGPU. Tiles are fixed runs of
// needles (not merge-path diagonals), so no per-thread merge path and no compaction pass are needed:
// each tile's haystack window [bound(first needle), bound(next tile's first needle)] is staged in
// shared memory when it fits, and each thread searches its run of VT consecutive needles with one
// binary search followed by a linear walk. When |B| >> |A| the launcher runs one binary search per
// needle instead, which reads far less than all of B (the merge-based search is O(|A| + |B|)); a
// tile whose window still overflows (clustered keys) searches the window in global memory.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "../common/cuda_check.cuh"
#include "binary_search.cuh"
#include "bounds.hpp"

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

// bounds[t] = bound of the first needle of tile t into B; bounds[tiles] = |B|.
template <Bounds B, class T, class Comp>
__global__ void window_partition_kernel(const T* __restrict__ a, int a_count, const T* __restrict__ b, int b_count,
                                        int nv, int tiles, int* __restrict__ bounds, Comp comp) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t > tiles) return;
  bounds[t] = t == tiles ? b_count : static_cast<int>(bound_in<B>(b, 0, b_count, a[std::int64_t(t) * nv], comp));
}

template <class Tuning, Bounds B, class T, class Comp>
__global__ void __launch_bounds__(Tuning::nt) windowed_search_kernel(const T* __restrict__ a, int a_count,
                                                             const T* __restrict__ b, const int* __restrict__ bounds,
                                                             std::uint32_t* __restrict__ out, Comp comp) {
  constexpr int NT = Tuning::nt, VT = Tuning::vt, NV = Tuning::nv, WINDOW = Tuning::window, SKIP = Tuning::skip;
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

  // Coalesced, striped loads (all issued before the first shared store), transposed to runs.
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
        }
      }
    } else {
      // The window is too large to stage (clustered keys): VT binary searches over b[w0, w1) in
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
      for (int k = 0; k < VT; ++k)
        if (k < steps && w_n > 0 && !take_a<B>(key[k], b[base[k]], comp)) ++base[k];
#pragma unroll
      for (int k = 0; k < VT; ++k) res[k] = static_cast<std::uint32_t>(base[k]);
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < VT; ++k)
    if (k < steps) runs.results[tid * STRIDE + k] = res[k];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < VT; ++k) {
    int i = k * NT + tid;
    if (i < a_n) out[a0 + i] = runs.results[(i / VT) * STRIDE + i % VT];
  }
}

template <class Tuning>
std::size_t windowed_scratch_bytes(std::int64_t a_count) {
  return static_cast<std::size_t>((a_count + Tuning::nv - 1) / Tuning::nv + 1) * sizeof(int);
}

// Bound (Lower or Upper) of every needle of sorted A into sorted B. Sizes below 2^31. When the
// haystack per tile would overflow the window on average (|B| > window/tile * |A|), one thread
// per needle searching the whole haystack is the better schedule: it reads only the cache lines
// on the needles' search paths, and A is too small to fill the GPU with tiles anyway.
template <class Tuning, Bounds B, class T, class Comp = Less>
void windowed_sorted_search(const T* a, int a_count, const T* b, int b_count, std::uint32_t* out, void* scratch,
                            cudaStream_t stream, Comp comp = {}) {
  if (a_count == 0) return;
  if (std::int64_t(b_count) * Tuning::nv > std::int64_t(a_count) * Tuning::window) {
    binary_search<B>(a, a_count, b, b_count, out, stream, comp);
    return;
  }
  int tiles = (a_count + Tuning::nv - 1) / Tuning::nv;
  int* bounds = static_cast<int*>(scratch);
  window_partition_kernel<B><<<(tiles + 1 + 127) / 128, 128, 0, stream>>>(a, a_count, b, b_count, Tuning::nv, tiles, bounds, comp);
  LP_CUDA_LAUNCH("window_partition_kernel");
  windowed_search_kernel<Tuning, B><<<tiles, Tuning::nt, 0, stream>>>(a, a_count, b, bounds, out, comp);
  LP_CUDA_LAUNCH("windowed_search_kernel");
}

}  // namespace lp::sortedsearch
