// bench-patched: the patched-array study's executable (normally run as `bench patched`).
#include "apps/harness/runner.hpp"
#include "patched_study.hpp"

namespace lp::patched_study {
const char* const kDefaultConfig =
#include "patched_default_config.inc"
    ;
}

int main(int argc, char** argv) { return harness::study_main(argc, argv, *lp::patched_study::make_study()); }
