// bench-decimal: the decimal study's executable (normally run as `bench decimal`).
#include "apps/harness/runner.hpp"
#include "decimal_study.hpp"

namespace lp::decimal_study {
const char* const kDefaultConfig =
#include "decimal_default_config.inc"
    ;
}

int main(int argc, char** argv) { return harness::study_main(argc, argv, *lp::decimal_study::make_study()); }
