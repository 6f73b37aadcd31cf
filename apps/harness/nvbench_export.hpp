// `bench export --nvbench`: our results in NVBench's JSON format (the file `nvbench --json` writes
// and nvbench_compare.py reads), so that users of NVBench's tools can read our runs. Host-only.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results.hpp"

namespace harness {

// One NVBench benchmark per (study, variant), named "<study>/<variant>"; one state per record,
// its parameters as axis values. Times go in seconds under NVBench's cold-measurement tags
// (nv/cold/time/gpu/*, or nv/cold/time/cpu/* for CPU baselines); our statistic is the median of
// the samples, which the summary's description says. Skipped and failed records become skipped
// states with their reason. `doc` is a results document (load_results_document).
nlohmann::json to_nvbench(const nlohmann::json& doc);

// Reads an NVBench JSON document back into records (our own reader of that format, for the round
// trip the tests make and for NVBench files users bring): benchmark names "<study>/<variant>",
// axis values typed by the axis type, the cold median (or mean, for NVBench's own files) as the
// median. Throws std::runtime_error naming what is malformed.
std::vector<Record> records_from_nvbench(const nlohmann::json& nv);

// `bench export --nvbench IN.json OUT.json`: 0 on success, 2 with one line on `err` otherwise.
int export_nvbench(const std::string& in_path, const std::string& out_path, std::ostream& err);

}  // namespace harness
