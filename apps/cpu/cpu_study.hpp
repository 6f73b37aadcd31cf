// The CPU memory-hierarchy study (`bench cpu`; thesis chapter 2). Plain C++: it runs on
// machines without a GPU.
#pragma once
#include <memory>

#include "apps/harness/study.hpp"

namespace lp::cpu_study {
// configs/cpu/default.json, embedded at build time.
extern const char* const kDefaultConfig;
std::unique_ptr<harness::Study> make_study();
}  // namespace lp::cpu_study
