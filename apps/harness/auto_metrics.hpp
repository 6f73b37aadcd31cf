// What a record says of an `auto` decision (harness side; no algorithm here): the plan it ran, whether
// it looked at the data, the input profile it decided from (kernels/common/input_profile.hpp), and
// what the look costs on the GPU. Plain C++: the profile is plain data.
#pragma once
#include <string>

#include "kernels/common/input_profile.hpp"
#include "study.hpp"

namespace harness {

// A profile's fields under `prefix` (profile_, or profile2_ for a join's probe side).
inline void add_profile(Params& out, const std::string& prefix, const lp::profile::Profile& p) {
  out[prefix + "sample"] = std::int64_t(p.sample);
  out[prefix + "sorted"] = p.sorted;
  out[prefix + "sorted_global"] = p.sorted_global;
  out[prefix + "run_mean"] = p.run_mean;
  out[prefix + "warp_runs"] = p.warp_runs;
  out[prefix + "distinct"] = p.distinct;
  out[prefix + "heavy"] = p.heavy;
  out[prefix + "span"] = p.span;
}

// `slot`: the profile pass's output, or null where auto took its plan from the sizes alone (no look).
// `look_us`: the pass's GPU time (time_enqueued_us), < 0 where not measured.
inline Params auto_metrics(const std::string& plan, const lp::profile::Slot* slot, double look_us) {
  Params out;
  out["plan"] = plan;
  out["look"] = std::string(slot ? "device" : "none");
  if (slot) {
    add_profile(out, "profile_", slot->first);
    if (slot->columns == 2) {
      add_profile(out, "profile2_", slot->second);
      out["match_estimate"] = slot->match;
    }
  }
  if (look_us >= 0) out["look_us"] = look_us;
  return out;
}

}  // namespace harness
