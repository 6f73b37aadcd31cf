// The patched-array study: Vortex's PatchedArray and G-ALP's fused exception
// patching on the GPU.
#pragma once
#include <memory>

#include "apps/harness/study.hpp"

namespace lp::patched_study {
// configs/patched/default.json, embedded at build time.
extern const char* const kDefaultConfig;
std::unique_ptr<harness::Study> make_study();
}  // namespace lp::patched_study
