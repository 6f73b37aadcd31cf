// bench-cachesim: the cache-simulator study's executable (normally run as `bench cachesim`).
#include "apps/harness/runner.hpp"
#include "cachesim_study.hpp"

namespace lp::cachesim_study {
const char* const kDefaultConfig =
#include "cachesim_default_config.inc"
    ;
}

int main(int argc, char** argv) { return harness::study_main(argc, argv, *lp::cachesim_study::make_study()); }
