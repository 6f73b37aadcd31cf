#!/usr/bin/env bash
# bench reproduce as a user without a GPU runs it: the plan says the CPU chapter only; --quick runs
# it and writes REPORT.md beside the results; the same command again keeps what ran; a result
# removed is run again alone; the report of the committed runs as "this run" matches every thesis
# number on both sides; --report-only remakes the committed run's report; a run with a GPU (on
# stand-in executables) keeps the CPU timings alone and the simulator beside the GPU configs; bad
# arguments are one line and exit 2, with nothing written.
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

# --report-only on the committed H100 run: the report names the GPU the results ran on (not this
# machine), counts every config and runs nothing.
mkdir -p "$T/h100" && cp -r results/h100/reproduce/. "$T/h100/" && rm -rf "$T/h100/figures" "$T/h100/REPORT.md"
"$B" reproduce thesis --out "$T/h100" --report-only >"$T/ro" 2>&1 || fail "--report-only exited $?: $(tail -3 "$T/ro")"
head -1 "$T/h100/REPORT.md" | grep -q "NVIDIA H100" || fail "--report-only's report does not name the results' GPU: $(head -1 "$T/h100/REPORT.md")"
grep -q "22 of 22 configs have results" "$T/h100/REPORT.md" || fail "--report-only's report does not count the committed configs"
grep -q "nothing is run" "$T/ro" || fail "--report-only does not say that it runs nothing: $(cat "$T/ro")"
[ ! -d "$T/h100/.runs" ] || fail "--report-only ran something"
cmp -s results/h100/reproduce/state.json "$T/h100/state.json" || fail "--report-only changed state.json"

# The order of a run with a GPU, on stand-in executables that log when they start and end: the CPU
# study's timings first and alone, the cache simulator's runs beside the GPU configs; photographs
# that are missing are made, or the configs that read them are named as not run.
mkdir -p "$T/fakebin" "$T/noimages"
cat >"$T/fakebin/fake" <<'PY'
#!/usr/bin/env python3
import json, os, sys, time
study = os.path.basename(sys.argv[0])[len("bench-"):]
if "--gpu-info" in sys.argv:
    print(json.dumps({"present": True, "name": "a stand-in GPU"})); sys.exit(0)
out = sys.argv[sys.argv.index("--out") + 1]
with open(os.environ["FAKE_LOG"], "a") as f: f.write(f"start {study} {time.time()}\n")
time.sleep({"cachesim": 1.0, "cpu": 0.5}.get(study, 0.2))
os.makedirs(out, exist_ok=True)
json.dump({"meta": {"config": {}}, "records": [{"status": "ok", "validation": "pass", "params": {}}]}, open(os.path.join(out, study + ".json"), "w"))
with open(os.environ["FAKE_LOG"], "a") as f: f.write(f"end {study} {time.time()}\n")
PY
chmod +x "$T/fakebin/fake"
for s in cpu cachesim multireduce multiscan histogram scatter; do ln -s fake "$T/fakebin/bench-$s"; done
FAKE_LOG="$T/fake.log" LP_IMAGE_DIR="$T/noimages" "$LP_PYTHON" scripts/reproduce.py thesis --out "$T/order" --bin "$T/fakebin" >"$T/orderrun" 2>&1 \
  || fail "the stand-in run exited $?: $(tail -5 "$T/orderrun")"
"$LP_PYTHON" - "$T/fake.log" "$T/orderrun" <<'PY' || fail "the order of the stand-in run: see above"
import sys
ev = [l.split() for l in open(sys.argv[1])]
t = lambda kind, study: [float(x[2]) for x in ev if x[0] == kind and x[1] == study]
gpu = ("multireduce", "multiscan", "histogram", "scatter")
gpu_start = min(v for s in gpu for v in t("start", s)); gpu_end = max(v for s in gpu for v in t("end", s))
if not max(t("end", "cpu")) <= min(t("start", "cachesim") + [gpu_start]):
    sys.exit("the CPU study did not run first and alone")
if not min(t("start", "cachesim")) < gpu_end:
    sys.exit("the cache simulator did not run beside the GPU configs")
run = open(sys.argv[2]).read()
if not ("made the histogram study's photographs" in run or "not run: no photographs" in run):
    sys.exit("the missing photographs were neither made nor named: " + run[-400:])
print(f"stand-in run: cpu first, {len(t('start', 'cachesim'))} simulator runs beside {len([x for x in ev if x[0] == 'start' and x[1] in gpu])} GPU configs")
PY

for bad in "reproduce" "reproduce everything" "reproduce thesis --budget-min 0" "reproduce thesis --device -1" \
           "reproduce thesis --quick --budget-min 5"; do
  out=$("$B" $bad --out "$T/bad" 2>&1); rc=$?
  [ "$rc" -eq 2 ] || fail "'bench $bad' exited $rc, not 2"
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "'bench $bad' printed more than one line: $out"
  [ ! -e "$T/bad" ] || fail "'bench $bad' wrote $T/bad"
done
echo "test_reproduce: passed"
