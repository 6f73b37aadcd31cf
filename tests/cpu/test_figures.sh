#!/usr/bin/env bash
# scripts/figures.py --check: every committed figure's plotted data and every committed
# table still come from the committed results; a results file changed in a copy must make the
# check fail and name the figure. Skipped (77) where no Python has matplotlib.
set -u
cd "$SRC"
source tests/cpu/cli_lib.sh
need_matplotlib
"$PY" scripts/figures.py --check > "$T/check.out" 2>&1 && passes=$((passes+1)) || { fails=$((fails+1)); echo "FAIL: the committed figures do not match the committed results:"; grep FAIL "$T/check.out"; }
# A planted change: one validated record of the Fig 4.13 run twice as slow, in a copy of results/.
cp -r results "$T/results"
"$PY" - "$T/results/h100/multireduce/fig4_13.json" <<'PY'
import json, sys
doc = json.load(open(sys.argv[1]))
r = next(r for r in doc["records"] if r["status"] == "ok" and r["validation"] == "pass" and r["kind"] == "ours")
r["time_ms"]["median"] *= 2
r["ns_per_input"] *= 2
json.dump(doc, open(sys.argv[1], "w"))
PY
"$PY" scripts/figures.py --results "$T/results" --check > "$T/planted.out" 2>&1; rc=$?
if [ $rc -eq 1 ] && grep -q "fig4_13.png: its plotted data differ" "$T/planted.out"; then passes=$((passes+1)); else fails=$((fails+1)); echo "FAIL: a changed result passed the check (exit $rc)"; tail -3 "$T/planted.out"; fi
echo "$passes passed, $fails failed"
[ $fails -eq 0 ]
