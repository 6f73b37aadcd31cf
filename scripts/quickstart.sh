#!/usr/bin/env bash
# Quick start: install what is missing, build, and run the main job (the sorted-search study with
# its default config). Without a GPU the study says so in one line and runs its CPU baselines.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install_deps.sh
scripts/build.sh
exec build/bin/bench sortedsearch "$@"
