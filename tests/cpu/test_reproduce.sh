#!/usr/bin/env bash
# bench reproduce as a user without a GPU runs it: the plan says the CPU chapter only; --quick runs
# it and writes REPORT.md beside the results; the same command again keeps what ran; a result
# removed is run again alone; the report of the committed runs as "this run" matches every thesis
# number on both sides; bad arguments are one line and exit 2, with nothing written.
set -uo pipefail
cd "${SRC:?SRC is the source tree}"
B="${BIN:?BIN is the folder of the bench executables}/bench"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
if "$BIN/bench-multireduce" --gpu-info | grep -q '"present":true'; then
  echo "a GPU is present: this test is the CPU chapter's (the GPU reproduction runs on the GPU machine)"; exit 0
fi

"$B" reproduce thesis --plan --out "$T/r" >"$T/plan" 2>&1 || fail "--plan exited $?: $(cat "$T/plan")"
grep -q "CPU chapter only" "$T/plan" || fail "the plan does not say that only the CPU chapter runs: $(cat "$T/plan")"
grep -q "estimate:" "$T/plan" || fail "the plan has no estimate"
[ ! -e "$T/r/REPORT.md" ] || fail "--plan wrote a report"

"$B" reproduce thesis --quick --out "$T/r" >"$T/run" 2>&1 || fail "the quick CPU chapter exited $?: $(tail -5 "$T/run")"
for f in cpu/cpu.json cpu/cachesim.json cpu/cachesim_sort_bits.json REPORT.md state.json; do
  [ -s "$T/r/$f" ] || fail "$f missing after the run: $(tail -5 "$T/run")"
done
grep -q "No GPU" "$T/r/REPORT.md" || fail "the report does not say it ran without a GPU"
grep -q "^### Table 4.1" "$T/r/REPORT.md" || fail "the report lacks the GPU chapters' figures (listed as not run)"
grep -q "not run: no GPU" "$T/r/REPORT.md" || fail "the report does not list the GPU configs as not run"
[ ! -d "$T/r/.runs" ] || [ -z "$(ls -A "$T/r/.runs")" ] || fail "scratch runs left behind: $(ls "$T/r/.runs")"

"$B" reproduce thesis --quick --out "$T/r" >"$T/again" 2>&1 || fail "the resumed run exited $?"
grep -q "estimate: 0s for 0 configs (3 kept" "$T/again" || fail "the same command again ran something: $(cat "$T/again")"

rm "$T/r/cpu/cpu.json"
"$B" reproduce thesis --quick --out "$T/r" >"$T/one" 2>&1 || fail "the run of one config exited $?"
grep -q "for 1 configs (2 kept" "$T/one" || fail "a removed result was not the only config run: $(cat "$T/one")"
[ -s "$T/r/cpu/cpu.json" ] || fail "the removed result was not written again"

# The report on the GPU chapters, without a GPU: the committed H100 runs copied in as "this run"
# must give every thesis number a record on both sides (docs/thesis_values.json names points
# that match), ratios of 1.00 against the H100 and a verdict within 10% for every figure.
"$LP_PYTHON" - "$T/fake" <<'PY' || fail "the report of the committed runs as this run: see above"
import os, re, shutil, sys
sys.path.insert(0, "scripts")
import reproduce as R
class Args: pass
a = Args(); a.out = sys.argv[1]; a.target = "thesis"; a.quick = False; a.budget_min = None
plan = R.make_plan("thesis", os.environ["BIN"])
for e in plan:
    c = e.committed()
    if c:
        os.makedirs(os.path.join(a.out, e.group), exist_ok=True)
        shutil.copy(c, e.out_json(a.out))
R.write_report(a, plan, {"runs": {}}, {"present": True, "name": "the committed H100 runs"}, None, {}, "test")
rep = open(os.path.join(a.out, "REPORT.md")).read()
rows = [l for l in rep.splitlines() if l.startswith("| ") and not l.startswith("| point") and not l.startswith("| config") and "`configs/" not in l]
bad = [l for l in rows if not l.rstrip().endswith("| 1.00x |")]
verdicts = re.findall(r"\*\*Verdict:\*\* (.*)", rep)
if not rows or bad:
    sys.exit(f"{len(bad)} of {len(rows)} thesis points without a record on both sides, e.g. {bad[:3]}")
if not verdicts or any("within 10%" not in v for v in verdicts):
    sys.exit(f"verdicts: {verdicts}")
print(f"report of the committed runs: {len(rows)} points, {len(verdicts)} verdicts")
PY

for bad in "reproduce" "reproduce everything" "reproduce thesis --budget-min 0" "reproduce thesis --device -1" \
           "reproduce thesis --quick --budget-min 5"; do
  out=$("$B" $bad --out "$T/bad" 2>&1); rc=$?
  [ "$rc" -eq 2 ] || fail "'bench $bad' exited $rc, not 2"
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "'bench $bad' printed more than one line: $out"
  [ ! -e "$T/bad" ] || fail "'bench $bad' wrote $T/bad"
done
echo "test_reproduce: passed"
