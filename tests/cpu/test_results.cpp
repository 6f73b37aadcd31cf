// Result records: JSON and CSV carry the same fields; JSON round-trips; files are written whole.
#include <filesystem>
#include <fstream>
#include <limits>
#include <sstream>
#include <unistd.h>

#include "apps/harness/results.hpp"
#include "check.hpp"

namespace fs = std::filesystem;

int main() {
  harness::Record r;
  r.study = "sortedsearch";
  r.variant = "mergepath_lower";
  r.kind = harness::VariantKind::Ours;
  r.params = {{"a_size", std::int64_t(1) << 26}, {"type", std::string("int32")}, {"skew", 1.25}};
  r.time = harness::TimeStats::of({0.5, 0.3, 0.4, 0.45, 0.35});
  r.ns_per_input = 0.0031;
  r.gbps = 2500.5;
  r.fraction_of_copy = 0.83;
  r.validation = "pass";
  r.note = "has, a comma and \"quotes\"";

  CHECK(r.time->median == 0.4 && r.time->min == 0.3 && r.time->max == 0.5);
  CHECK(r.time->stddev > 0.079 && r.time->stddev < 0.080);
  CHECK(harness::TimeStats::of({1.0, 3.0}).median == 2.0);

  auto j = harness::record_to_json(r);
  harness::Record back = harness::record_from_json(nlohmann::json::parse(j.dump()));
  CHECK(back.variant == r.variant && back.kind == r.kind && back.params == r.params);
  CHECK(back.time && back.time->samples == r.time->samples && back.time->median == r.time->median);
  CHECK(back.gbps == r.gbps && back.fraction_of_copy == r.fraction_of_copy && back.note == r.note);
  CHECK(j["time_ms"]["count"] == 5);
  CHECK(!j.contains("metrics"));  // absent when a study reports none

  // Metrics round-trip, and a non-object is refused by name.
  harness::Record mr = r;
  mr.metrics = {{"huge_page_fraction", 0.5}, {"dtlb_misses_per_input", std::string("unavailable")}};
  auto jm = harness::record_to_json(mr);
  CHECK(harness::record_from_json(nlohmann::json::parse(jm.dump())).metrics == mr.metrics);
  bool refused = false;
  try {
    jm["metrics"] = 3;
    harness::record_from_json(jm);
  } catch (const std::exception& e) {
    refused = std::string(e.what()).find("metrics") != std::string::npos;
  }
  CHECK(refused);
  std::string csv_m = harness::records_to_csv({mr});
  CHECK(csv_m.find(",metric.dtlb_misses_per_input,metric.huge_page_fraction\n") != std::string::npos);
  CHECK(csv_m.find(",unavailable,0.5\n") != std::string::npos);
  // A number that is not finite: null in the JSON, an empty field in the CSV (never "inf").
  harness::Record inf = mr;
  inf.metrics = {{"ratio", std::numeric_limits<double>::infinity()}};
  inf.gbps = std::numeric_limits<double>::infinity();
  CHECK(harness::record_to_json(inf)["metrics"]["ratio"].is_null() || harness::record_to_json(inf).dump().find("null") != std::string::npos);
  const std::string csv_inf = harness::records_to_csv({inf});
  CHECK_MSG(csv_inf.find("inf") == std::string::npos, csv_inf);
  CHECK(csv_inf.size() > 2 && csv_inf.substr(csv_inf.size() - 2) == ",\n");

  harness::Record s = r;
  s.variant = "thrust_merge";
  s.kind = harness::VariantKind::Peer;
  s.status = "skipped";
  s.time.reset();
  s.validation = "skipped";
  s.note = "out of memory";
  auto js = harness::record_to_json(s);
  CHECK(js["time_ms"].is_null() && js["GBps"].is_null());
  CHECK(!harness::record_from_json(js).time);

  bool threw = false;
  try {
    auto broken = j;
    broken.erase("variant");
    harness::record_from_json(broken);
  } catch (const std::exception& e) {
    threw = std::string(e.what()).find("variant") != std::string::npos;
  }
  CHECK(threw);

  // CSV: a header with param.<key> columns, one row per record, quoting where needed.
  std::string csv = harness::records_to_csv({r, s});
  std::istringstream in(csv);
  std::string header, row1, row2, extra;
  std::getline(in, header);
  std::getline(in, row1);
  std::getline(in, row2);
  CHECK(!std::getline(in, extra));
  CHECK(header.rfind("study,variant,kind,param.a_size,param.skew,param.type,status,median_ms", 0) == 0);
  CHECK(row1.rfind("sortedsearch,mergepath_lower,ours,67108864,1.25,int32,ok,0.4,", 0) == 0);
  CHECK(row1.find("\"has, a comma and \"\"quotes\"\"\"") != std::string::npos);
  CHECK(row2.find(",skipped,,,,,,,,,skipped,out of memory") != std::string::npos);

  // Atomic writes: the content arrives whole and no temporary file stays behind.
  fs::path dir = fs::temp_directory_path() / ("lp_results_test_" + std::to_string(::getpid()));
  harness::write_atomically((dir / "sub" / "x.json").string(), "{\"a\": 1}\n");
  std::ifstream f(dir / "sub" / "x.json");
  std::string content((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  CHECK(content == "{\"a\": 1}\n");
  int files = 0;
  for ([[maybe_unused]] auto& e : fs::directory_iterator(dir / "sub")) ++files;
  CHECK(files == 1);
  fs::remove_all(dir);
  return test_summary("results");
}
