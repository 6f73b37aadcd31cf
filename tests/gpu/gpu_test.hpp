// How every GPU test starts: CTest's "skipped" (exit 77) where there is no CUDA device, and the
// quick mode for runs under compute-sanitizer (10-100x slower): fewer, smaller cases.
#pragma once
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <string>

constexpr int kSkipped = 77;

// True (and says so) where the test has no device to run on.
inline bool no_gpu(const std::string& test) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) == cudaSuccess && devices > 0) return false;
  std::printf("%s: no CUDA device, skipped\n", test.c_str());
  return true;
}

// LP_GPU_TEST_QUICK set: the sanitizer runs' smaller case lists.
inline bool quick_mode() { return std::getenv("LP_GPU_TEST_QUICK") != nullptr; }

// LP_GPU_TEST_SMALL set (racecheck): no case of the tens of millions of keys a look needs. Racecheck
// follows every shared-memory access, so that one such case outlasts a run's limit, while a race
// is a block's, which the small cases' blocks already run through.
inline bool small_mode() { return std::getenv("LP_GPU_TEST_SMALL") != nullptr; }
