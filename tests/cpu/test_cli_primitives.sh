#!/usr/bin/env bash
# bench-primitives end to end: the CI config runs and validates (the CPU variants; the GPU ones "no
# GPU" where there is none), every point has its CPU baseline, a variant refuses the other
# primitives' points naming what it is; impossible parameters are refused in one line with exit 2,
# nothing written.
B="$BIN/bench-primitives"
source "$(dirname "$0")/cli_lib.sh"

run_ci_config primitives
python3 - "$T/run/primitives.json" <<'PY' && ok || bad "ci config records"
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
cpu = {"map": "cpu_map", "scatter": "cpu_scatter", "gather": "cpu_gather", "scan": "cpu_scan", "split": "cpu_split", "sort": "cpu_sort"}
ops = set()
for r in recs:
    op = r["params"]["op"]
    ops.add(op)
    if r["variant"] == cpu[op]:
        assert r["validation"] == "pass", r
    elif r["kind"] == "cpu":
        assert r["status"] == "skipped" and "primitive" in r["note"], r
    if r["variant"] == "split" and op != "split":
        assert r["status"] == "skipped" and ("a split primitive" in r["note"] or r["note"] == "no GPU"), r
assert ops == set(cpu), ops
PY

expect_refusal n_zero '{"study": "primitives", "axes": {"n": 0}}' "'axes.n': 0 is out of range"
expect_refusal n_huge '{"study": "primitives", "axes": {"n": "2^31"}}' "'axes.n'"
expect_refusal fanout_one '{"study": "primitives", "axes": {"n": 100, "fanout": 1}}' "'axes.fanout': 1 is out of range"
expect_refusal fanout_huge '{"study": "primitives", "axes": {"n": 100, "fanout": 8192}}' "'axes.fanout'"
expect_refusal op '{"study": "primitives", "axes": {"n": 100, "op": "join"}}' "unknown value 'join'"
expect_refusal variant '{"study": "primitives", "variants": ["cpu_splt"], "axes": {"n": 100}}' "cpu_splt"

finish cli_primitives
