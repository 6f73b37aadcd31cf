#!/usr/bin/env bash
# bench-decimal end to end: the CI config runs and validates (the CPU queries); bad configs (a
# precision above 38, a scale above the precision, a price beyond decimal64, m = 0) are refused in
# one line with exit 2, nothing written; the double query counts the groups it gets wrong.
B="$BIN/bench-decimal"
source "$(dirname "$0")/cli_lib.sh"

run_ci_config decimal

expect_refusal precision '{"study": "decimal", "axes": {"n": 10, "price_precision": 39}}' "precision 39 exceeds 38"
expect_refusal scale '{"study": "decimal", "axes": {"n": 10, "price_precision": 3, "price_scale": 5}}' "scale 5 exceeds precision 3"
expect_refusal decimal64_price '{"study": "decimal", "axes": {"n": 10, "price_precision": 20}}' "at most 18 digits"
expect_refusal m_zero '{"study": "decimal", "axes": {"n": 10, "m": 0}}' "'axes.m': 0 is out of range"
expect_refusal n_zero '{"study": "decimal", "axes": {"n": 0}}' "'axes.n': 0 is out of range"
expect_refusal type '{"study": "decimal", "axes": {"n": 10, "type": "decimal256"}}' "type"
expect_refusal overflow '{"study": "decimal", "axes": {"n": 10, "on_overflow": "wrap"}}' "on_overflow"
expect_refusal zipf '{"study": "decimal", "axes": {"n": 10, "distribution": "zipf", "zipf_s": 0}}' "zipf_s"

# decimal64 nulls the wholesale product (m = 1: the only product) where decimal128 holds it; the
# fail mode fails the decimal64 query and not the decimal128 one; double gets cents wrong.
printf '%s' '{"study": "decimal", "variants": ["cpu_sequential", "cpu_mt"], "axes": [
  {"n": 200000, "m": 1, "type": ["decimal128", "decimal64"], "on_overflow": ["null", "fail"]},
  {"n": 200000, "m": 1000, "type": "double"}]}' > "$T/q.json"
"$B" --config "$T/q.json" --out "$T/q" >/dev/null 2>&1 && ok || bad "query run"
python3 - "$T/q/decimal.json" <<'PY' && ok || bad "query records"
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
assert recs and all(r["validation"] == "pass" for r in recs), [r["note"] for r in recs]
def pick(t, o="null"):
    return [r for r in recs if r["params"]["type"] == t and r["params"]["on_overflow"] == o]
assert all(r["metrics"]["null_groups"] == 0 and r["metrics"]["null_rows"] == 0 for r in pick("decimal128"))
assert all(r["metrics"]["null_groups"] == 1 and r["metrics"]["null_rows"] > 0 for r in pick("decimal64"))
assert all(r["metrics"]["failed"] == 1 for r in pick("decimal64", "fail"))
assert all(r["metrics"]["failed"] == 0 for r in pick("decimal128", "fail"))
assert all(r["metrics"]["product_type"] == "decimal(22,2)" and r["metrics"]["total_type"] == "decimal(32,2)" for r in recs)
d = pick("double")
assert d and all(r["metrics"]["wrong_groups"] > 0 for r in d), [r["metrics"] for r in d]
PY

finish cli_decimal
