#!/usr/bin/env bash
# Installs what the build needs on Debian/Ubuntu, if missing: CMake, a C++ compiler, CLI11,
# nlohmann/json, fmt, matplotlib for the figures, and valgrind (the cache simulator is validated
# against Cachegrind in a CPU test). The CUDA toolkit must already be there.
set -euo pipefail
pkgs=(cmake g++ make git libcli11-dev nlohmann-json3-dev libfmt-dev python3-matplotlib valgrind)
missing=()
for p in "${pkgs[@]}"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}"
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if ! command -v nvcc >/dev/null 2>&1 && [ ! -x /usr/local/cuda/bin/nvcc ]; then
  echo "error: the CUDA toolkit (nvcc) is not installed; install it from NVIDIA first" >&2
  exit 1
fi

# The join study's DuckDB anchor (scripts/duckdb/duckdb_join.mjs) runs on node with the
# @duckdb/node-api package (the engine included), installed under scripts/duckdb/. Where node or
# the network is missing the anchor's test reports skipped; nothing else needs it.
if command -v npm >/dev/null 2>&1 && [ ! -d "$(dirname "$0")/duckdb/node_modules/@duckdb/node-api" ]; then
  (cd "$(dirname "$0")/duckdb" && npm install --no-audit --no-fund --loglevel=error >/dev/null 2>&1) \
    || echo "note: npm install of @duckdb/node-api failed; the DuckDB anchor's test will report skipped"
fi
