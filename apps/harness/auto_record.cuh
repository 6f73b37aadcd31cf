// The record of a study's `auto` at a point (harness side): the plan it ran and, where it looked, the
// profile it decided from and the look's GPU time. Reads the slot the profile pass left at the end of
// auto's scratch (kernels/common/auto_launch.cuh), after the timed runs.
#pragma once
#include <cuda_runtime.h>

#include "auto_metrics.hpp"
#include "gpu.hpp"
#include "kernels/common/auto_launch.cuh"

namespace harness {

template <class Rule, class K>
Params auto_record(const Rule& rule, const lp::profile::Columns<K>& cols, void* scratch, std::size_t scratch_bytes) {
  const auto& z = rule.sizes;
  if (!needs_look(z)) return auto_metrics(name(by_size(z)), nullptr, -1);
  lp::profile::Slot* at = lp::profile::slot_in(scratch, scratch_bytes);
  lp::profile::Slot slot;
  LP_CUDA(cudaMemcpy(&slot, at, sizeof slot, cudaMemcpyDeviceToHost));
  using Plan = decltype(by_size(z));
  const double look_us = time_enqueued_us([&](void* s) { lp::profile::launch_look(cols, rule, at, static_cast<cudaStream_t>(s)); });
  return auto_metrics(name(Plan(slot.plan)), &slot, look_us);
}

}  // namespace harness
