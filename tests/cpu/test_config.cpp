// Config parsing: sizes, sweeps and explicit points, defaults, and one clear error per bad input.
#include <algorithm>
#include <string>

#include "apps/harness/config.hpp"
#include "apps/harness/errors.hpp"
#include "check.hpp"

using harness::AxisKind;
using harness::Params;

namespace {

// A study with one of each axis kind and no algorithm: the harness's view of any study.
class FakeStudy : public harness::Study {
 public:
  std::string name() const override { return "fake"; }
  std::string description() const override { return "test study"; }
  std::vector<harness::AxisSpec> axes() const override {
    return {{"n", AxisKind::Size, "size", {std::int64_t(1) << 10}, {}, 1, std::int64_t(1) << 40},
            {"op", AxisKind::Choice, "operator", {std::string("add")}, {"add", "min", "max"}, 0, 0},
            {"skew", AxisKind::Real, "zipf exponent", {1.0}, {}, 0, 0},
            {"bits", AxisKind::Int, "sort bits", {std::int64_t(4)}, {}, 0, 32}};
  }
  std::vector<harness::VariantSpec> variants() const override {
    return {{"alpha", harness::VariantKind::Ours, "a"}, {"beta", harness::VariantKind::Peer, "b"}, {"gamma", harness::VariantKind::Cpu, "c"}};
  }
  std::string default_config() const override { return R"({"study": "fake"})"; }
  std::string check_params(const Params& p) const override {
    return harness::as_str(p, "op") == "max" && harness::as_int(p, "bits") > 16 ? "bits > 16 with max" : "";
  }
  std::unique_ptr<harness::Point> make_point(const Params&, std::uint64_t, bool) const override { return nullptr; }
};

const FakeStudy study;

std::string error_of(const std::string& text) {
  try {
    harness::load_config(text, "test.json", study);
  } catch (const harness::UsageError& e) {
    return e.what();
  }
  return "";
}

bool has(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

int main() {
  // Defaults: every variant, one point of the axes' defaults, cold cache, validation on.
  auto c = harness::load_config(R"({"study": "fake"})", "t", study);
  CHECK(c.variants.size() == 3 && c.points.size() == 1 && c.cold && c.validate);
  CHECK(harness::as_int(c.points[0], "n") == 1024 && harness::as_str(c.points[0], "op") == "add");

  // Sizes: integers, 2^k, 2^k+c, 2^k-c.
  CHECK(harness::parse_size(nlohmann::json(12345), "n") == 12345);
  CHECK(harness::parse_size(nlohmann::json("2^26"), "n") == (1ll << 26));
  CHECK(harness::parse_size(nlohmann::json("2^10+3"), "n") == 1027);
  CHECK(harness::parse_size(nlohmann::json("2^10 - 1"), "n") == 1023);
  CHECK(harness::parse_size(nlohmann::json("4096"), "n") == 4096);

  // Cartesian product in a stable order (first axis slowest), several sweeps, explicit points.
  c = harness::load_config(R"({"study": "fake", "axes": {"n": ["2^10", "2^12"], "op": ["add", "min", "max"]}})", "t", study);
  CHECK(c.points.size() == 6);
  CHECK(harness::as_int(c.points[0], "n") == 1024 && harness::as_str(c.points[1], "op") == "min");
  CHECK(harness::as_int(c.points[3], "n") == 4096 && harness::as_str(c.points[3], "op") == "add");
  c = harness::load_config(R"({"study": "fake", "axes": [{"n": 5}, {"n": [6, 7], "skew": 0.5}],
                               "points": [{"n": 8, "op": "max"}]})", "t", study);
  CHECK(c.points.size() == 4);
  CHECK(harness::as_int(c.points[3], "n") == 8 && harness::as_str(c.points[3], "op") == "max");
  CHECK(harness::as_real(c.points[1], "skew") == 0.5);

  // Variants, repetitions, cache, overrides.
  c = harness::load_config(R"({"study": "fake", "variants": ["beta"], "repetitions": {"warmup": 0, "min": 2, "max": 9, "budget_ms": 5, "target_rsd": 0.1}, "cache": "hot", "validate": false})", "t", study);
  CHECK(c.variants.size() == 1 && c.variants[0] == "beta" && c.reps.max == 9 && !c.cold && !c.validate);
  harness::select_variants(c, "gamma,alpha", study);
  CHECK(c.variants.size() == 2 && c.variants[0] == "gamma");
  harness::make_quick(c, study);
  CHECK(c.reps.max <= 5);
  // --quick cuts sizes to 2^20: larger points divided by one power of two; points that shrink to
  // the same one run once; small points stay.
  c = harness::load_config(R"({"study": "fake", "axes": {"n": ["2^10", "2^20+1", "2^26", "2^27"], "op": ["add", "min"]}})", "t", study);
  harness::make_quick(c, study);
  std::vector<std::int64_t> ns;
  for (const auto& p : c.points) ns.push_back(harness::as_int(p, "n"));
  CHECK_MSG(c.points.size() == 6, c.points.size());  // 2^10, 2^19 (from 2^20+1), 2^20 (from 2^26 and 2^27), per op
  for (auto n : ns) CHECK_MSG(n <= (std::int64_t(1) << 20), n);
  CHECK(std::count(ns.begin(), ns.end(), std::int64_t(1) << 10) == 2);
  CHECK(c.as_run["quick"]["size_limit"] == (1 << 20));

  // Every error: one line, naming the key and the reason.
  struct Case { const char* text; const char* expect; };
  const Case cases[] = {
      {R"({"study": "fake",)", "not valid JSON"},
      {R"([1, 2])", "must hold a JSON object"},
      {R"({"sutdy": "fake"})", "did you mean 'study'"},
      {R"({"study": "fake", "seed": -1})", "'seed'"},
      {R"({"study": "fake", "seed": 1.5})", "expected an integer"},
      {R"({"study": "other"})", "not 'fake'"},
      {R"({"study": "fake", "variants": ["alpah"]})", "did you mean 'alpha'"},
      {R"({"study": "fake", "variants": []})", "empty list"},
      {R"({"study": "fake", "variants": 3})", "expected a list"},
      {R"({"study": "fake", "axes": {"nn": 3}})", "did you mean 'n'"},
      {R"({"study": "fake", "axes": {"n": 0}})", "out of range"},
      {R"({"study": "fake", "axes": {"n": "2^41"}})", "out of range"},
      {R"({"study": "fake", "axes": {"n": "2^99"}})", "too large"},
      {R"({"study": "fake", "axes": {"n": "big"}})", "cannot read 'big'"},
      {R"({"study": "fake", "axes": {"n": []}})", "empty list"},
      {R"({"study": "fake", "axes": {"op": "mul"}})", "unknown value 'mul'"},
      {R"({"study": "fake", "axes": {"op": 3}})", "expected a string"},
      {R"({"study": "fake", "axes": {"skew": "x"}})", "expected a number"},
      {R"({"study": "fake", "axes": {"bits": 33}})", "out of range"},
      {R"({"study": "fake", "points": [{"n": [1, 2]}]})", "one value per axis"},
      {R"({"study": "fake", "points": {"n": 1}})", "expected a list"},
      {R"({"study": "fake", "points": [{"op": "max", "bits": 20}]})", "bits > 16 with max"},
      {R"({"study": "fake", "repetitions": {"min": 5, "max": 2}})", "smaller than"},
      {R"({"study": "fake", "repetitions": {"budget": 5}})", "did you mean 'budget_ms'"},
      {R"({"study": "fake", "repetitions": {"target_rsd": 2}})", "out of range"},
      {R"({"study": "fake", "cache": "warm"})", "'cache'"},
      {R"({"study": "fake", "validate": "yes"})", "expected true or false"},
  };
  for (const auto& k : cases) {
    std::string e = error_of(k.text);
    CHECK_MSG(has(e, k.expect), "config " << k.text << " gave '" << e << "', expected '" << k.expect << "'");
    CHECK_MSG(!has(e, "\n"), "error spans lines: " << e);
  }
  bool threw = false;
  try {
    harness::select_variants(c, "alpha,zeta", study);
  } catch (const harness::UsageError& e) {
    threw = has(e.what(), "zeta");
  }
  CHECK(threw);
  CHECK(harness::nearest("mergepath_lowr", {"mergepath_lower", "mergepath_upper"}) == "mergepath_lower");
  CHECK(harness::nearest("zzzzzz", {"alpha", "beta"}).empty());
  return test_summary("config");
}
