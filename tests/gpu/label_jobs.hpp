// The GPU test driver of the labelled studies (multireduce, multiscan): jobs of a case (n, m,
// label distribution), an operator and type and knobs beyond the study's defaults, each run
// through every GPU variant by check_variant; every variant must pass somewhere.
#pragma once
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "apps/harness/study.hpp"
#include "check.hpp"
#include "check_variant.hpp"

struct LabelCase {
  std::int64_t n;
  std::int64_t m;
  std::string dist;
};

struct LabelJob {
  LabelCase c;
  std::string op, type;
  std::map<std::string, harness::Value> knobs;
};

// The cases both studies run: sizes that are no multiple of any tile or vector width (n = 1
// included), m not a power of two, every distribution (degenerate = all labels m-1), up to m just
// above 2^20. quick (the sanitizer runs): three small cases with tails and every distribution
// kind, so memcheck and racecheck finish in minutes. knob_cases: where the knobs are tried.
inline std::vector<LabelCase> label_cases(bool quick) {
  if (quick) return {{37, 3, "uniform"}, {4099, 100, "degenerate"}, {12345, 257, "zipf"}};
  return {{1, 1, "uniform"},          {1, 5, "degenerate"},          {37, 3, "uniform"},
          {1000, 1, "uniform"},       {4099, 100, "degenerate"},     {12345, 256, "uniform"},
          {70001, 257, "zipf"},       {33333, 1000, "sorted"},       {262147, 31, "zipf"},
          {300007, 4099, "uniform"},  {150001, 65537, "uniform"},    {200003, 65537, "degenerate"},
          {1 << 20, 256, "degenerate"}, {(1 << 20) + 7, 4096, "zipf"}, {500009, (1 << 18) + 3, "uniform"},
          {99991, (1 << 20) + 1, "sorted"}, {(1 << 22) + 13, 257, "uniform"}, {300001, (1 << 19) + 5, "degenerate"},
          {400009, (1 << 19) + 5, "zipf"},
          // M = 2^20 + 3; every label m - 1 at large m; runs longer than a tile; one label
          // per 512 x 32 tile; a few labels of a large label space (dense relabeling with k <= 1024
          // and, through auto's look at runs, with k = 1024 exactly).
          {300007, (1 << 20) + 3, "uniform"}, {(1 << 21) + 1, (1 << 20) + 3, "degenerate"}, {(1 << 22) + 5, 100, "sorted"},
          {1 << 20, 64, "sorted"},            {1000, (1 << 20) + 3, "sorted"}, {1 << 20, 1024, "sorted"},
          // zipf labels between 2^16 and 2^18, where multiscan's auto takes sort_shared on repeats.
          {(1 << 20) + 3, (1 << 17) + 9, "zipf"},
          // auto's input profile past its size threshold, in every region it separates: runs of one
          // label and of consecutive labels beyond shared memory, a permutation, few labels present
          // of a large space (multiscan's relabel, its count past the tiers: the fallback).
          {(1 << 18) + 3, (1 << 22) + 1, "equal_runs"}, {(1 << 18) + 5, (1 << 21) + 3, "runs"}, {(1 << 18) + 1, (1 << 18) + 1, "permutation"},
          {(1 << 17) + 1, 300, "equal_runs"}, {(1 << 19) + 3, (1 << 20) + 3, "sorted"}};
}
inline const std::vector<LabelCase> kKnobCases = {{12345, 256, "uniform"}, {4099, 100, "degenerate"}, {300007, 4099, "uniform"}, {70001, 257, "zipf"}};

inline harness::Params label_params(const harness::Study& study, const LabelJob& job) {
  harness::Params p = default_params(study);
  p["n"] = job.c.n;
  p["m"] = job.c.m;
  p["distribution"] = job.c.dist;
  p["op"] = job.op;
  p["type"] = job.type;
  for (const auto& [k, v] : job.knobs) p[k] = v;
  return p;
}

// Runs the jobs (a job the study refuses is left out), one line each on stdout, then how many
// cases each variant passed. False when a kernel failure lost the CUDA context: the test must stop.
inline bool run_label_jobs(harness::Study& study, const std::vector<LabelJob>& jobs) {
  std::map<std::string, int> passed;
  const std::set<std::string> names = gpu_variants(study);
  std::uint64_t seed = 1;
  for (const auto& job : jobs) {
    const LabelCase& c = job.c;
    ++seed;
    const harness::Params p = label_params(study, job);
    if (!study.check_params(p).empty()) continue;
    auto point = study.make_point(p, seed, true);
    std::string knob_text;
    for (const auto& [k, v] : job.knobs) knob_text += " " + k + "=" + harness::to_string(v);
    std::printf("job %zu/%zu: n=%lld m=%lld %s %s/%s%s\n", size_t(&job - &jobs[0]) + 1, jobs.size(), (long long)c.n, (long long)c.m,
                c.dist.c_str(), job.op.c_str(), job.type.c_str(), knob_text.c_str());
    std::fflush(stdout);
    for (const auto& name : names) {
      if (std::getenv("LP_GPU_TEST_TRACE")) std::fprintf(stderr, "  %s\n", name.c_str());
      const std::string where = name + " n=" + std::to_string(c.n) + " m=" + std::to_string(c.m) + " " + c.dist + " " + job.op + "/" +
                                job.type + knob_text + " seed=" + std::to_string(seed);
      const VariantOutcome o = check_variant(*point, name, where);
      if (o == VariantOutcome::ContextLost) return false;
      if (o == VariantOutcome::Passed) ++passed[name];
    }
    std::fflush(stdout);
  }
  for (const auto& name : names) CHECK_MSG(passed[name] > 0, name << " never ran");
  for (const auto& [name, k] : passed) std::printf("  %-32s %d cases\n", name.c_str(), k);
  return true;
}
