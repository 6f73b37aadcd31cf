#!/usr/bin/env bash
# Configures and builds everything (kernels included) into build/ (binaries in build/bin).
# CUDA architecture 90 (H100) by default: CUDA_ARCH=80 scripts/build.sh for another GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
if ! command -v nvcc >/dev/null 2>&1 && [ -x /usr/local/cuda/bin/nvcc ]; then export CUDACXX=/usr/local/cuda/bin/nvcc; fi
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES="${CUDA_ARCH:-90}" >/dev/null
cmake --build build -j "$(nproc)"
