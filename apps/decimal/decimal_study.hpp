// The decimal study: per product sum(price × quantity) in decimal128, decimal64 and
// double, the decimal128 article's query (docs/references.md).
#pragma once
#include <memory>

#include "apps/harness/study.hpp"

namespace lp::decimal_study {
// configs/decimal/default.json, embedded at build time.
extern const char* const kDefaultConfig;
std::unique_ptr<harness::Study> make_study();
}  // namespace lp::decimal_study
