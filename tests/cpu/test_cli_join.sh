#!/usr/bin/env bash
# bench-join end to end: the CI config runs and validates (the CPU joins); impossible parameters
# are refused in one line with exit 2, nothing written.
B="$BIN/bench-join"
source "$(dirname "$0")/cli_lib.sh"

run_ci_config join

expect_refusal r_zero '{"study": "join", "axes": {"r": 0, "s": 10}}' "'axes.r': 0 is out of range"
expect_refusal s_zero '{"study": "join", "axes": {"r": 10, "s": 0}}' "'axes.s': 0 is out of range"
expect_refusal match '{"study": "join", "axes": {"r": 10, "s": 10, "match": 1.5}}' "match"
expect_refusal match_neg '{"study": "join", "axes": {"r": 10, "s": 10, "match": -0.1}}' "match"
expect_refusal distribution '{"study": "join", "axes": {"r": 10, "s": 10, "distribution": "normal"}}' "distribution"
expect_refusal zipf '{"study": "join", "axes": {"r": 10, "s": 10, "distribution": "zipf", "zipf_s": 0}}' "zipf_s"
expect_refusal key '{"study": "join", "axes": {"r": 10, "s": 10, "key": "int16"}}' "key"
expect_refusal band '{"study": "join", "axes": {"r": 10, "s": 10, "band": -1}}' "band"
expect_refusal variant '{"study": "join", "variants": ["cpu_hashjoin"], "axes": {"r": 10}}' "cpu_hashjoin"

# A band join: the equi-joins skip it with the reason, the nested loop validates.
printf '%s' '{"study": "join", "axes": {"r": 500, "s": 700, "distribution": "uniform", "band": 3}}' > "$T/band.json"
"$B" --config "$T/band.json" --out "$T/band" >/dev/null 2>&1 && ok || bad "band join run"
python3 - "$T/band/join.json" <<'PY' && ok || bad "band join records"
import json, sys
recs = {r["variant"]: r for r in json.load(open(sys.argv[1]))["records"]}
assert recs["cpu_nlj"]["validation"] == "pass", recs["cpu_nlj"]
for v in ("cpu_smj", "cpu_smj_mt", "cpu_hj", "cpu_hj_mt"):
    assert recs[v]["status"] == "skipped" and "equi-join" in recs[v]["note"], recs[v]
PY

finish cli_join
