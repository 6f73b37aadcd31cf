// Records of a run and the files they go to (the results contract, docs/results-format.md).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "stats.hpp"
#include "study.hpp"

namespace harness {

constexpr int kSchemaVersion = 1;

struct Record {
  std::string study, variant;
  VariantKind kind = VariantKind::Ours;
  Params params;
  std::string status = "ok";  // ok | failed | skipped
  std::optional<TimeStats> time;
  double ns_per_input = 0, gbps = 0, fraction_of_copy = 0;
  std::string validation = "skipped";  // pass | fail | skipped
  std::string note;
  Params metrics;  // Point::metrics(): extra measurements, absent from the file when empty
};

nlohmann::json record_to_json(const Record& r);
// The one reader of records (bench compare, tests, users' tools). Throws std::runtime_error with
// one line naming `where` (e.g. "records[3]") and the key at fault.
Record record_from_json(const nlohmann::json& j, const std::string& where = "record");
nlohmann::json params_to_json(const Params& p);
Params params_from_json(const nlohmann::json& j);
// "a_size=2^26 keys=distinct type=int32": keys in order, powers of two >= 1024 as 2^k.
std::string format_params(const Params& p);

// Scaling over GPUs: each timed record whose params have gpus = N > 1 gets metrics
// speedup_vs_1_gpu (the median time of the same variant at the same point with gpus = 1, in the
// same run, over its own) and scaling_efficiency (that speedup / N). Records without such a
// baseline are left as they are.
void add_scaling(std::vector<Record>& records);

// One CSV row per record, the same fields flattened (params as columns named param.<key>).
std::string records_to_csv(const std::vector<Record>& records);

// Reads a results file and checks its frame: valid JSON, the schema_version this build writes, an
// object 'meta' with a string 'study', an array 'records' (records themselves are read by
// record_from_json). Throws std::runtime_error with one line, "<path>: <problem>".
nlohmann::json load_results_document(const std::string& path);

// Writes `path` through a temporary file and a rename, so that a reader never sees half a file.
void write_atomically(const std::string& path, const std::string& content);

}  // namespace harness
