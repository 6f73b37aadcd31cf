#!/usr/bin/env bash
# The performance gate CI runs (issue 19), end to end through scripts/perf_gate.sh and bench compare:
# 1. determinism: each configs/gate/ config runs afresh and must match its committed baseline
#    (results/baseline/gate/) exactly in the cache simulator's counts and the CPU references'
#    checksums; a baseline with one planted change must fail;
# 2. speed, on committed GPU results: a copy with one GPU record slowed by 20% must fail, one sped up
#    by 20% must pass, the file against itself must pass.
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
G=results/h100/sortedsearch.json
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
echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
