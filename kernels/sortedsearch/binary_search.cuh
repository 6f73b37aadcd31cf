// Vectorized binary search (the Thrust-style baseline of ModernGPU's sorted-search page): every
// thread runs an independent binary search of one needle over the whole haystack. Needles need
// not be sorted; sorted needles keep neighbouring threads on the same cache lines.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "../common/cuda_check.cuh"
#include "bounds.hpp"

namespace lp::sortedsearch {

template <Bounds B, class T, class Comp>
__global__ void binary_search_kernel(const T* __restrict__ needles, int count, const T* __restrict__ haystack,
                                     int haystack_count, std::uint32_t* __restrict__ out, Comp comp, std::uint32_t a_base) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= count) return;
  out[i] = a_base + static_cast<std::uint32_t>(bound_in<B>(haystack, 0, haystack_count, needles[i], comp));
}

// `a_base` is added to every index: the haystack is a slice starting there (several GPUs).
template <Bounds B, class T, class Comp = Less>
void binary_search(const T* needles, int count, const T* haystack, int haystack_count, std::uint32_t* out,
                   cudaStream_t stream, Comp comp = {}, std::uint32_t a_base = 0) {
  if (count == 0) return;
  constexpr int nt = 256;
  binary_search_kernel<B><<<(count + nt - 1) / nt, nt, 0, stream>>>(needles, count, haystack, haystack_count, out, comp, a_base);
  LP_CUDA_LAUNCH("binary_search_kernel");
}

}  // namespace lp::sortedsearch
