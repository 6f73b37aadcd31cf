#!/usr/bin/env bash
# The DuckDB anchor on the decimal study end to end: bench decimal --dump-inputs, then
# scripts/duckdb/duckdb_anchor.mjs (its decimal module, scripts/duckdb/decimal.mjs) runs the query
# per product, sum(price * quantity) in DECIMAL(38, s), as a group-by and as the article's window
# plan, and validates every point exactly against the reference's groups, sum, min and max of the
# totals and moment; a tampered reference fails its record (exit 1); bad usage is refused in one
# line (exit 2) with no output. Skipped (77) where node or the @duckdb/node-api package
# (scripts/install_deps.sh installs it under scripts/duckdb/) is missing.
B="$BIN/bench-decimal"
S="$SRC/scripts/duckdb/duckdb_anchor.mjs"
if ! command -v node >/dev/null 2>&1 || [ ! -d "$SRC/scripts/duckdb/node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or scripts/duckdb/node_modules/@duckdb/node-api missing (scripts/install_deps.sh installs it)"
  exit 77
fi
source "$(dirname "$0")/cli_lib.sh"

printf '%s' '{"study": "decimal", "seed": 5, "axes": [
  {"n": [1, 1000, 4099], "m": [1, 7, 300], "distribution": ["uniform", "zipf"]}]}' > "$T/cfg.json"
"$B" --config "$T/cfg.json" --dump-inputs "$T/dump" >/dev/null 2>&1 && ok || bad "dump"
[ -s "$T/dump/manifest.json" ] && [ -s "$T/dump/p0/sales.csv" ] && ok || bad "dump files"
# Only decimal128 is dumped: another type is refused in one line, nothing written.
printf '%s' '{"study": "decimal", "seed": 5, "axes": [{"n": 100, "m": 7, "type": "double"}]}' > "$T/double.json"
"$B" --config "$T/double.json" --dump-inputs "$T/dump_double" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && [ ! -e "$T/dump_double" ] && ok || bad "dump of double: rc=$rc $(cat "$T/err")"
# A mixed config: the refusal names the point and its parameters; the points dumped before it are removed.
printf '%s' '{"study": "decimal", "seed": 5, "points": [{"n": 100, "m": 7, "type": "decimal128"}, {"n": 100, "m": 7, "type": "double"}]}' > "$T/mixed.json"
"$B" --config "$T/mixed.json" --dump-inputs "$T/dump_mixed" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q "point 1 (.*type=double" "$T/err" && [ ! -e "$T/dump_mixed" ] && [ ! -e "$T/dump_mixed.partial" ] && ok ||
  bad "dump of a mixed config: rc=$rc $(cat "$T/err")"

node "$S" "$T/dump" "$T/duck.json" --runs 2 --threads 2 >"$T/out" 2>&1 && ok || bad "duckdb run: $(tail -3 "$T/out")"
python3 - "$T/duck.json" "$T/dump/manifest.json" <<'PY' && ok || bad "duckdb records"
import json, sys
d = json.load(open(sys.argv[1]))
man = json.load(open(sys.argv[2]))
recs = d["records"]
assert d["meta"]["study"] == "decimal" and d["meta"]["variants"] == ["duckdb", "duckdb_window"], d["meta"]
assert len(recs) == 2 * len(man["points"]) == 36, len(recs)  # 18 points, group-by and window
assert sorted({r["variant"] for r in recs}) == ["duckdb", "duckdb_window"]
assert all(r["study"] == "decimal" and r["kind"] == "cpu" for r in recs)
assert all(r["validation"] == "pass" and r["time_ms"]["count"] == 2 for r in recs), [r["note"] for r in recs if r["note"]]
for i, r in enumerate(recs):  # per point in the manifest's order, its two statements
    m, pt = r["metrics"], man["points"][i // 2]
    assert r["params"] == pt["params"], (r["params"], pt["params"])
    assert m["total_type"] == f"DECIMAL(38,{pt['inputs']['price_scale']})", m
    assert m["groups"] == int(pt["inputs"]["groups"]), (m, pt)
    assert 1 <= m["groups"] <= min(r["params"]["n"], r["params"]["m"]), (m, r["params"])
    assert m["threads"] == 2 and m["duckdb"] and m["validated_by"]
assert any(r["metrics"]["groups"] == 1 for r in recs) and any(r["metrics"]["groups"] > 7 for r in recs)
PY

# A reference moment that does not match what DuckDB computes: that point's records fail, exit 1.
python3 - "$T/dump/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["points"][4]["inputs"]["moment"] = str(int(m["points"][4]["inputs"]["moment"]) + 1)
json.dump(m, open(sys.argv[1], "w"))
PY
node "$S" "$T/dump" "$T/bad.json" --runs 1 >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] && python3 - "$T/bad.json" <<'PY' && ok || bad "tampered moment: rc=$rc"
import json, sys
recs = json.load(open(sys.argv[1]))["records"]
failed = [r for r in recs if r["validation"] == "fail"]
assert len(failed) == 2 and all(r["note"].startswith("moment") for r in failed), [r["note"] for r in failed]
PY

# Bad usage: one line, exit 2, nothing written.
node "$S" "$T/nowhere" "$T/none.json" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && [ ! -e "$T/none.json" ] && ok || bad "missing dump: rc=$rc $(cat "$T/err")"
node "$S" "$T/dump" "$T/none.json" --runs 0 >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ ! -e "$T/none.json" ] && ok || bad "--runs 0: rc=$rc"
python3 - "$T/dump/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["points"][2]["inputs"]["type"] = "decimal64"
json.dump(m, open(sys.argv[1], "w"))
PY
node "$S" "$T/dump" "$T/none.json" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && [ ! -e "$T/none.json" ] && ok || bad "a decimal64 point: rc=$rc $(cat "$T/err")"

finish duckdb_decimal
