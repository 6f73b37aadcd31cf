// The primitives study: He et al. 2008's data-parallel primitives of GPU joins (3.1 of
// He et al. 2008, docs/references.md: map, scatter, gather, prefix scan, split,
// sort) over n (key, rid) tuples, each timed and validated against a CPU reference.
#pragma once
#include <memory>

#include "apps/harness/study.hpp"

namespace lp::primitives_study {
// configs/primitives/default.json, embedded at build time.
extern const char* const kDefaultConfig;
std::unique_ptr<harness::Study> make_study();
}  // namespace lp::primitives_study
