// bench-multireduce: the multireduce study's executable (normally run as `bench multireduce`).
#include "apps/harness/runner.hpp"
#include "multireduce_study.hpp"

namespace lp::multireduce_study {
const char* const kDefaultConfig =
#include "multireduce_default_config.inc"
    ;
}

int main(int argc, char** argv) { return harness::study_main(argc, argv, *lp::multireduce_study::make_study()); }
