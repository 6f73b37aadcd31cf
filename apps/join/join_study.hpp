// The join study: He et al.'s relational joins (NINLJ, SMJ, HJ; docs/references.md)
// over relations R and S of (key, rid) tuples.
#pragma once
#include <memory>

#include "apps/harness/study.hpp"

namespace lp::join_study {
// configs/join/default.json, embedded at build time.
extern const char* const kDefaultConfig;
std::unique_ptr<harness::Study> make_study();
}  // namespace lp::join_study
