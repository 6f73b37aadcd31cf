// bench export --nvbench: committed results of several studies go out in NVBench's JSON layout and
// come back through our reader of that layout with the same records (identity, outcome, times).
// The fields NVBench's own tools read are checked to be there. Also: the CLI's errors.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>

#include "apps/harness/nvbench_export.hpp"
#include "check.hpp"

using harness::Record;
using nlohmann::json;

namespace {

bool close(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(a)); }

void round_trip(const std::string& path) {
  const json doc = harness::load_results_document(path);
  const json nv = harness::to_nvbench(doc);
  // What nvbench_compare.py and NVBench's JSON reader look up.
  CHECK(nv.at("devices").is_array() && !nv["devices"].empty());
  CHECK(nv.at("meta").at("version").at("json").at("major") == 1);
  for (const json& b : nv.at("benchmarks")) {
    CHECK(b.at("name").is_string() && b.at("axes").is_array() && b.at("states").is_array());
    for (const json& s : b["states"]) {
      CHECK(s.at("name").is_string() && s.at("axis_values").is_array() && s.at("summaries").is_array());
      if (!s.at("is_skipped").get<bool>()) {
        bool mean = false, noise = false;
        for (const json& sum : s["summaries"]) {
          const std::string tag = sum.at("tag");
          mean = mean || tag.find("/mean") != std::string::npos;
          noise = noise || tag.find("/stdev/relative") != std::string::npos;
          CHECK(sum.at("data").at(0).at("value").is_string());  // NVBench writes values as strings
        }
        CHECK_MSG(mean && noise, path << ": " << s["name"] << " lacks a mean or a noise summary");
      }
    }
  }
  const std::vector<Record> back = harness::records_from_nvbench(json::parse(nv.dump()));
  const json& recs = doc.at("records");
  CHECK_MSG(back.size() == recs.size(), path << ": " << back.size() << " records back of " << recs.size());
  // Our export groups records by variant: match them by identity.
  std::map<std::string, const Record*> by_key;
  for (const auto& r : back) by_key[r.variant + " " + harness::format_params(r.params)] = &r;
  int compared = 0;
  for (size_t i = 0; i < recs.size(); ++i) {
    const Record want = harness::record_from_json(recs[i]);
    const auto it = by_key.find(want.variant + " " + harness::format_params(want.params));
    CHECK_MSG(it != by_key.end(), path << ": record " << i << " (" << want.variant << ") did not come back");
    if (it == by_key.end()) continue;
    const Record& got = *it->second;
    CHECK(got.study == want.study && got.kind == want.kind && got.status == want.status && got.validation == want.validation &&
          got.note == want.note && got.params == want.params);
    CHECK(bool(got.time) == bool(want.time && want.status == "ok"));
    if (got.time && want.time) {
      CHECK_MSG(close(got.time->median, want.time->median), path << ": median " << got.time->median << " vs " << want.time->median);
      CHECK(close(got.time->min, want.time->min) && close(got.time->max, want.time->max));
      CHECK_MSG(close(got.time->stddev, want.time->stddev), path << ": stddev " << got.time->stddev << " vs " << want.time->stddev);
      CHECK(close(got.gbps, want.gbps) && close(got.fraction_of_copy, want.fraction_of_copy));
    }
    ++compared;
  }
  std::printf("%s: %d records through NVBench JSON and back\n", path.c_str(), compared);
}

}  // namespace

int main(int argc, char** argv) {
  const std::string src = argc > 1 ? argv[1] : ".";
  for (const char* f : {"results/h100/sortedsearch/default.json", "results/h100/reliability/odd_sizes_multireduce.json",
                        "results/h100/reliability/multireduce_restart.json", "results/h100/multiscan/targets.json",
                        "results/h100/histogram/default.json", "results/dev-vm/cpu.json", "results/dev-vm/cachesim.json"})
    round_trip(src + "/" + f);
  // The command line: a missing input and a malformed one are one line each and exit 2.
  std::ostringstream err;
  CHECK(harness::export_nvbench(src + "/no/such.json", "/tmp/never.json", err) == 2);
  CHECK(err.str().find("cannot open") != std::string::npos && err.str().find('\n') == err.str().size() - 1);
  CHECK(!std::filesystem::exists("/tmp/never.json"));
  return test_summary("test_nvbench_export");
}
