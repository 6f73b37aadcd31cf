// bench-primitives: the primitives study's executable (normally run as `bench primitives`).
#include "apps/harness/runner.hpp"
#include "primitives_study.hpp"

namespace lp::primitives_study {
const char* const kDefaultConfig =
#include "primitives_default_config.inc"
    ;
}

int main(int argc, char** argv) { return harness::study_main(argc, argv, *lp::primitives_study::make_study()); }
