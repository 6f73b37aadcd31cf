#!/usr/bin/env bash
# Runs on the GPU machine (through the device tool) over binaries built here for sm_90: the
# reliability suite, in phases named as arguments (each logs to $OUT/<phase>.log):
#   tests     the GPU tests, the fuzz tests, the out-of-memory, restart and rank-mode tests
#   odd       odd sizes, every variant, in one process (configs/reliability/odd_sizes_multireduce.json)
#   order     the order tests of the four GPU studies
#   sanitize  memcheck and racecheck (SANITIZE_TOOLS=memcheck for one): the fuzz tests (quick), the
#             order tests at small sizes, the out-of-memory test at small sizes
#   records   a refactor's check: every study's CI config run by the binaries of before
#             (.device/carry/before.tar.xz, a `before/` folder of bench executables) and of now,
#             and the record sets compared (scripts/records_diff.py): on the GPU every variant runs
# Binaries: .device/carry/bin.tar.xz (scripts/pack_bin.sh: stripped, packed to fit the 64 MiB
# carry) when present, else build/bin.
# Result files go to $OUT/results.tgz.
set -u
OUT=${OUT:-/tmp/out}
mkdir -p "$OUT"
if [ -f .device/carry/bin.tar.xz ]; then
  mkdir -p /tmp/lp && tar xJf .device/carry/bin.tar.xz -C /tmp/lp && BIN=/tmp/lp/bin
else
  BIN=build/bin
fi
RES=${RES:-/tmp/results}
mkdir -p "$RES"
T=${TEST_TIMEOUT:-600}
status=0
step() { echo "== $*"; local t0=$SECONDS; "$@"; local rc=$?; echo "-- exit $rc ($((SECONDS - t0)) s)"; [ $rc -eq 0 ] || [ $rc -eq 77 ] || status=1; }
REL="python3 tests/reliability.py"
GPU_STUDIES=${GPU_STUDIES:-"multireduce multiscan histogram sortedsearch scatter patched join primitives"}  # or a subset

phase_tests() {
  export LP_IMAGE_DIR=/tmp/images
  python3 scripts/make_images.py "$LP_IMAGE_DIR" >/dev/null 2>&1 || echo "(no images: the histogram test skips them)"
  for t in $GPU_STUDIES; do step timeout "$T" "$BIN/test_gpu_$t"; done
  for s in $GPU_STUDIES; do step timeout "$T" "$BIN/test_gpu_fuzz" "$s"; done
  case " $GPU_STUDIES " in *" multireduce "*) ;; *) return ;; esac  # the tests below are the multireduce's
  step timeout "$T" $REL oom --bin "$BIN" --config configs/reliability/oom_multireduce.json --too-big 2^28
  step timeout "$T" $REL restart --bin "$BIN" --config configs/reliability/restart_multireduce.json \
    --faults shared_privatized@1:trap,auto@2:launch,global_atomics@0:launch --work "$RES/restart"
  # The rank mode (two GPUs or more; skipped on one): a process per GPU against one process, a rank
  # killed or missing.
  for s in multireduce histogram sortedsearch; do
    step timeout "$T" $REL ranks --bin "$BIN" --config configs/reliability/ranks_$s.json --work "$RES/ranks_$s"
  done
}

phase_odd() {
  step timeout "$T" "$BIN/bench" multireduce --config configs/reliability/odd_sizes_multireduce.json --out "$RES/odd_sizes" --force
}

phase_order() {
  for s in $GPU_STUDIES; do step timeout "$T" $REL order --gpu --bin "$BIN" --config "configs/reliability/order_$s.json"; done
}

phase_sanitize() {
  for tool in ${SANITIZE_TOOLS:-memcheck racecheck}; do
    local skip=""
    [ $tool = racecheck ] && skip=podlozhnyuk256  # its software tagging races by design (thesis 4.3.1)
    for s in $GPU_STUDIES; do
      step env LP_GPU_TEST_QUICK=1 LP_GPU_TEST_SKIP=$skip timeout "$T" compute-sanitizer --tool $tool --error-exitcode 3 "$BIN/test_gpu_fuzz" "$s"
    done
    for s in $GPU_STUDIES; do
      step env LP_BENCH_WRAPPER="compute-sanitizer --tool $tool --error-exitcode 3" timeout "$T" \
        $REL order --gpu --bin "$BIN" --config "configs/reliability/order_$s.json" --max-size 2^17 --skip "$skip"
    done
    case " $GPU_STUDIES " in *" multireduce "*) ;; *) continue ;; esac
    # The failed allocations are the point of this test: API errors are not reported here, memory
    # access errors and races are.
    step env LP_BENCH_WRAPPER="compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 3" timeout "$T" \
      $REL oom --bin "$BIN" --config configs/reliability/oom_multireduce_small.json --too-big 2^26
  done
}

phase_records() {
  [ -f .device/carry/before.tar.xz ] || { echo "no .device/carry/before.tar.xz"; status=1; return; }
  mkdir -p /tmp/lp && tar xJf .device/carry/before.tar.xz -C /tmp/lp
  local pairs=""
  for s in cachesim cpu histogram multireduce multiscan sortedsearch; do
    step timeout "$T" /tmp/lp/before/bench "$s" --config "configs/ci/$s.json" --out "$RES/records/before" --force
    step timeout "$T" "$BIN/bench" "$s" --config "configs/ci/$s.json" --out "$RES/records/after" --force
    pairs="$pairs $RES/records/before/$s.json $RES/records/after/$s.json"
  done
  step python3 scripts/records_diff.py $pairs
}

echo "== device"; nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
for phase in "$@"; do
  echo "#### phase $phase"
  "phase_$phase" > >(tee "$OUT/$phase.log") 2>&1  # not a pipe: step's status must survive
done
tar czf "$OUT/results.tgz" -C "$RES" .
echo "== overall exit $status"
exit $status
