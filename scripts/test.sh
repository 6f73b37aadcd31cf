#!/usr/bin/env bash
# Builds everything and runs the tests: CPU tests everywhere; GPU tests (label gpu) report
# skipped where there is no device. `scripts/test.sh -L gpu` runs only the GPU tests.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh
cd build && ctest --output-on-failure "$@"
