// One GPU variant through a study's point the way the benchmark drives it (prepare, run, synchronise,
// validate, release), untimed: the inner step every GPU test repeats. Failures are CHECKs.
#pragma once
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <set>
#include <string>

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
