// The naive parallel apply: one thread per chunk walks all of the chunk's patches (the loop a
// chunked layout without lanes suggests). Patches clustered in a few chunks serialise on a few
// threads: the skew case that the seed's lanes (lane_apply.cuh) and the fused decoders avoid.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "../common/cuda_check.cuh"
#include "common.cuh"
#include "fused.cuh"

namespace lp::patched {

template <class T>
__global__ void chunk_apply_kernel(DevicePatched<T> a, std::int64_t chunks, T* __restrict__ out) {
  const std::int64_t c = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (c >= chunks) return;
  T* o = out + c * kChunk;
  for (std::uint32_t k = __ldg(a.lane_offsets + c * kLanes<T>), e = __ldg(a.lane_offsets + (c + 1) * kLanes<T>); k < e; ++k)
    o[__ldg(a.indices + k)] = a.values[k];
}

// Decode (fused.cuh without patches, or alp_decode.cuh's), then one thread per chunk.
template <class A, class T>
void decode_chunk_apply(const A& arr, T* out, const Tuning& tune, cudaStream_t s) {
  decode_unpatched(arr, out, tune, s);
  const DevicePatched<T>& a = patches_of(arr);
  const std::int64_t chunks = chunks_of(a.n);
  if (chunks == 0) return;
  const int threads = tune.threads > 0 ? tune.threads : kDefaultThreads;
  chunk_apply_kernel<T><<<unsigned((chunks + threads - 1) / threads), unsigned(threads), 0, s>>>(a, chunks, out);
  LP_CUDA_LAUNCH("patched chunk_apply_kernel");
}

}  // namespace lp::patched
