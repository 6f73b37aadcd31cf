#!/usr/bin/env bash
# The DuckDB anchor end to end: bench join --dump-inputs, then scripts/duckdb/duckdb_anchor.mjs
# (its join module, scripts/duckdb/join.mjs) joins the dump in DuckDB and validates every point
# against the reference's count and moments; a tampered reference fails its record (exit 1); bad
# usage is refused in one line (exit 2) with no output. Skipped (77) where node or the
# @duckdb/node-api package (scripts/install_deps.sh installs it under scripts/duckdb/) is missing.
B="$BIN/bench-join"
S="$SRC/scripts/duckdb/duckdb_anchor.mjs"
if ! command -v node >/dev/null 2>&1 || [ ! -d "$SRC/scripts/duckdb/node_modules/@duckdb/node-api" ]; then
  echo "skipped: node or scripts/duckdb/node_modules/@duckdb/node-api missing (scripts/install_deps.sh installs it)"
  exit 77
fi
source "$(dirname "$0")/cli_lib.sh"

printf '%s' '{"study": "join", "seed": 5, "axes": [
  {"r": [1, 777, 3001], "s": 2049, "distribution": ["unique", "uniform", "zipf"], "key": ["int32", "int64"]},
  {"r": 1000, "s": 1000, "match": 0},
  {"r": 400, "s": 600, "distribution": "uniform", "band": 2, "key": "int64"}]}' > "$T/cfg.json"
"$B" --config "$T/cfg.json" --dump-inputs "$T/dump" >/dev/null 2>&1 && ok || bad "dump"
[ -s "$T/dump/manifest.json" ] && [ -s "$T/dump/p0/r.csv" ] && ok || bad "dump files"
# A second dump into the same directory is refused, the first kept.
"$B" --config "$T/cfg.json" --dump-inputs "$T/dump" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && [ -s "$T/dump/manifest.json" ] && ok || bad "dump over a dump: rc=$rc $(cat "$T/err")"

node "$S" "$T/dump" "$T/duck.json" --runs 2 --threads 2 >"$T/out" 2>&1 && ok || bad "duckdb run: $(tail -3 "$T/out")"
python3 - "$T/duck.json" <<'PY' && ok || bad "duckdb records"
import json, sys
d = json.load(open(sys.argv[1]))
recs = d["records"]
assert len(recs) == 40, len(recs)  # 20 points, materialised and aggregated
assert sorted({r["variant"] for r in recs}) == ["duckdb", "duckdb_agg"]
assert all(r["validation"] == "pass" and r["time_ms"]["count"] == 2 for r in recs), recs
assert any(r["metrics"]["pairs"] == 0 for r in recs)  # match 0: no pair
PY

# A reference that does not match what DuckDB finds: that record fails, exit 1.
python3 - "$T/dump/manifest.json" <<'PY'
import json, sys
m = json.load(open(sys.argv[1]))
m["points"][1]["inputs"]["sum_s"] = str(int(m["points"][1]["inputs"]["sum_s"]) + 1)
json.dump(m, open(sys.argv[1], "w"))
PY
node "$S" "$T/dump" "$T/bad.json" --runs 1 >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q '"validation": "fail"' "$T/bad.json" && ok || bad "tampered reference: rc=$rc"

# Bad usage: one line, exit 2, nothing written.
node "$S" "$T/nowhere" "$T/none.json" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && [ ! -e "$T/none.json" ] && ok || bad "missing dump: rc=$rc $(cat "$T/err")"
node "$S" "$T/dump" "$T/none.json" --runs 0 >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ ! -e "$T/none.json" ] && ok || bad "--runs 0: rc=$rc"

finish duckdb_join
