# Sourced by the end-to-end tests of the executables and scripts (test_cli_<study>.sh, the figures'
# and the regret scripts' tests): a scratch folder, counters, the CI config's run and its checks
# (expects $B, the study executable, and $SRC), the refusal check, and the matplotlib check.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0; passes=0
ok() { passes=$((passes+1)); }
bad() { echo "FAIL: $*"; fails=$((fails+1)); }

# need_matplotlib: PY, a python3 with matplotlib (Debian's first); without one the test is skipped (77).
need_matplotlib() {
  PY=""
  for p in /usr/bin/python3 python3; do
    if "$p" -c 'import matplotlib' 2>/dev/null; then PY=$p; break; fi
  done
  [ -n "$PY" ] || { echo "no python3 with matplotlib: skipped"; exit 77; }
}

# run_ci_config STUDY: configs/ci/STUDY.json runs, writes JSON and CSV, validates, fails nothing.
run_ci_config() {
  "$B" --config "$SRC/configs/ci/$1.json" --out "$T/run" >"$T/stdout" 2>"$T/stderr"; local rc=$?
  [ $rc -eq 0 ] && ok || bad "ci config: exit $rc: $(tail -3 "$T/stderr")"
  [ -s "$T/run/$1.json" ] && [ -s "$T/run/$1.csv" ] && ok || bad "ci config: result files missing"
  grep -q '"validation": "fail"' "$T/run/$1.json" && bad "ci config: a validation failed" || ok
  grep -q '"validation": "pass"' "$T/run/$1.json" && ok || bad "ci config: nothing validated"
}

# expect_refusal NAME CONFIG_TEXT PATTERN: exit 2, one line naming PATTERN, nothing written.
expect_refusal() {
  printf '%s' "$2" > "$T/$1.json"
  "$B" --config "$T/$1.json" --out "$T/out-$1" >/dev/null 2>"$T/err"; local rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l < "$T/err")" -ne 1 ] || ! grep -q -- "$3" "$T/err" || [ -e "$T/out-$1" ]; then
    bad "$1: rc=$rc $(cat "$T/err")"
  else
    ok
  fi
}

# finish NAME: the summary line, and the exit status.
finish() {
  echo "$1: $passes passed, $fails failed"
  [ $fails -eq 0 ]
}
