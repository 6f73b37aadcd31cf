#!/usr/bin/env bash
# The GPU gate of every study (or the named ones), for a GPU runner: each study's
# configs/gate/<study>_gpu.json (about a minute on an H100, no CPU baselines) run again and compared
# with its committed baseline, results/<gpu>/gate/<study>_gpu.json, through scripts/perf_gate.sh.
#
#   scripts/gpu_gate.sh [--gpu h100] [--threshold 5%] [--bin build/bin] [study ...]
#
# Exit 0 when no study is slower beyond the threshold, 1 when one is (or a record no longer
# validates), 2 on an error or a study without a committed baseline. Each study's duration is
# printed beside its verdict.
set -uo pipefail
cd "$(dirname "$0")/.."
gpu=h100; threshold=5%; bin=build/bin; studies=()
while [ $# -gt 0 ]; do
  case $1 in
    --gpu) gpu=$2; shift 2 ;;
    --threshold) threshold=$2; shift 2 ;;
    --bin) bin=$2; shift 2 ;;
    -h|--help) sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    -*) echo "gpu_gate: unknown option '$1'" >&2; exit 2 ;;
    *) studies+=("$1"); shift ;;
  esac
done
if [ ${#studies[@]} -eq 0 ]; then
  for c in configs/gate/*_gpu.json; do s=$(basename "$c" _gpu.json); studies+=("$s"); done
fi
rc=0
log=$(mktemp)
trap 'rm -f "$log"' EXIT
for s in "${studies[@]}"; do
  base=results/$gpu/gate/${s}_gpu.json
  if [ ! -f "configs/gate/${s}_gpu.json" ]; then echo "gpu_gate: no configs/gate/${s}_gpu.json" >&2; rc=2; continue; fi
  if [ ! -f "$base" ]; then echo "gpu_gate: $s: no baseline $base (make it: bench $s --config configs/gate/${s}_gpu.json)" >&2; rc=2; continue; fi
  start=$(date +%s)
  scripts/perf_gate.sh "$base" --threshold "$threshold" --bin "$bin" > "$log" 2>&1
  r=$?
  echo "$s: $( [ $r -eq 0 ] && echo pass || echo "FAIL (exit $r)" ) in $(( $(date +%s) - start )) s; $(grep -E '^compare: ' "$log" | tail -1)"
  # On a failure: the records that failed it (slower, no longer valid, missing, changed) and the verdict, or
  # the log's end where the run itself failed.
  if [ $r -ne 0 ]; then
    if grep -qE '^verdict' "$log"; then grep -E '  (slower|INVALID|missing|CHANGED)( |$)|^verdict' "$log"; else tail -20 "$log"; fi
    [ $rc -eq 0 ] && rc=$r; [ $r -eq 1 ] && rc=1
  fi
done
exit $rc
