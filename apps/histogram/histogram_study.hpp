// The histogram study (thesis 4.3.1, 4.5.2 and Appendix A).
#pragma once
#include <memory>
#include <string>

#include "apps/harness/study.hpp"

namespace lp::histogram_study {
// configs/histogram/default.json, embedded at build time.
extern const char* const kDefaultConfig;
std::unique_ptr<harness::Study> make_study();
// Where the raw 8-bit images of scripts/make_images.py are: $LP_IMAGE_DIR, else build/images.
std::string image_dir();
}  // namespace lp::histogram_study
