// The seed's lane-parallel apply (Vortex's patched arrays, docs/references.md: "lane_offsets
// allows each thread in a warp to seek to its patches in constant time"), as its own pass after the
// decode: one thread per (chunk, lane) walks that lane's patches and overwrites the decoded values.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "../common/cuda_check.cuh"
#include "common.cuh"
#include "fused.cuh"

namespace lp::patched {

template <class T>
__global__ void lane_apply_kernel(DevicePatched<T> a, std::int64_t slots, T* __restrict__ out) {
  const std::int64_t slot = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (slot >= slots) return;
  T* o = out + (slot / kLanes<T>) * kChunk;
  for (std::uint32_t k = __ldg(a.lane_offsets + slot), e = __ldg(a.lane_offsets + slot + 1); k < e; ++k) o[__ldg(a.indices + k)] = a.values[k];
}

template <class T>
void lane_apply(const DevicePatched<T>& a, T* out, const Tuning& tune, cudaStream_t s) {
  const std::int64_t slots = chunks_of(a.n) * kLanes<T>;
  if (slots == 0) return;
  const int threads = tune.threads > 0 ? tune.threads : kDefaultThreads;
  lane_apply_kernel<T><<<unsigned((slots + threads - 1) / threads), unsigned(threads), 0, s>>>(a, slots, out);
  LP_CUDA_LAUNCH("patched lane_apply_kernel");
}

// Decode (fused.cuh without patches, or alp_decode.cuh's for a float column), then the seed's
// lane-parallel apply.
template <class A, class T>
void decode_lane_apply(const A& a, T* out, const Tuning& tune, cudaStream_t s) {
  decode_unpatched(a, out, tune, s);
  lane_apply(patches_of(a), out, tune, s);
}

}  // namespace lp::patched
