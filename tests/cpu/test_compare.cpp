// Tests of `bench compare`: crafted result files in a private temp directory, checked for the
// verdict of each row, the summary and the exit code.
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "check.hpp"
#include "compare.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

// A fresh directory per run so that concurrent test runs (ctest -j) never see each other's files.
class TempDir {
 public:
  TempDir() {
    std::random_device rd;
    const auto stamp = std::chrono::steady_clock::now().time_since_epoch().count();
    for (int attempt = 0; attempt < 100; ++attempt) {
      const fs::path p = fs::temp_directory_path() /
                         ("test_compare_" + std::to_string(stamp) + "_" + std::to_string(rd()));
      if (fs::create_directory(p)) {
        path_ = p;
        return;
      }
    }
    throw std::runtime_error("cannot create a temporary directory");
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  std::string write(const std::string& name, const std::string& content) const {
    const fs::path p = path_ / name;
    std::ofstream(p, std::ios::binary) << content;
    return p.string();
  }
  std::string file(const std::string& name) const { return (path_ / name).string(); }

 private:
  fs::path path_;
};

json params(std::int64_t a_size, const std::string& keys = "distinct") {
  return {{"a_size", a_size}, {"b_size", a_size}, {"type", "int32"}, {"keys", keys}};
}

json record(const std::string& variant, const json& p, double median, double stddev,
            const std::string& validation = "pass", const std::string& status = "ok") {
  json r = {{"study", "sortedsearch"}, {"variant", variant}, {"kind", "ours"}, {"params", p},
            {"status", status},        {"ns_per_input", 0.0},  {"GBps", 0.0},  {"fraction_of_copy_ceiling", 0.0},
            {"validation", validation}, {"note", ""}};
  if (status == "skipped") {
    r["time_ms"] = nullptr;
  } else {
    r["time_ms"] = {{"median", median}, {"min", median}, {"max", median},
                    {"stddev", stddev}, {"count", 20},   {"samples", json::array({median})}};
  }
  return r;
}

std::string document(const std::vector<json>& records, const std::string& study = "sortedsearch",
                     const json& schema_version = 1) {
  json doc = {{"schema_version", schema_version},
              {"meta", {{"study", study}, {"git_commit", "abc"}, {"date", "2024-01-01"},
                        {"gpu", {{"name", "NVIDIA H100 80GB HBM3"}}}}},
              {"ceilings", {{"read_GBps", 3100.0}, {"copy_GBps", 3000.0}}},
              {"records", records}};
  return doc.dump(2);
}

// Three distinct points of one BASE run; tests derive NEW from it by changing one record.
std::vector<json> base_records() {
  return {record("alpha", params(1 << 26), 1.0, 0.001), record("beta", params(1 << 26), 2.0, 0.002),
          record("gamma", params(1000, "dups"), 0.5, 0.0005)};
}

struct Outcome {
  int code;
  std::string out;
  std::string err;
};

Outcome run(const std::string& base, const std::string& neu, double threshold = 0.05, bool gate_cpu = false) {
  std::ostringstream out, err;
  const int code = harness::compare_results(base, neu, threshold, out, err, gate_cpu);
  return {code, out.str(), err.str()};
}

// The table row whose first column is `variant` (rows are unique per variant in these tests).
std::string row(const std::string& out, const std::string& variant) {
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, variant.size() + 1, variant + " ") == 0) return line;
  }
  return "";
}

bool has(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

// Word match within a row so that "new" does not match inside another token.
bool verdict_is(const std::string& out, const std::string& variant, const std::string& verdict) {
  const std::string r = row(out, variant);
  std::istringstream in(r);
  std::string tok;
  while (in >> tok) {
    if (tok == verdict) return true;
  }
  return false;
}

bool single_error_line(const Outcome& o) {
  return o.err.rfind("error: ", 0) == 0 && o.err.find('\n') == o.err.size() - 1 && o.out.empty();
}

void test_same_file(const TempDir& d) {
  const std::string base = d.write("same.json", document(base_records()));
  const Outcome o = run(base, base);
  CHECK_MSG(o.code == 0, o.err);
  CHECK(verdict_is(o.out, "alpha", "same"));
  CHECK(verdict_is(o.out, "beta", "same"));
  CHECK(verdict_is(o.out, "gamma", "same"));
  CHECK_MSG(has(o.out, "compare: 3 matched, 0 faster, 3 same, 0 slower, 0 invalid, 0 missing, 0 new, 0 skipped; "
                       "threshold 5.0%\n"),
            o.out);
  CHECK(has(o.out, "verdict: no slow-down\n"));
  CHECK(o.err.empty());
  // Sizes that are powers of two are shown as such; other sizes are left alone.
  CHECK_MSG(has(row(o.out, "alpha"), "a_size=2^26 b_size=2^26 keys=distinct type=int32"), o.out);
  CHECK_MSG(has(row(o.out, "gamma"), "a_size=1000 "), o.out);
}

void test_slower(const TempDir& d) {
  auto recs = base_records();
  recs[1] = record("beta", params(1 << 26), 2.4, 0.002);
  const Outcome o = run(d.write("slow_base.json", document(base_records())), d.write("slow_new.json", document(recs)));
  CHECK_MSG(o.code == 1, o.out << o.err);
  CHECK(verdict_is(o.out, "beta", "slower"));
  CHECK(has(row(o.out, "beta"), "1.200"));
  CHECK(verdict_is(o.out, "alpha", "same"));
  CHECK(has(o.out, "0 faster, 2 same, 1 slower"));
  CHECK_MSG(has(o.out, "verdict: SLOW-DOWN (1 record)"), o.out);
}

void test_cpu_not_gated(const TempDir& d) {
  // A CPU baseline 50% slower is reported but fails the gate only when asked to.
  auto base = base_records(), slow = base_records();
  base.push_back(record("cpu_ref", params(1 << 26), 100.0, 0.5));
  slow.push_back(record("cpu_ref", params(1 << 26), 150.0, 0.5));
  base.back()["kind"] = slow.back()["kind"] = "cpu";
  const std::string b = d.write("cpu_base.json", document(base)), n = d.write("cpu_new.json", document(slow));
  Outcome o = run(b, n);
  CHECK_MSG(o.code == 0, o.out << o.err);
  CHECK(verdict_is(o.out, "cpu_ref", "slower"));
  CHECK(has(row(o.out, "cpu_ref"), "not gated"));
  CHECK_MSG(has(o.out, "verdict: no slow-down (CPU baselines slower, not gated)"), o.out);
  o = run(b, n, 0.05, true);
  CHECK_MSG(o.code == 1, o.out << o.err);
  CHECK(has(o.out, "verdict: SLOW-DOWN (1 record)"));
}

void test_faster(const TempDir& d) {
  auto recs = base_records();
  recs[0] = record("alpha", params(1 << 26), 0.8, 0.001);
  const Outcome o = run(d.write("fast_base.json", document(base_records())), d.write("fast_new.json", document(recs)));
  CHECK_MSG(o.code == 0, o.out << o.err);
  CHECK(verdict_is(o.out, "alpha", "faster"));
  CHECK(has(row(o.out, "alpha"), "0.800"));
  CHECK(has(o.out, "1 faster, 2 same, 0 slower"));
  CHECK(has(o.out, "verdict: no slow-down"));
}

void test_threshold_respected(const TempDir& d) {
  auto recs = base_records();
  recs[0] = record("alpha", params(1 << 26), 1.03, 0.001);
  const std::string base = d.write("thr_base.json", document(base_records()));
  const std::string neu = d.write("thr_new.json", document(recs));
  const Outcome loose = run(base, neu, 0.05);
  CHECK_MSG(loose.code == 0, loose.out);
  CHECK(verdict_is(loose.out, "alpha", "same"));
  // The same 3% is a slow-down once the threshold is tighter than it.
  const Outcome tight = run(base, neu, 0.01);
  CHECK_MSG(tight.code == 1, tight.out);
  CHECK(verdict_is(tight.out, "alpha", "slower"));
  CHECK(has(tight.out, "threshold 1.0%"));
}

void test_noise_allowance(const TempDir& d) {
  auto base = base_records();
  auto recs = base_records();
  // noise = 2*sqrt(0.05^2 + 0.05^2)/1.0 ~ 14% > 8% slower: within the runs' own scatter.
  base[0] = record("alpha", params(1 << 26), 1.0, 0.05);
  recs[0] = record("alpha", params(1 << 26), 1.08, 0.05);
  const Outcome o = run(d.write("noise_base.json", document(base)), d.write("noise_new.json", document(recs)));
  CHECK_MSG(o.code == 0, o.out);
  CHECK(verdict_is(o.out, "alpha", "same"));
  CHECK_MSG(has(row(o.out, "alpha"), "noise"), o.out);
}

void test_missing_and_new(const TempDir& d) {
  auto recs = base_records();
  recs.erase(recs.begin() + 2);                                    // gamma only in BASE
  recs.push_back(record("delta", params(1 << 20), 0.1, 0.0001));  // delta only in NEW
  const Outcome o = run(d.write("mn_base.json", document(base_records())), d.write("mn_new.json", document(recs)));
  CHECK_MSG(o.code == 0, o.out << o.err);
  CHECK(verdict_is(o.out, "gamma", "missing"));
  CHECK(verdict_is(o.out, "delta", "new"));
  CHECK_MSG(has(o.out, "compare: 2 matched, 0 faster, 2 same, 0 slower, 0 invalid, 1 missing, 1 new, 0 skipped;"),
            o.out);
  CHECK(has(o.out, "verdict: no slow-down"));
  // Rows are sorted by variant whatever the file order.
  CHECK(o.out.find("\ndelta ") < o.out.find("\ngamma "));
}

void test_param_key_order(const TempDir& d) {
  // Identity is the canonical params object, so the writer's key order must not matter.
  const std::string head =
      R"({"schema_version": 1, "meta": {"study": "s"}, "records": [{"study": "s", "variant": "v", "kind": "ours", )";
  const std::string tail =
      R"(, "status": "ok", "validation": "pass", "time_ms": {"median": 1.0, "stddev": 0.0}}]})";
  const std::string base = d.write("order_base.json", head + R"("params": {"n": 4096, "op": "plus"})" + tail);
  const std::string neu = d.write("order_new.json", head + R"("params": {"op": "plus", "n": 4096})" + tail);
  const Outcome o = run(base, neu);
  CHECK_MSG(o.code == 0, o.err);
  CHECK(has(o.out, "compare: 1 matched,"));
  CHECK(has(row(o.out, "v"), "n=2^12 op=plus"));
}

// A study that gained an axis: NEW's records carry a parameter BASE's do not; they still match, and
// two NEW records differing only in it are refused.
void test_new_axis(const TempDir& d) {
  json with = params(1000);
  with["column"] = "prices";
  const std::string base = d.write("axis_base.json", document({record("fused", params(1000), 1.0, 0.01)}));
  const std::string neu = d.write("axis_new.json", document({record("fused", with, 1.0, 0.01)}));
  std::ostringstream out, err;
  CHECK(harness::compare_results(base, neu, 0.05, out, err, false) == 0);
  CHECK_MSG(out.str().find("matched without column") != std::string::npos, out.str());
  CHECK_MSG(out.str().find("1 matched") != std::string::npos, out.str());
  json other = with;
  other["column"] = "uniform";
  const std::string two = d.write("axis_two.json", document({record("fused", with, 1.0, 0.01), record("fused", other, 1.0, 0.01)}));
  std::ostringstream out2, err2;
  CHECK(harness::compare_results(base, two, 0.05, out2, err2, false) == 2);
  CHECK_MSG(err2.str().find("differ only in column") != std::string::npos, err2.str());
}

void test_invalid(const TempDir& d) {
  const std::string base = d.write("inv_base.json", document(base_records()));
  auto recs = base_records();
  recs[2] = record("gamma", params(1000, "dups"), 0.5, 0.0005, "fail");
  const Outcome o = run(base, d.write("inv_new.json", document(recs)));
  CHECK_MSG(o.code == 1, o.out);
  CHECK(verdict_is(o.out, "gamma", "INVALID"));
  CHECK(has(o.out, "0 slower, 1 invalid"));
  CHECK_MSG(has(o.out, "verdict: INVALID (1 record)"), o.out);

  // A run that failed outright counts the same as a wrong answer.
  recs = base_records();
  recs[1] = record("beta", params(1 << 26), 0.0, 0.0, "skipped", "failed");
  recs[1]["time_ms"] = nullptr;
  const Outcome f = run(base, d.write("inv_failed.json", document(recs)));
  CHECK_MSG(f.code == 1, f.out << f.err);
  CHECK(verdict_is(f.out, "beta", "INVALID"));

  // Failing in BASE as well is not a regression of NEW.
  auto both = base_records();
  both[2] = record("gamma", params(1000, "dups"), 0.5, 0.0005, "fail");
  const std::string both_path = d.write("inv_both.json", document(both));
  const Outcome b = run(both_path, both_path);
  CHECK_MSG(b.code == 0, b.out);
  CHECK(verdict_is(b.out, "gamma", "INVALID"));
  CHECK(has(b.out, "verdict: no slow-down"));

  // A slow-down and an invalid record are both reported.
  recs = base_records();
  recs[0] = record("alpha", params(1 << 26), 1.5, 0.001);
  recs[2] = record("gamma", params(1000, "dups"), 0.5, 0.0005, "fail");
  const Outcome s = run(base, d.write("inv_slow.json", document(recs)));
  CHECK(s.code == 1);
  CHECK_MSG(has(s.out, "verdict: SLOW-DOWN (1 record); INVALID (1 record)"), s.out);
}

void test_skipped(const TempDir& d) {
  auto recs = base_records();
  recs[1] = record("beta", params(1 << 26), 0.0, 0.0, "skipped", "skipped");
  // Much slower but skipped in BASE: no verdict is possible, so it cannot fail the gate.
  auto base = base_records();
  base[0] = record("alpha", params(1 << 26), 0.0, 0.0, "skipped", "skipped");
  recs[0] = record("alpha", params(1 << 26), 9.0, 0.001);
  const Outcome o = run(d.write("skip_base.json", document(base)), d.write("skip_new.json", document(recs)));
  CHECK_MSG(o.code == 0, o.out << o.err);
  CHECK(verdict_is(o.out, "alpha", "skipped"));
  CHECK(verdict_is(o.out, "beta", "skipped"));
  CHECK(has(o.out, "compare: 3 matched, 0 faster, 1 same, 0 slower, 0 invalid, 0 missing, 0 new, 2 skipped;"));
}

void test_errors(const TempDir& d) {
  const std::string good = d.write("err_good.json", document(base_records()));

  const std::string bad_json = d.write("err_bad.json", "{\"schema_version\": 1, \"records\": [\n");
  const Outcome a = run(good, bad_json);
  CHECK(a.code == 2);
  CHECK_MSG(single_error_line(a), a.err);
  CHECK(has(a.err, bad_json));

  const std::string v2 = d.write("err_v2.json", document(base_records(), "sortedsearch", 2));
  const Outcome b = run(v2, good);
  CHECK(b.code == 2);
  CHECK_MSG(single_error_line(b), b.err);
  CHECK(has(b.err, v2) && has(b.err, "schema_version"));

  const std::string other = d.write("err_study.json", document(base_records(), "segreduce"));
  const Outcome c = run(good, other);
  CHECK(c.code == 2);
  CHECK_MSG(single_error_line(c), c.err);
  CHECK(has(c.err, "segreduce") && has(c.err, "sortedsearch"));

  const Outcome e = run(d.file("does_not_exist.json"), good);
  CHECK(e.code == 2);
  CHECK_MSG(single_error_line(e), e.err);
  CHECK(has(e.err, "does_not_exist.json"));

  json no_records = json::parse(document(base_records()));
  no_records.erase("records");
  const Outcome f = run(good, d.write("err_norec.json", no_records.dump()));
  CHECK(f.code == 2);
  CHECK_MSG(single_error_line(f) && has(f.err, "records"), f.err);

  // A wrong type deep in a record names the record and the key.
  auto recs = base_records();
  recs[1]["time_ms"]["median"] = "fast";
  const Outcome g = run(good, d.write("err_type.json", document(recs)));
  CHECK(g.code == 2);
  CHECK_MSG(single_error_line(g) && has(g.err, "records[1]") && has(g.err, "time_ms.median"), g.err);

  recs = base_records();
  recs[2]["status"] = "exploded";
  const Outcome h = run(good, d.write("err_status.json", document(recs)));
  CHECK(h.code == 2);
  CHECK_MSG(single_error_line(h) && has(h.err, "records[2]") && has(h.err, "status"), h.err);

  const Outcome i = run(good, d.write("err_nomatch.json", document({record("omega", params(64), 1.0, 0.0)})));
  CHECK(i.code == 2);
  CHECK_MSG(single_error_line(i) && has(i.err, "no record of NEW matches BASE"), i.err);

  recs = base_records();
  recs.push_back(recs[0]);
  const Outcome j = run(good, d.write("err_dup.json", document(recs)));
  CHECK(j.code == 2);
  CHECK_MSG(single_error_line(j) && has(j.err, "duplicates"), j.err);

  const Outcome k = run(good, d.write("err_array.json", "[1, 2, 3]"));
  CHECK(k.code == 2);
  CHECK_MSG(single_error_line(k), k.err);
}

bool throws_invalid(const std::string& text) {
  try {
    harness::parse_threshold(text);
  } catch (const std::invalid_argument& e) {
    const std::string msg = e.what();
    return has(msg, "--threshold") && !has(msg, "\n");
  }
  return false;
}

void test_parse_threshold() {
  CHECK(harness::parse_threshold("5%") == 0.05);
  CHECK(harness::parse_threshold("5 %") == 0.05);
  CHECK(harness::parse_threshold("0.05") == 0.05);
  CHECK(harness::parse_threshold("0.1") == 0.1);
  CHECK(harness::parse_threshold("12.5%") == 0.125);
  CHECK(harness::parse_threshold("0%") == 0.0);
  CHECK(throws_invalid("abc"));
  CHECK(throws_invalid("-1%"));
  CHECK(throws_invalid("-0.1"));
  CHECK(throws_invalid("150%"));
  CHECK(throws_invalid("100%"));
  CHECK(throws_invalid("5"));  // a bare number is a fraction: 500%
  CHECK(throws_invalid(""));
  CHECK(throws_invalid("%"));
  CHECK(throws_invalid("5%%"));
  CHECK(throws_invalid("1.2.3%"));
  CHECK(throws_invalid("nan"));
  CHECK(throws_invalid("1e-2"));
}

// Files flushed L2 differently (one written before the files said, a cold default): compared, with
// a note saying so; files that flushed alike, or a hot one, get none.
void test_l2_flush_note(const TempDir& d) {
  const std::vector<json> recs = {record("fused", params(1000), 1.0, 0.01)};
  json read_doc = json::parse(document(recs));
  read_doc["meta"]["cache"] = "cold";
  read_doc["meta"]["l2_flush"] = "read";
  json hot_doc = json::parse(document(recs));
  hot_doc["meta"]["cache"] = "hot";
  const std::string before = d.write("flush_before.json", document(recs));  // no field: flushed by writing
  const std::string read = d.write("flush_read.json", read_doc.dump(2));
  const std::string hot = d.write("flush_hot.json", hot_doc.dump(2));
  const Outcome differ = run(before, read);
  CHECK(differ.code == 0);
  CHECK_MSG(has(differ.out, "BASE flushed L2 by write and NEW by read"), differ.out);
  const Outcome alike = run(read, read);
  CHECK_MSG(!has(alike.out, "flushed L2"), alike.out);
  const Outcome with_hot = run(before, hot);
  CHECK_MSG(!has(with_hot.out, "flushed L2"), with_hot.out);
}

}  // namespace

int main() {
  test_parse_threshold();
  {
    const TempDir dir;
    test_same_file(dir);
    test_slower(dir);
    test_cpu_not_gated(dir);
    test_faster(dir);
    test_threshold_respected(dir);
    test_noise_allowance(dir);
    test_missing_and_new(dir);
    test_param_key_order(dir);
    test_new_axis(dir);
    test_l2_flush_note(dir);
    test_invalid(dir);
    test_skipped(dir);
    test_errors(dir);
  }
  return test_summary("compare");
}
