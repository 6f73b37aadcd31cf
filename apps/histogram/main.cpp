// bench-histogram: the histogram study's executable (normally run as `bench histogram`).
#include "apps/harness/runner.hpp"
#include "histogram_study.hpp"

namespace lp::histogram_study {
const char* const kDefaultConfig =
#include "histogram_default_config.inc"
    ;
}

int main(int argc, char** argv) { return harness::study_main(argc, argv, *lp::histogram_study::make_study()); }
