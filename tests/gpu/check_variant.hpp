// One GPU variant through a study's point the way the benchmark drives it (prepare, run, synchronise,
// validate, release), untimed: the inner step every GPU test repeats. Failures are CHECKs.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "apps/harness/study.hpp"
#include "check.hpp"

// Every axis of `study` at its first default value: the point the GPU tests then change.
inline harness::Params default_params(const harness::Study& study) {
  harness::Params p;
  for (const auto& a : study.axes()) p[a.name] = a.defaults.front();
  return p;
}

enum class VariantOutcome { Passed, NotRun, Failed, ContextLost };

// NotRun: the variant refuses the point (Unsupported) or it does not fit (OutOfMemory).
// ContextLost: a kernel failed; the CUDA context is unusable and the test should stop.
inline VariantOutcome check_variant(harness::Point& point, const std::string& name, const std::string& where) {
  try {
    point.prepare(name);
  } catch (const harness::Unsupported&) {
    point.release(name);
    return VariantOutcome::NotRun;
  } catch (const harness::OutOfMemory&) {
    point.release(name);
    return VariantOutcome::NotRun;
  } catch (const std::exception& e) {  // a variant's set-up failed: a finding, not the end of the test
    CHECK_MSG(false, where << ": prepare: " << e.what());
    point.release(name);
    return VariantOutcome::Failed;
  }
  VariantOutcome out = VariantOutcome::Failed;
  try {
    const auto t0 = std::chrono::steady_clock::now();
    point.run(name, nullptr);
    const cudaError_t e = cudaDeviceSynchronize();
    CHECK_MSG(e == cudaSuccess, where << ": " << cudaGetErrorString(e));
    if (e != cudaSuccess) return VariantOutcome::ContextLost;
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    if (ms > 200) std::printf("  slow: %s took %.0f ms\n", where.c_str(), ms);
    const harness::Validation v = point.validate(name);
    CHECK_MSG(v.status == harness::Validation::Status::Pass, where << ": " << v.detail);
    if (v.status == harness::Validation::Status::Pass) out = VariantOutcome::Passed;
  } catch (const std::exception& e) {
    CHECK_MSG(false, where << ": " << e.what());
  }
  point.release(name);
  return out;
}

// The study's GPU variants a test drives: LP_GPU_TEST_VARIANTS=a,b keeps only those (a quick
// re-check of one), LP_GPU_TEST_SKIP=a,b leaves those out (racecheck on a variant that races by
// design).
inline std::set<std::string> gpu_variants(const harness::Study& study) {
  auto listed = [](const char* list, const std::string& name) {
    return list && ("," + std::string(list) + ",").find("," + name + ",") != std::string::npos;
  };
  const char* only = std::getenv("LP_GPU_TEST_VARIANTS");
  const char* skip = std::getenv("LP_GPU_TEST_SKIP");
  std::set<std::string> names;
  for (const auto& v : study.variants())
    if (v.kind != harness::VariantKind::Cpu && (!only || listed(only, v.name)) && !listed(skip, v.name)) names.insert(v.name);
  return names;
}

// A study's test case: a point's parameters, its seed, and how failures name it.
struct TestCase {
  harness::Params params;
  std::uint64_t seed = 1;
  std::string what;
};

// Every GPU variant of `study` through every case, forward, then every case again in a shuffled
// order with the variants reversed (fresh points from the same seeds), so that no outcome depends
// on what ran before; then a CHECK that each variant passed somewhere, and a count per variant.
// `only`, where not empty, names the variants to drive instead of every GPU variant.
// Returns false when a kernel failure lost the CUDA context (the test should stop).
inline bool run_cases_in_two_orders(const harness::Study& study, const std::vector<TestCase>& cases,
                                    const std::vector<std::string>& only = {}) {
  const std::set<std::string> names = only.empty() ? gpu_variants(study) : std::set<std::string>(only.begin(), only.end());
  std::map<std::string, int> passed;
  std::vector<std::size_t> order(cases.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::vector<std::size_t> runs = order;
  harness::Rng shuffle(99);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[shuffle.below(i)]);
  runs.insert(runs.end(), order.begin(), order.end());
  for (std::size_t ri = 0; ri < runs.size(); ++ri) {
    const TestCase& c = cases[runs[ri]];
    const std::string why = study.check_params(c.params);
    CHECK_MSG(why.empty(), "case refused: " << why << " (" << c.what << ")");
    if (!why.empty()) continue;
    auto point = study.make_point(c.params, c.seed, true);
    std::printf("run %zu/%zu: %s\n", ri + 1, runs.size(), c.what.c_str());
    std::fflush(stdout);
    std::vector<std::string> vs(names.begin(), names.end());
    if (ri >= cases.size()) std::reverse(vs.begin(), vs.end());
    for (const auto& name : vs) {
      const VariantOutcome o = check_variant(*point, name, name + " " + c.what);
      if (o == VariantOutcome::ContextLost) return false;
      if (o == VariantOutcome::Passed) ++passed[name];
    }
  }
  for (const auto& name : names) CHECK_MSG(passed[name] > 0, name << " never ran");
  for (const auto& [name, k] : passed) std::printf("  %s: %d cases passed\n", name.c_str(), k);
  return true;
}
