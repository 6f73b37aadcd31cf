// `auto` for the patched study, from the H100 runs of issue 12 (results/h100/patched/): a plan
// chosen on the host from what a reader knows before it decodes (the patch count, how many chunks
// hold patches), not per warp inside one kernel.
//   Decode    no patches: the plain FastLanes decode (fused.cuh with Patching::None)
//   TwoPass   clustered patches (more than `dense` per patched chunk on average): the decode, then
//             one warp per chunk applies the chunk's patches (warp_apply.cuh) in a second kernel.
//             Fused into the decode, a few fully patched chunks hold up their blocks; apart, both
//             kernels stay balanced (the H100 ran decode + thrust::scatter faster than either fused
//             form there)
//   Warp      scattered patches, u8/u16: fused_warp_apply (many lanes per thread: cursors cost more)
//   Lanes     scattered patches, u32/u64: G-ALP's lane cursors (fused)
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "../common/cuda_check.cuh"
#include "common.cuh"
#include "fused.cuh"
#include "warp_apply.cuh"

namespace lp::patched {

enum class AutoPlan { Decode, TwoPass, Warp, Lanes };

inline const char* to_string(AutoPlan p) {
  switch (p) {
    case AutoPlan::Decode: return "decode";
    case AutoPlan::TwoPass: return "decode_warp_apply";
    case AutoPlan::Warp: return "fused_warp_apply";
    case AutoPlan::Lanes: return "fused";
  }
  return "?";
}

// count: patches; patched_chunks: chunks holding at least one.
template <class T>
AutoPlan auto_plan(std::int64_t count, std::int64_t patched_chunks, const Tuning& tune) {
  if (count == 0) return AutoPlan::Decode;
  const std::int64_t dense = tune.dense > 0 ? tune.dense : kDefaultDense;
  if (count > dense * patched_chunks) return AutoPlan::TwoPass;
  return sizeof(T) <= 2 ? AutoPlan::Warp : AutoPlan::Lanes;
}

// One warp per chunk: the chunk's patches, coalesced (warp_apply_chunk with 32 threads).
template <class T>
__global__ void warp_apply_kernel(DevicePatched<T> a, std::int64_t chunks, T* __restrict__ out) {
  const std::int64_t c = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5;
  if (c < chunks) warp_apply_chunk(a, c, true, int(threadIdx.x & 31), 32, out);
}

template <class T>
void decode_warp_apply(const DevicePatched<T>& a, T* out, const Tuning& tune, cudaStream_t s) {
  decode_unpatched(a, out, tune, s);
  const std::int64_t chunks = chunks_of(a.n);
  if (chunks == 0 || a.count == 0) return;
  constexpr int kThreads = 256;
  warp_apply_kernel<T><<<unsigned((chunks * 32 + kThreads - 1) / kThreads), kThreads, 0, s>>>(a, chunks, out);
  LP_CUDA_LAUNCH("patched warp_apply_kernel");
}

template <class T>
void patched_auto(const DevicePatched<T>& a, std::int64_t patched_chunks, T* out, const Tuning& tune, cudaStream_t s) {
  switch (auto_plan<T>(a.count, patched_chunks, tune)) {
    case AutoPlan::Decode: return decode_unpatched(a, out, tune, s);
    case AutoPlan::TwoPass: return decode_warp_apply(a, out, tune, s);
    case AutoPlan::Warp: return fused_warp_apply(a, out, tune, s);
    case AutoPlan::Lanes: return fused(a, out, tune, s);
  }
}

}  // namespace lp::patched
