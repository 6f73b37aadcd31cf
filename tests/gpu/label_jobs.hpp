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

inline harness::Params label_params(const harness::Study& study, const LabelJob& job) {
  harness::Params p;
  for (const auto& a : study.axes()) p[a.name] = a.defaults.front();
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
