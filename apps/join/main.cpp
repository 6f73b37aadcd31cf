// bench-join: the join study's executable (normally run as `bench join`).
#include "apps/harness/runner.hpp"
#include "join_study.hpp"

namespace lp::join_study {
const char* const kDefaultConfig =
#include "join_default_config.inc"
    ;
}

int main(int argc, char** argv) { return harness::study_main(argc, argv, *lp::join_study::make_study()); }
