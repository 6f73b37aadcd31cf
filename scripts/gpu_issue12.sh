#!/usr/bin/env bash
# Runs on the GPU machine (through the device tool) over binaries built here for sm_90 and packed
# into .device/carry/issue12.tar.xz (a bin/ folder): issue 12's studies, in phases named as
# arguments, each logging to $OUT/<phase>.log; result files under $OUT/results/.
#   scatter_tests    the scatter GPU test, then its quick cases under memcheck and racecheck
#   scatter_bench    configs/scatter/{default,sort_bits,inputs}.json (SCATTER_CONFIGS to choose)
#   patched_tests    the same for the patched-array study
#   patched_bench    configs/patched/default.json
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT/results" /tmp/lp
tar xJf .device/carry/issue12.tar.xz -C /tmp/lp
BIN=/tmp/lp/bin
T=${TEST_TIMEOUT:-300}
status=0
step() { echo "== $*"; local t0=$SECONDS; "$@"; local rc=$?; echo "-- exit $rc ($((SECONDS - t0)) s)"; [ $rc -eq 0 ] || [ $rc -eq 77 ] || status=1; }

tests_of() {
  step timeout "$T" "$BIN/test_gpu_$1"
  for tool in memcheck racecheck; do
    step env LP_GPU_TEST_QUICK=1 timeout "$T" compute-sanitizer --tool $tool --error-exitcode 3 "$BIN/test_gpu_$1"
  done
}
bench_of() {
  local study=$1; shift
  for c in "$@"; do step timeout "$T" "$BIN/bench-$study" --config "configs/$study/$c.json" --out "$OUT/results/${study}_$c" --force; done
}
phase_scatter_tests() { tests_of scatter; }
phase_scatter_bench() { bench_of scatter ${SCATTER_CONFIGS:-default sort_bits inputs}; }
phase_patched_tests() { tests_of patched; }
phase_patched_bench() { bench_of patched ${PATCHED_CONFIGS:-default}; }

nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$OUT/gpu.txt" 2>&1
for phase in "$@"; do
  "phase_$phase" > "$OUT/$phase.log" 2>&1
  tail -3 "$OUT/$phase.log"
done
exit $status
