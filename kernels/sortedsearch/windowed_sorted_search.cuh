// Windowed sorted search: our variant for today's GPUs, beyond ModernGPU. Tiles are fixed runs of
// needles (not merge-path diagonals), so no per-thread merge path and no compaction pass are needed:
// each tile's haystack window [bound(first needle), bound(next tile's first needle)] is staged in
// shared memory when it fits, and each thread searches its run of VT consecutive needles with one
// binary search followed by a linear walk. When the window does not fit (|A| << |B|), the tile falls
// back to per-needle binary searches restricted to the window, which read far less than all of B:
// the merge-based search is O(|A| + |B|), this is O(|A| log(|B|/|A|)) there.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "../common/cuda_check.cuh"
#include "bounds.hpp"

namespace lp::sortedsearch {

template <int NT, int VT, int WINDOW>
struct WindowedTuning {
  static constexpr int nt = NT, vt = VT, nv = NT * VT, window = WINDOW;
};

// The window holds about twice a tile's needles' worth of haystack, within 48 KiB of static
// shared memory for every key size.
template <class T>
using DefaultWindowedTuning = std::conditional_t<sizeof(T) <= 4, WindowedTuning<256, 9, 4096>, WindowedTuning<128, 9, 2048>>;

// bounds[t] = bound of the first needle of tile t into B; bounds[tiles] = |B|.
template <Bounds B, class T, class Comp>
__global__ void window_partition_kernel(const T* __restrict__ a, int a_count, const T* __restrict__ b, int b_count,
                                        int nv, int tiles, int* __restrict__ bounds, Comp comp) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t > tiles) return;
  bounds[t] = t == tiles ? b_count : static_cast<int>(bound_in<B>(b, 0, b_count, a[std::int64_t(t) * nv], comp));
}

template <int NT, int VT, int WINDOW, Bounds B, class T, class Comp>
__global__ void __launch_bounds__(NT) windowed_search_kernel(const T* __restrict__ a, int a_count,
                                                             const T* __restrict__ b, const int* __restrict__ bounds,
                                                             std::uint32_t* __restrict__ out, Comp comp) {
  constexpr int NV = NT * VT;
  // Needles are staged with a stride of VT + (VT % 2 == 0) words so that thread k's run starts in
  // bank k * stride mod 32: an odd stride keeps the 32 threads of a warp on 32 banks.
  constexpr int STRIDE = VT + (VT % 2 == 0);
  __shared__ T win[WINDOW];
  __shared__ T needles[NT * STRIDE];
  __shared__ std::uint32_t res[NT * STRIDE];
  const int tid = threadIdx.x;
  const int tile = blockIdx.x;
  const int a0 = tile * NV;
  const int a_n = min(NV, a_count - a0);
  const int w0 = bounds[tile], w1 = bounds[tile + 1];
  const int w_n = w1 - w0;

  // Coalesced, striped loads of the needles, transposed to per-thread runs through shared memory.
#pragma unroll
  for (int k = 0; k < VT; ++k) {
    int i = k * NT + tid;
    if (i < a_n) needles[(i / VT) * STRIDE + i % VT] = a[a0 + i];
  }
  const bool staged = w_n <= WINDOW;
  if (staged) {
    for (int i = tid; i < w_n; i += NT) win[i] = b[w0 + i];
  }
  __syncthreads();

  const int first = tid * VT;
  const int steps = min(VT, a_n - first);
  const T* run = needles + tid * STRIDE;
  std::uint32_t* mine = res + tid * STRIDE;
  if (steps > 0) {
    if (staged) {
      // One binary search for the run's first needle, then a merge-like walk.
      int j = static_cast<int>(bound_in<B>(win, 0, w_n, run[0], comp));
#pragma unroll
      for (int k = 0; k < VT; ++k) {
        if (k < steps) {
          T key = run[k];
          while (j < w_n && !take_a<B>(key, win[j], comp)) ++j;
          mine[k] = static_cast<std::uint32_t>(w0 + j);
        }
      }
    } else {
      // The window is too large to stage: binary searches over b[w0, w1), each starting where the
      // previous needle's bound lies (needles are sorted).
      std::int64_t lo = w0;
      for (int k = 0; k < steps; ++k) {
        lo = bound_in<B>(b, lo, w1, run[k], comp);
        mine[k] = static_cast<std::uint32_t>(lo);
      }
    }
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < VT; ++k) {
    int i = k * NT + tid;
    if (i < a_n) out[a0 + i] = res[(i / VT) * STRIDE + i % VT];
  }
}

template <class Tuning>
std::size_t windowed_scratch_bytes(std::int64_t a_count) {
  return static_cast<std::size_t>((a_count + Tuning::nv - 1) / Tuning::nv + 1) * sizeof(int);
}

// Bound (Lower or Upper) of every needle of sorted A into sorted B. Sizes below 2^31.
template <class Tuning, Bounds B, class T, class Comp = Less>
void windowed_sorted_search(const T* a, int a_count, const T* b, int b_count, std::uint32_t* out, void* scratch,
                            cudaStream_t stream, Comp comp = {}) {
  if (a_count == 0) return;
  int tiles = (a_count + Tuning::nv - 1) / Tuning::nv;
  int* bounds = static_cast<int*>(scratch);
  window_partition_kernel<B><<<(tiles + 1 + 127) / 128, 128, 0, stream>>>(a, a_count, b, b_count, Tuning::nv, tiles, bounds, comp);
  LP_CUDA_LAUNCH("window_partition_kernel");
  windowed_search_kernel<Tuning::nt, Tuning::vt, Tuning::window, B><<<tiles, Tuning::nt, 0, stream>>>(a, a_count, b, bounds, out, comp);
  LP_CUDA_LAUNCH("windowed_search_kernel");
}

}  // namespace lp::sortedsearch
