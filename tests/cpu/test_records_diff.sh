#!/usr/bin/env bash
# scripts/records_diff.py (the check that a refactor kept every record): the committed before/after
# results of a harness port (tests/data/records_diff/: the multireduce's CI config run by the
# binaries of before and after it, on the H100) compare equal, and a planted change (one skip reason, one record
# dropped) is found.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=tests/data/records_diff
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 scripts/records_diff.py "$dir/before_multireduce.json" "$dir/after_multireduce.json" >/dev/null
python3 - "$dir/after_multireduce.json" "$tmp/planted.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
skipped = next(r for r in d["records"] if r["status"] == "skipped")
skipped["note"] = "a different reason"
d["records"].pop()
json.dump(d, open(sys.argv[2], "w"))
PY
if python3 scripts/records_diff.py "$dir/before_multireduce.json" "$tmp/planted.json" >"$tmp/out"; then
  echo "FAIL: a planted change was not found"; exit 1
fi
grep -q "note" "$tmp/out" && grep -q "only in BEFORE" "$tmp/out" || { echo "FAIL: the report misses a planted change"; cat "$tmp/out"; exit 1; }
echo "test_records_diff: passed"
