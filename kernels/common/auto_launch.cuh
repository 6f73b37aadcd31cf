// `auto` as one launch (beyond the documents): the profile pass over the input's label or key
// columns evaluates the study's decision table on the device and runs the plan it picks, inside one
// CUDA graph (plan_graph.cuh); below the size where a look pays, the host runs the plan the table
// gives from the sizes alone. The profile and the plan land in a slot at the end of auto's scratch,
// which the study reads back after its timed runs for the record.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <string>
#include <vector>

#include "carve.hpp"
#include "input_profile.cuh"
#include "plan_graph.cuh"

namespace lp::profile {

// The slot's bytes at the end of a scratch buffer (256-aligned, as every scratch layout here is).
constexpr std::size_t kSlotBytes = (sizeof(Slot) + 255) / 256 * 256;
inline Slot* slot_in(void* scratch, std::size_t scratch_bytes) {
  return reinterpret_cast<Slot*>(static_cast<char*>(scratch) + scratch_bytes - kSlotBytes);
}

// The profile pass that sets a plan graph's switch (plan_graph.cuh), as the graph's look. `rule` is the
// study's decision table as a functor: unsigned operator()(const Profile& first, const Profile&
// second, double match) const, callable on the device.
template <class K, class Rule>
PlanLook profile_look(const Columns<K>& cols, const Rule& rule, Slot* slot) {
  return [cols, rule, slot](cudaGraphConditionalHandle h, cudaStream_t s) { launch_profile(cols, rule, slot, h, true, s); };
}

// Enqueues the graph of (profile + rule, switch over plans) for `key` on `s`: plans[i] runs where the
// rule answers i.
template <class K, class Rule>
void launch_auto(const std::string& key, const Columns<K>& cols, const Rule& rule, Slot* slot, const std::vector<PlanBody>& plans, cudaStream_t s) {
  launch_planned(key + plan_key("profile", cols, slot, rule), profile_look(cols, rule, slot), plans, s);
}

// The profile pass alone, filling the slot (no switch): the tests, and the look's cost.
template <class K, class Rule>
void launch_look(const Columns<K>& cols, const Rule& rule, Slot* slot, cudaStream_t s) {
  launch_profile(cols, rule, slot, cudaGraphConditionalHandle{}, false, s);
}

// A study's `auto` over its decision table (a namespace with Plan (ending in Count), Sizes, by_size,
// needs_look, possible, name and Rule { Sizes sizes; }, found by argument-dependent lookup):

// The scratch: the most any plan the table can answer here needs, then the profile's slot where it looks.
template <class Sizes, class PlanScratch>
std::size_t auto_scratch_bytes(const Sizes& z, PlanScratch plan_scratch) {
  using Plan = decltype(by_size(z));
  std::size_t bytes = 0;
  for (unsigned i = 0; i < unsigned(Plan::Count); ++i)
    if (possible(z, Plan(i))) bytes = std::max(bytes, std::size_t(plan_scratch(Plan(i))));
  return align256(bytes) + (needs_look(z) ? kSlotBytes : 0);
}

// Runs the plan by sizes where they settle it (no look); else the graph of the profile pass and the
// switch over every plan the table can answer. run_plan(Plan, cudaStream_t, std::size_t plan_scratch_bytes)
// enqueues one plan; `key` names everything its launches depend on besides the columns and the sizes.
template <class Rule, class K, class RunPlan>
void run_auto(const Rule& rule, const std::string& key, const Columns<K>& cols, void* scratch, std::size_t scratch_bytes, RunPlan run_plan,
              cudaStream_t s) {
  const auto& z = rule.sizes;
  using Plan = decltype(by_size(z));
  if (!needs_look(z)) return run_plan(by_size(z), s, scratch_bytes);
  Slot* slot = slot_in(scratch, scratch_bytes);
  const std::string full = key + plan_key("auto", rule, scratch, scratch_bytes, cols, slot);  // the rule holds the sizes
  if (launch_cached(full, s)) return;  // the replay: no plan is built, nothing allocated
  const std::size_t plan_bytes = scratch_bytes - kSlotBytes;
  std::vector<PlanBody> plans;
  for (unsigned i = 0; i < unsigned(Plan::Count); ++i) {
    if (!possible(z, Plan(i))) plans.push_back([](cudaStream_t) {});
    else plans.push_back([&run_plan, i, plan_bytes](cudaStream_t cs) { run_plan(Plan(i), cs, plan_bytes); });
  }
  launch_planned(full, profile_look(cols, rule, slot), plans, s);
}

}  // namespace lp::profile
