// The sorted-search study (ModernGPU "Vectorized Sorted Search").
#pragma once
#include <memory>

#include "apps/harness/study.hpp"

namespace lp::sortedsearch_study {
// configs/sortedsearch/default.json, embedded at build time.
extern const char* const kDefaultConfig;
std::unique_ptr<harness::Study> make_study();
}  // namespace lp::sortedsearch_study
