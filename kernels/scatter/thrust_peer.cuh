// The library call a user makes instead: thrust::scatter (equal labels: any one wins) or
// thrust::gather, on the caller's stream without synchronising (par_nosync; neither allocates), so
// that `auto` can run it inside its graph as well as the study as its peer.
#pragma once
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/scatter.h>

#include <cstdint>

#include "../common/cuda_check.cuh"

namespace lp::scatter {

template <class W>
void thrust_scatter_gather(bool gather, const std::uint32_t* labels, const W* values, std::int64_t n, W* out, cudaStream_t s) {
  if (n <= 0) return;
  if (gather) thrust::gather(thrust::cuda::par_nosync.on(s), labels, labels + n, values, out);
  else thrust::scatter(thrust::cuda::par_nosync.on(s), values, values + n, labels, out);
  LP_CUDA_LAUNCH("thrust scatter/gather");
}

}  // namespace lp::scatter
