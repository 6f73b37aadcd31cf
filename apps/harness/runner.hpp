// Entry point of every study executable (bench-<study>).
#pragma once
#include "study.hpp"

namespace harness {
// Exit codes: 0 = every record ran and validated; 1 = a validation failure or a runtime error
// (results are still written); 2 = bad command line or config (nothing run, nothing written).
int study_main(int argc, char** argv, const Study& study);
}  // namespace harness
