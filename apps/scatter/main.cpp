// bench-scatter: the scatter/gather study's executable (normally run as `bench scatter`).
#include "apps/harness/runner.hpp"
#include "scatter_study.hpp"

namespace lp::scatter_study {
const char* const kDefaultConfig =
#include "scatter_default_config.inc"
    ;
}

int main(int argc, char** argv) { return harness::study_main(argc, argv, *lp::scatter_study::make_study()); }
