// The cache-simulator study (`bench cachesim`; thesis §2.4). Plain C++: it runs on
// machines without a GPU.
#pragma once
#include <memory>

#include "apps/harness/study.hpp"

namespace lp::cachesim_study {
// configs/cachesim/default.json, embedded at build time.
extern const char* const kDefaultConfig;
std::unique_ptr<harness::Study> make_study();
}  // namespace lp::cachesim_study
