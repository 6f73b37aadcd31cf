// The multiscan study (thesis chapter 5).
#pragma once
#include <memory>

#include "apps/harness/study.hpp"

namespace lp::multiscan_study {
// configs/multiscan/default.json, embedded at build time.
extern const char* const kDefaultConfig;
std::unique_ptr<harness::Study> make_study();
}  // namespace lp::multiscan_study
