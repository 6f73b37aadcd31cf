#!/usr/bin/env bash
# bench-scatter end to end: the CI config runs and validates (CPU variants; GPU variants "no GPU"
# where there is none); impossible parameters are refused in one line with exit 2, nothing written.
set -u
B="$BIN/bench-scatter"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0; passes=0
ok() { passes=$((passes+1)); }
bad() { echo "FAIL: $*"; fails=$((fails+1)); }

"$B" --config "$SRC/configs/ci/scatter.json" --out "$T/run" >"$T/stdout" 2>"$T/stderr"; rc=$?
[ $rc -eq 0 ] && ok || bad "ci config: exit $rc: $(tail -3 "$T/stderr")"
[ -s "$T/run/scatter.json" ] && [ -s "$T/run/scatter.csv" ] && ok || bad "ci config: result files missing"
grep -q '"validation": "fail"' "$T/run/scatter.json" && bad "ci config: a validation failed" || ok
grep -q '"validation": "pass"' "$T/run/scatter.json" && ok || bad "ci config: nothing validated"

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
expect_refusal m_zero '{"study": "scatter", "axes": {"n": 1000, "m": 0}}' "m"
expect_refusal permutation '{"study": "scatter", "axes": {"n": 1000, "m": 999, "distribution": "permutation"}}' "needs m = n"
expect_refusal type '{"study": "scatter", "axes": {"n": 1000, "type": "int8"}}' "type"
expect_refusal op '{"study": "scatter", "axes": {"n": 1000, "op": "permute"}}' "op"
expect_refusal zipf '{"study": "scatter", "axes": {"n": 1000, "distribution": "zipf", "zipf_s": 0}}' "zipf_s"
expect_refusal variant '{"study": "scatter", "variants": ["scater"], "axes": {"n": 1000}}' "scater"

echo "cli_scatter: $passes passed, $fails failed"
[ $fails -eq 0 ]
