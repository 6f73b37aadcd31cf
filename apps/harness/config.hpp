// Loading and validating a run's JSON config, and expanding its axes into points.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "study.hpp"

namespace harness {

// When to stop repeating a timing: at least `min` samples, then until the relative spread
// (stddev / median) is under `target_rsd` or the samples used up `budget_ms`; never more than `max`.
struct Repetitions {
  int warmup = 2;
  int min = 5;
  int max = 50;
  double budget_ms = 1000.0;
  double target_rsd = 0.02;
};

struct RunConfig {
  std::string study;
  std::uint64_t seed = 1;
  std::vector<std::string> variants;  // resolved: never "all"
  std::vector<Params> points;         // in run order
  Repetitions reps;
  bool validate = true;
  bool cold = true;                   // L2 flushed before every timed repetition
  std::int64_t device_memory_limit = 0;  // bytes the run may allocate on the GPU (0: all there is)
  nlohmann::json as_run;              // the config after defaults and overrides, for the results
};

// Parses `text` (from `source`, for messages) against the study's axes and variants. Throws
// UsageError with one line naming the key and the reason.
RunConfig load_config(const std::string& text, const std::string& source, const Study& study);

// Parses a size: an integer, "2^k", "2^k+c" or "2^k-c". Throws UsageError naming `key`.
std::int64_t parse_size(const nlohmann::json& v, const std::string& key);

// Makes the run short (--quick): fewer warm-ups and samples, a small budget, and sizes cut to 2^20
// (every size axis of a larger point divided by one power of two).
void make_quick(RunConfig& cfg, const Study& study);

// Cuts every point's sizes to `limit` (--size-limit N) as --quick does, repetitions unchanged: a
// shorter measurement that `bench reproduce --budget-min` picks. Records the limit in the config as
// run (`size_limit`). Throws UsageError for a limit below 1.
void cut_sizes(RunConfig& cfg, const Study& study, std::int64_t limit);

// Replaces the config's variants (--variants a,b). Throws UsageError on an unknown name.
void select_variants(RunConfig& cfg, const std::string& comma_list, const Study& study);

// Sets `axis` to `value` in every point (the command line's --gpus N), dropping the points that
// become repeats. Throws UsageError, naming `option`, where the study has no such axis or a point
// is then refused.
void set_axis(RunConfig& cfg, const std::string& option, const std::string& axis, const Value& value, const Study& study);


}  // namespace harness
