#!/usr/bin/env bash
# The performance gate CI runs, end to end through scripts/perf_gate.sh and bench compare:
# 1. determinism: each configs/gate/ config runs afresh and must match its committed baseline
#    (results/baseline/gate/) exactly in the cache simulator's counts and the CPU references'
#    checksums; a baseline with one planted change must fail;
# 2. speed, on committed GPU results: a copy with one GPU record slowed by 20% must fail, one sped up
#    by 20% must pass, the file against itself must pass; --gpu-only runs no CPU baseline;
# 3. the GPU gates' configs load and run no CPU baseline; gpu_gate.sh names a missing baseline.
set -u
cd "$SRC"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
passes=0; fails=0
ok() { passes=$((passes+1)); }
bad() { echo "FAIL: $*"; fails=$((fails+1)); }
EXACT=served_per_input.,tlb_misses_per_input.,memory_lines_per_input,predicted_ns.,reference_checksum

for base in results/baseline/gate/*.json; do
  name=$(basename "$base" .json)
  scripts/perf_gate.sh "$base" --bin "$BIN" --exact "$EXACT" > "$T/$name.out" 2>&1; rc=$?
  [ $rc -eq 0 ] && ok || { bad "$name: the fresh run differs from its baseline (exit $rc)"; grep -E "CHANGED|error|verdict" "$T/$name.out" | head -5; }
  # A planted change: one checksum or count altered in a copy of the baseline.
  python3 - "$base" "$T/$name.planted.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
for r in doc["records"]:
    m = r.get("metrics", {})
    key = next((k for k in sorted(m) if k == "reference_checksum" or k.startswith("served_per_input.")), None)
    if key:
        m[key] = ("0" * 16) if isinstance(m[key], str) else m[key] * 1.001
        break
json.dump(doc, open(sys.argv[2], "w"))
PY
  scripts/perf_gate.sh "$T/$name.planted.json" --bin "$BIN" --exact "$EXACT" > "$T/$name.planted.out" 2>&1; rc=$?
  [ $rc -eq 1 ] && grep -q CHANGED "$T/$name.planted.out" && ok || bad "$name: a planted change passed the gate (exit $rc)"
done

# Speed: committed H100 results, one GPU record 20% slower / faster in a copy.
G=results/h100/sortedsearch/default.json
for factor in 1.2 0.8; do
  python3 - "$G" "$T/scaled.json" "$factor" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
f = float(sys.argv[3])
r = next(r for r in doc["records"] if r["kind"] != "cpu" and r["status"] == "ok")
t = r["time_ms"]
for k in ("median", "min", "max"):
    t[k] *= f
t["samples"] = [s * f for s in t["samples"]]
t["stddev"] *= f
json.dump(doc, open(sys.argv[2], "w"))
PY
  "$BIN/bench" compare "$G" "$T/scaled.json" --threshold 5% > "$T/cmp" 2>&1; rc=$?
  if [ "$factor" = 1.2 ]; then
    [ $rc -eq 1 ] && grep -q "SLOW-DOWN (1 record)" "$T/cmp" && ok || bad "a record 20% slower passed the gate (exit $rc)"
  else
    [ $rc -eq 0 ] && grep -q "1 faster" "$T/cmp" && ok || bad "a record 20% faster failed the gate (exit $rc)"
  fi
done
"$BIN/bench" compare "$G" "$G" > /dev/null 2>&1 && ok || bad "the committed results against themselves"

# --gpu-only: the new run leaves BASE's CPU baselines out (a shortened copy of the committed run
# keeps the test to seconds; without a GPU nothing runs, so the gate must say so, not pass).
python3 - "$G" "$T/short.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
cfg = doc["meta"]["config"]
cfg["points"] = cfg["points"][:1]
cfg["axes"] = [dict(doc["records"][0]["params"])]
json.dump(doc, open(sys.argv[2], "w"))
PY
scripts/perf_gate.sh "$T/short.json" --gpu-only --bin "$BIN" --out "$T/gpuonly" > "$T/gpuonly.out" 2>&1
python3 - "$T/gpuonly/sortedsearch.json" <<'PY' && ok || bad "--gpu-only still ran a CPU baseline: $(tail -3 "$T/gpuonly.out")"
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(1 if any(r["kind"] == "cpu" for r in d["records"]) or not d["records"] else 0)
PY

# The GPU gates: every configs/gate/<study>_gpu.json loads, names no CPU baseline, and without a GPU
# runs nothing (exit 4: nothing ran) instead of passing; gpu_gate.sh names a missing baseline (exit 2).
for c in configs/gate/*_gpu.json; do
  s=$(basename "$c" _gpu.json)
  "$BIN/bench" "$s" --config "$c" --out "$T/gate-$s" > "$T/gate-$s.out" 2>&1; rc=$?
  if "$BIN/bench-$s" --gpu-info | grep -q '"present":true'; then continue; fi
  [ $rc -eq 4 ] && ok || bad "$c: exit $rc without a GPU, not 4 (nothing ran): $(tail -2 "$T/gate-$s.out")"
  grep -q '"kind": "cpu"' "$T/gate-$s/$s.json" && bad "$c runs a CPU baseline" || ok
done
scripts/gpu_gate.sh --gpu no-such-gpu multireduce > "$T/gg.out" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "no baseline" "$T/gg.out" && ok || bad "gpu_gate.sh without a baseline: exit $rc: $(cat "$T/gg.out")"
echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
