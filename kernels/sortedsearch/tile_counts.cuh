// The complete searches' match counts (ModernGPU's SortedSearch with counts): per-tile sums in a
// scratch array, added up by one small kernel. Shared by the merge-path and windowed searches.
#pragma once
#include <cuda_runtime.h>

namespace lp::sortedsearch {

namespace detail {

// Per-tile match counts go to a scratch array and one small kernel adds them up: a same-address
// atomic per warp serialises in L2 and cost the complete search half its speed on an H100.
template <class U>
__device__ __forceinline__ U warp_sum(U value) {
  for (int o = 16; o > 0; o >>= 1) value += __shfl_down_sync(0xffffffffu, value, o);
  return value;  // complete in lane 0
}

template <int NT>
__device__ __forceinline__ void block_sum_to(unsigned value, unsigned* warp_sums, unsigned* out) {
  value = warp_sum(value);
  if ((threadIdx.x & 31) == 0) warp_sums[threadIdx.x / 32] = value;
  __syncthreads();
  if (threadIdx.x == 0) {
    unsigned total = 0;
#pragma unroll
    for (int w = 0; w < NT / 32; ++w) total += warp_sums[w];
    *out = total;
  }
  __syncthreads();
}

static __global__ void sum_tile_counts_kernel(const unsigned* __restrict__ tile_counts, int tiles,
                                       unsigned long long* __restrict__ match_counts) {
  __shared__ unsigned long long part[2][32];
  unsigned long long a = 0, b = 0;
  for (int t = threadIdx.x; t < tiles; t += blockDim.x) a += tile_counts[2 * t], b += tile_counts[2 * t + 1];
  a = warp_sum(a);
  b = warp_sum(b);
  if ((threadIdx.x & 31) == 0) part[0][threadIdx.x / 32] = a, part[1][threadIdx.x / 32] = b;
  __syncthreads();
  if (threadIdx.x == 0) {
    a = b = 0;
    for (int w = 0; w < int(blockDim.x / 32); ++w) a += part[0][w], b += part[1][w];
    match_counts[0] = a;
    match_counts[1] = b;
  }
}

}  // namespace detail
}  // namespace lp::sortedsearch
