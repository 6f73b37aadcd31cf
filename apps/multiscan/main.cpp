// bench-multiscan: the multiscan study's executable (normally run as `bench multiscan`).
#include "apps/harness/runner.hpp"
#include "multiscan_study.hpp"

namespace lp::multiscan_study {
const char* const kDefaultConfig =
#include "multiscan_default_config.inc"
    ;
}

int main(int argc, char** argv) { return harness::study_main(argc, argv, *lp::multiscan_study::make_study()); }
