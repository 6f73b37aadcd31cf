#!/usr/bin/env bash
# bench reproduce as a user without a GPU runs it: the plan says the CPU chapter only; --quick runs
# it and writes REPORT.md beside the results; the same command again keeps what ran; a result
# removed is run again alone; bad arguments are one line and exit 2, with nothing written.
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

for bad in "reproduce" "reproduce everything" "reproduce thesis --budget-min 0" "reproduce thesis --device -1" \
           "reproduce thesis --quick --budget-min 5"; do
  out=$("$B" $bad --out "$T/bad" 2>&1); rc=$?
  [ "$rc" -eq 2 ] || fail "'bench $bad' exited $rc, not 2"
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] || fail "'bench $bad' printed more than one line: $out"
  [ ! -e "$T/bad" ] || fail "'bench $bad' wrote $T/bad"
done
echo "test_reproduce: passed"
