#!/usr/bin/env bash
# Runs on the GPU machine (through the device tool) over binaries built here for sm_90 and carried
# in build/bin or packed: the GPU tests (TESTS=<study> for one study's), the same under compute-sanitizer memcheck and racecheck, the demo,
# and the benchmark configs given as arguments (study:config pairs). Each config's results go to
# <study>-<config name>/; everything is packed into $OUT/results.tgz (the device tool brings back
# few files) beside the log.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
log="$OUT/gpu_run.log"
exec > >(tee -a "$log") 2>&1
# Binaries: .device/carry/bin.tar.xz (scripts/pack_bin.sh [names]: stripped, packed to fit the
# device tool's 64 MiB carry) when present, else build/bin.
if [ -f .device/carry/bin.tar.xz ]; then
  mkdir -p /tmp/lp && tar xJf .device/carry/bin.tar.xz -C /tmp/lp && BIN=/tmp/lp/bin
else
  BIN=build/bin
fi
RES=${RES:-/tmp/results}
mkdir -p "$RES"
echo "== device"; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu --format=csv
status=0
step() { echo "== $*"; "$@"; local rc=$?; echo "-- exit $rc"; [ $rc -eq 0 ] || status=1; }
if [ "${SKIP_TESTS:-0}" != 1 ]; then
  for t in $BIN/test_gpu_${TESTS:-*}; do
    # TEST_TIMEOUT bounds each step, so that one slow step cannot take the whole device call.
    [ "${PLAIN:-1}" = 1 ] && step timeout "${TEST_TIMEOUT:-1800}" "$t"
    if [ "${SANITIZE:-1}" = 1 ]; then
      step env LP_GPU_TEST_QUICK=1 timeout "${TEST_TIMEOUT:-1800}" compute-sanitizer --tool memcheck --error-exitcode 3 "$t"
      step env LP_GPU_TEST_QUICK=1 timeout "${TEST_TIMEOUT:-1800}" compute-sanitizer --tool racecheck --error-exitcode 3 "$t"
    fi
  done
fi
for spec in "$@"; do
  study=${spec%%:*}; cfg=${spec#*:}
  step timeout "${BENCH_TIMEOUT:-3600}" $BIN/bench "$study" --config "$cfg" --out "$RES/$study-$(basename "$cfg" .json)" --force
  [ "$study" = sortedsearch ] && step $BIN/bench sortedsearch --demo
done
tar czf "$OUT/results.tgz" -C "$RES" .
echo "== overall exit $status"
exit $status
