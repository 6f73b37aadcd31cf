#!/usr/bin/env bash
# Packs the GPU machine's executables (the bench front end, every study or those named, the GPU tests) from
# build/bin, stripped and xz-compressed, into .device/carry/bin.tar.xz (ignored by git): build/bin
# itself exceeds the device tool's 64 MiB carry. scripts/gpu_reliability.sh unpacks it there.
set -euo pipefail
cd "$(dirname "$0")/.."
stage=$(mktemp -d)
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/bin" .device/carry
if [ $# -gt 0 ]; then  # only these studies: their bench-<study> and test_gpu_<study>
  cp build/bin/bench build/bin/test_gpu_fuzz build/bin/test_gpu_profile "$stage/bin/"
  for s in "$@"; do cp build/bin/bench-"$s" build/bin/test_gpu_"$s" "$stage/bin/"; done
else
  cp build/bin/bench build/bin/bench-* build/bin/test_gpu_* "$stage/bin/"
fi
strip "$stage/bin/"*
tar cJf .device/carry/bin.tar.xz -C "$stage" bin
ls -l .device/carry/bin.tar.xz
