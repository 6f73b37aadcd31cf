// The baseline a user writes without the seed's layout: decode the column, then
// thrust::scatter the patch values to their global positions (the plain exception list, sorted by
// position, as Parquet-style formats store it).
#pragma once
#include <thrust/execution_policy.h>
#include <thrust/scatter.h>

#include <cstdint>

#include "../common/cuda_check.cuh"
#include "common.cuh"
#include "fused.cuh"

namespace lp::patched {

// positions[k], values[k]: the k-th patch in global position order.
template <class A, class T>
void decode_thrust_scatter(const A& a, const std::uint32_t* positions, const T* values, std::int64_t count, T* out,
                           const Tuning& tune, cudaStream_t s) {
  decode_unpatched(a, out, tune, s);
  // par_nosync: the timed region must not synchronise; scatter allocates nothing. Thrust reports a
  // failed launch by throwing thrust::system_error.
  if (count == 0) return;
  thrust::scatter(thrust::cuda::par_nosync.on(s), values, values + count, positions, out);
  LP_CUDA_LAUNCH("thrust::scatter");
}

}  // namespace lp::patched
