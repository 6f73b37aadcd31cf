// `auto` for the patched study, from the H100 runs of issue 12 (results/h100/patched/): a plan
// chosen on the host from what a reader knows before it decodes (the patch count, how many chunks
// hold patches), not per warp inside one kernel.
//   Decode    no patches: the plain FastLanes decode (fused.cuh with Patching::None)
//   Warp      u8 always, u16 with scattered patches: fused_warp_apply (4 or 2 lanes per thread make
//             per-lane cursors cost more than the warp's cooperative apply)
//   Lanes     u32/u64, and u16 with clustered patches (more than `dense` per patched chunk on
//             average): G-ALP's lane cursors (fused), the fastest of ours there in the same run.
// A first version sent clustered patches to a decode followed by a warp per chunk applying them in
// a second kernel; the H100 ran it at 0.54-0.93x of decode + thrust::scatter, below both fused
// forms, so it is gone (results/h100/patched/README.md). Clustered patches at rates <= 1% still lose
// a few percent to that peer (its flat one-thread-per-patch scatter is balanced; see the notes).
#pragma once
#include <cstdint>

#include "common.cuh"
#include "fused.cuh"

namespace lp::patched {

enum class AutoPlan { Decode, Warp, Lanes };

inline const char* to_string(AutoPlan p) {
  switch (p) {
    case AutoPlan::Decode: return "decode";
    case AutoPlan::Warp: return "fused_warp_apply";
    case AutoPlan::Lanes: return "fused";
  }
  return "?";
}

// count: patches; patched_chunks: chunks holding at least one.
template <class T>
AutoPlan auto_plan(std::int64_t count, std::int64_t patched_chunks, const Tuning& tune) {
  if (count == 0) return AutoPlan::Decode;
  if (sizeof(T) == 1) return AutoPlan::Warp;
  const std::int64_t dense = tune.dense > 0 ? tune.dense : kDefaultDense;
  const bool clustered = count > dense * patched_chunks;
  return sizeof(T) == 2 && !clustered ? AutoPlan::Warp : AutoPlan::Lanes;
}

template <class T>
void patched_auto(const DevicePatched<T>& a, std::int64_t patched_chunks, T* out, const Tuning& tune, cudaStream_t s) {
  switch (auto_plan<T>(a.count, patched_chunks, tune)) {
    case AutoPlan::Decode: return decode_unpatched(a, out, tune, s);
    case AutoPlan::Warp: return fused_warp_apply(a, out, tune, s);
    case AutoPlan::Lanes: return fused(a, out, tune, s);
  }
}

}  // namespace lp::patched
