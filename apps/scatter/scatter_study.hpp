// The scatter/gather study (thesis 1.2, 3.2.2, 4.5.1, Table 4.3).
#pragma once
#include <memory>

#include "apps/harness/study.hpp"

namespace lp::scatter_study {
// configs/scatter/default.json, embedded at build time.
extern const char* const kDefaultConfig;
std::unique_ptr<harness::Study> make_study();
}  // namespace lp::scatter_study
