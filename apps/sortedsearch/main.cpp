// bench-sortedsearch: the sorted-search study's executable (normally run as `bench sortedsearch`).
#include "apps/harness/runner.hpp"
#include "sortedsearch_study.hpp"

namespace lp::sortedsearch_study {
const char* const kDefaultConfig =
#include "sortedsearch_default_config.inc"
    ;
}

int main(int argc, char** argv) { return harness::study_main(argc, argv, *lp::sortedsearch_study::make_study()); }
