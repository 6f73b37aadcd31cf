// The library a user would call for the same answer (beyond the documents: what `auto` may run):
// thrust::lower_bound / thrust::upper_bound of every needle into the haystack, one binary search per
// needle through thrust::for_each. With par_nosync it enqueues one kernel, allocates no temporary
// memory and never synchronises, so it can be captured into auto's plan graph. The study's peers
// thrust_lower_bound / thrust_upper_bound (apps/sortedsearch/peers.cu) are these.
#pragma once
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>

#include <cstdint>

#include "../common/cuda_check.cuh"
#include "bounds.hpp"

namespace lp::sortedsearch {

template <Bounds B, class T>
void thrust_bound(const T* haystack, int haystack_count, const T* needles, int count, std::uint32_t* out, cudaStream_t s) {
  if constexpr (B == Bounds::Lower)
    thrust::lower_bound(thrust::cuda::par_nosync.on(s), haystack, haystack + haystack_count, needles, needles + count, out);
  else
    thrust::upper_bound(thrust::cuda::par_nosync.on(s), haystack, haystack + haystack_count, needles, needles + count, out);
  LP_CUDA_LAUNCH("thrust bound");
}

}  // namespace lp::sortedsearch
