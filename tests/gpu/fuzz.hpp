// The GPU fuzz driver: random points of a study, drawn by the study's own generator
// around the sizes its variants cut inputs by, each run through every GPU variant with the study's
// own input generation, CPU reference and validation (check_variant). A fixed number of cases per
// run; the seed is printed, and LP_FUZZ_SEED=S (LP_FUZZ_CASE=k for one case) replays a failure.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <map>
#include <memory>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "apps/harness/study.hpp"
#include "check.hpp"
#include "check_variant.hpp"
#include "gpu_test.hpp"

class FuzzRng {
 public:
  explicit FuzzRng(std::uint64_t seed) : g_(seed) {}
  std::int64_t uniform(std::int64_t lo, std::int64_t hi) { return std::uniform_int_distribution<std::int64_t>(lo, hi)(g_); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(g_) < p; }
  // By value: callers pick from temporary lists.
  template <class T>
  T pick(const std::vector<T>& v) { return v[std::size_t(uniform(0, std::int64_t(v.size()) - 1))]; }
  // Log-uniform in [lo, hi]: small sizes as likely as large ones.
  std::int64_t log_uniform(std::int64_t lo, std::int64_t hi) {
    const double a = std::log2(double(lo) + 1), b = std::log2(double(hi) + 1);
    const double x = std::exp2(std::uniform_real_distribution<double>(a, b)(g_)) - 1;
    return std::clamp<std::int64_t>(std::int64_t(x), lo, hi);
  }
  // A size in [lo, hi]: half the time at, just below or just above one of `edges` (tiles, blocks,
  // chunks, waves and shared-memory capacities the variants cut by, where off-by-one errors live),
  // otherwise log-uniform; `lo` itself (0 or 1) one time in sixteen.
  std::int64_t size(std::int64_t lo, std::int64_t hi, const std::vector<std::int64_t>& edges) {
    if (chance(1.0 / 16)) return lo;
    if (chance(0.5)) {
      std::vector<std::int64_t> in;
      for (std::int64_t e : edges)
        if (e >= lo && e <= hi) in.push_back(e);
      if (!in.empty()) return std::clamp<std::int64_t>(pick(in) + uniform(-3, 3), lo, hi);
    }
    return log_uniform(lo, hi);
  }

 private:
  std::mt19937_64 g_;
};

// Draws one point: `p` arrives with every axis at its default; `quick` asks for sanitizer sizes.
using FuzzDraw = std::function<void(FuzzRng&, harness::Params& p, bool quick)>;

inline std::uint64_t fuzz_case_seed(std::uint64_t seed, int k) {
  std::uint64_t z = seed + 0x9e3779b97f4a7c15ull * std::uint64_t(k + 1);  // splitmix64
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

// Runs the cases; returns the test's exit code. Cases: LP_FUZZ_CASES, else `cases` (`quick_cases`
// with LP_GPU_TEST_QUICK, the sanitizer runs).
inline int run_fuzz(const std::string& test, harness::Study& study, const FuzzDraw& draw, int cases, int quick_cases) {
  const bool quick = quick_mode();
  const char* env_seed = std::getenv("LP_FUZZ_SEED");
  const char* env_cases = std::getenv("LP_FUZZ_CASES");
  const char* env_case = std::getenv("LP_FUZZ_CASE");
  const std::uint64_t seed = env_seed ? std::strtoull(env_seed, nullptr, 10) : std::random_device{}();
  const int n_cases = env_cases ? std::atoi(env_cases) : quick ? quick_cases : cases;
  const int only = env_case ? std::atoi(env_case) : -1;
  std::printf("%s: fuzz seed %llu, %d cases%s (replay: LP_FUZZ_SEED=%llu [LP_FUZZ_CASE=k])\n", test.c_str(), (unsigned long long)seed,
              n_cases, quick ? " (quick)" : "", (unsigned long long)seed);
  std::fflush(stdout);
  const std::set<std::string> names = gpu_variants(study);
  std::map<std::string, int> passed, not_run;
  int ran = 0;
  for (int k = 0; k < n_cases; ++k) {
    if (only >= 0 && k != only) continue;
    const std::uint64_t case_seed = fuzz_case_seed(seed, k);
    FuzzRng rng(case_seed);
    harness::Params p;
    for (int tries = 0; tries < 100; ++tries) {
      p = default_params(study);
      draw(rng, p, quick);
      if (study.check_params(p).empty()) break;
    }
    const std::string why = study.check_params(p);
    CHECK_MSG(why.empty(), "case " << k << ": no valid point drawn (" << why << ")");
    if (!why.empty()) continue;
    std::string text;
    for (const auto& [key, v] : p) text += " " + key + "=" + harness::to_string(v);
    std::printf("case %d:%s\n", k, text.c_str());
    std::fflush(stdout);
    std::unique_ptr<harness::Point> point;
    try {
      point = study.make_point(p, case_seed, true);
    } catch (const std::exception& e) {
      CHECK_MSG(false, test << " case " << k << ": making the point: " << e.what());
      continue;
    }
    ++ran;
    for (const auto& name : names) {
      if (std::getenv("LP_GPU_TEST_TRACE")) std::fprintf(stderr, "  %s\n", name.c_str());
      const std::string where = test + " case " + std::to_string(k) + " (LP_FUZZ_SEED=" + std::to_string(seed) +
                                " LP_FUZZ_CASE=" + std::to_string(k) + ") " + name + ":" + text;
      const VariantOutcome o = check_variant(*point, name, where);
      if (o == VariantOutcome::ContextLost) return test_summary(test.c_str());
      if (o == VariantOutcome::Passed) ++passed[name];
      if (o == VariantOutcome::NotRun) ++not_run[name];
    }
  }
  std::printf("%s: %d cases, seed %llu; per variant, cases validated (and refused):\n", test.c_str(), ran, (unsigned long long)seed);
  for (const auto& name : names) std::printf("  %-32s %4d (%d)\n", name.c_str(), passed[name], not_run[name]);
  return test_summary(test.c_str());
}
