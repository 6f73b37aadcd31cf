// The axes of harness::labels (datagen.hpp) that every label-driven study shares, so that a
// distribution added there is offered, described and checked the same way everywhere.
#pragma once
#include <string>

#include "study.hpp"

namespace harness {

// Mean run length of the distributions runs and equal_runs. Added after results were committed:
// records leave it out at its default (AxisSpec::omit_at_default).
inline AxisSpec run_length_axis() {
  AxisSpec a{"run_length", AxisKind::Real, "mean run length of distributions runs and equal_runs (>= 1)", {Value(16.0)}, {}};
  a.omit_at_default = true;
  return a;
}

inline const char* run_distributions_help() {
  return "runs (runs of consecutive labels, mean length run_length), equal_runs (runs of one label, mean length run_length)";
}

inline bool uses_run_length(const std::string& distribution) { return distribution == "runs" || distribution == "equal_runs"; }

// "" where run_length is usable, else the reason naming the key.
inline std::string check_run_length(const Params& p) {
  if (!(as_real(p, "run_length") >= 1)) return "run_length: the mean run length must be >= 1, not " + to_string(p.at("run_length"));
  return {};
}

}  // namespace harness
