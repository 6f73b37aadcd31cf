#!/usr/bin/env bash
# Runs configs of many points (the regret sweeps, configs/regret/) in parts on the GPU machine: each
# config's points are split into PARTS consecutive slices, each slice one `bench` run into
# OUT/<study>/part<k>/ with a time limit; at the limit bench writes the records it measured and marks
# the rest not run (exit 3). Merge the parts afterwards with scripts/merge_results.py. Binaries: $BIN
# (default build/bin).
#
#   scripts/regret_run.sh OUT PARTS PART_TIMEOUT_S CONFIG... [-- BENCH_ARGS...]
set -u
if [ $# -lt 4 ]; then
  echo "usage: scripts/regret_run.sh OUT PARTS PART_TIMEOUT_S CONFIG... [-- BENCH_ARGS...]" >&2
  exit 2
fi
out=$1 parts=$2 limit=$3
shift 3
configs=()
while [ $# -gt 0 ] && [ "$1" != "--" ]; do configs+=("$1"); shift; done
[ "${1:-}" = "--" ] && shift
BIN=${BIN:-build/bin}
export LP_PROGRESS=1  # one line per record on stderr: a part cut short still shows how far it got
status=0
for cfg in "${configs[@]}"; do
  study=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["study"])' "$cfg") || { status=1; continue; }
  for ((k = 0; k < parts; ++k)); do
    dir="$out/$study/part$k"
    mkdir -p "$dir"
    python3 - "$cfg" "$k" "$parts" "$dir/config.json" <<'EOF'
import json, sys
cfg = json.load(open(sys.argv[1]))
k, parts = int(sys.argv[2]), int(sys.argv[3])
pts = cfg["points"]
lo, hi = len(pts) * k // parts, len(pts) * (k + 1) // parts
cfg["points"] = pts[lo:hi]
cfg["description"] = cfg.get("description", "") + f" (part {k + 1} of {parts}: points {lo}..{hi - 1})"
json.dump(cfg, open(sys.argv[4], "w"), indent=1)
EOF
    start=$(date +%s)
    # SIGTERM at the limit: bench finishes the record in progress and writes what it measured (exit 3).
    timeout -k 60 "$limit" "$BIN/bench" "$study" --config "$dir/config.json" --out "$dir" --force "$@" >"$dir/stdout.txt" 2>"$dir/stderr.txt"
    rc=$?
    echo "$study part $((k + 1))/$parts: exit $rc in $(($(date +%s) - start)) s; $(tail -n 1 "$dir/stderr.txt" | cut -c1-200)"
    [ $rc -eq 0 ] || [ $rc -eq 3 ] || [ $rc -eq 4 ] || status=1  # 4: every record of the part skipped
  done
done
exit $status
