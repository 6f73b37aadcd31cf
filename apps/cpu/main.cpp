// bench-cpu: the CPU memory-hierarchy study's executable (normally run as `bench cpu`).
#include "apps/harness/runner.hpp"
#include "cpu_study.hpp"

namespace lp::cpu_study {
const char* const kDefaultConfig =
#include "cpu_default_config.inc"
    ;
}

int main(int argc, char** argv) { return harness::study_main(argc, argv, *lp::cpu_study::make_study()); }
