// Entry point of every study executable (bench-<study>).
#pragma once
#include "study.hpp"

namespace harness {
// Exit codes: 0 = the records ran and validated (some may be skipped: the summary line says which
// and why); 1 = a validation failure or a runtime error (results are still written); 2 = bad
// command line or config (nothing run, nothing written); 3 = interrupted (what was measured is
// written, the rest marked not run); 4 = nothing ran, every record skipped (e.g. a GPU-only config
// without a GPU; the file is written).
constexpr int kExitNothingRan = 4;
int study_main(int argc, char** argv, const Study& study);
}  // namespace harness
