// `auto` for the patched study (beyond the documents): the plans of its decision table
// (auto_rule.hpp), each a variant of the study, and the one launch that profiles the layout's
// lane_offsets on the device and runs the plan the table picks there (kernels/common/auto_launch.cuh).
// Every plan's launcher only enqueues (no allocation, no synchronisation; thrust::scatter runs with
// par_nosync and no temporary memory), so each can be captured into the plan graph.
#pragma once
#include <cstdint>
#include <stdexcept>

#include "../common/auto_launch.cuh"
#include "auto_rule.hpp"
#include "chunk_apply.cuh"
#include "common.cuh"
#include "fused.cuh"
#include "lane_apply.cuh"
#include "thrust_scatter.cuh"

namespace lp::patched {

// The plain exception list the peer plan scatters (global positions ascending, their values), where
// the column carries it beside the lane layout; null positions where it does not.
template <class T>
struct PlainPatches {
  const std::uint32_t* positions = nullptr;
  const T* values = nullptr;
};

// A: the column, DevicePatched<T> or (alp_decode.cuh) DeviceAlp<T>; T its values' bits.
template <class A, class T>
auto_rule::Sizes auto_sizes(const A& arr, const PlainPatches<T>& plain, const Tuning& tune) {
  const DevicePatched<T>& a = patches_of(arr);
  auto_rule::Sizes s{};
  s.n = a.n;
  s.count = a.count;
  s.lanes = chunks_of(a.n) * kLanes<T>;
  s.type_bytes = std::uint32_t(sizeof(T));
  s.dense = tune.dense;
  s.plain = plain.positions != nullptr;
  s.alp = is_alp(arr);
  return s;
}

// The column the profile reads: lane_offsets, lanes + 1 entries, no label domain.
template <class T>
profile::Columns<std::uint32_t> offsets_column(const DevicePatched<T>& a) {
  profile::Columns<std::uint32_t> c;
  c.first = a.lane_offsets;
  c.n_first = chunks_of(a.n) * kLanes<T> + 1;
  return c;
}
template <class A>
profile::Columns<std::uint32_t> auto_columns(const A& a) { return offsets_column(patches_of(a)); }

// What the plan graph's key holds of an integer column (alp_decode.cuh: of a float column): every
// pointer and size its launches are captured with, field by field (the struct has padding).
template <class T>
std::string array_key(const DevicePatched<T>& a) {
  return plan_key("patched", a.n, a.w, a.words, a.bases, a.lane_offsets, a.indices, a.values, a.count);
}

// No plan needs scratch: auto's is the profile's slot where it looks.
inline std::size_t auto_scratch_bytes(const auto_rule::Sizes& z) {
  return profile::auto_scratch_bytes(z, [](auto_rule::Plan) { return std::size_t(0); });
}

template <class A, class T>
void auto_run_plan(auto_rule::Plan p, const A& a, const PlainPatches<T>& plain, T* out, const Tuning& tune, cudaStream_t s) {
  using auto_rule::Plan;
  switch (p) {
    case Plan::DecodeUnpatched: return decode_unpatched(a, out, tune, s);
    case Plan::Fused: return fused(a, out, tune, s);
    case Plan::FusedWarpApply: return fused_warp_apply(a, out, tune, s);
    case Plan::DecodeLaneApply: return decode_lane_apply(a, out, tune, s);
    case Plan::DecodeChunkApply: return decode_chunk_apply(a, out, tune, s);
    case Plan::DecodeThrustScatter:
      if (!plain.positions) throw std::logic_error("patched auto: the peer plan without the plain exception list");
      return decode_thrust_scatter(a, plain.positions, plain.values, patches_of(a).count, out, tune, s);
    default: throw std::logic_error("patched auto: no plan");
  }
}

// Decode and patch `a` into `out` by the table. `scratch` holds auto_scratch_bytes(auto_sizes(...)).
template <class A, class T>
void patched_auto(const A& a, const PlainPatches<T>& plain, T* out, void* scratch, std::size_t scratch_bytes,
                  const Tuning& tune, cudaStream_t s) {
  const auto_rule::Rule rule{auto_sizes(a, plain, tune)};
  // The graph's key: every pointer, size and knob the plans' launches are captured with.
  const std::string key = array_key(a) + plan_key("patched/auto", plain.positions, plain.values, out, tune.threads, tune.dense);
  profile::run_auto(
      rule, key, auto_columns(a), scratch, scratch_bytes,
      [&](auto_rule::Plan p, cudaStream_t cs, std::size_t) { auto_run_plan(p, a, plain, out, tune, cs); }, s);
}

}  // namespace lp::patched
