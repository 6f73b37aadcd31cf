// The multireduce study (thesis chapter 4).
#pragma once
#include <memory>

#include "apps/harness/study.hpp"

namespace lp::multireduce_study {
// configs/multireduce/default.json, embedded at build time.
extern const char* const kDefaultConfig;
std::unique_ptr<harness::Study> make_study();
}  // namespace lp::multireduce_study
