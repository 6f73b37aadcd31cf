#!/usr/bin/env bash
# bench-patched end to end: the CI config runs and validates (CPU variants; GPU variants "no GPU"
# where there is none), and impossible points (a patch rate beyond [0, 1], a bit width of 0 or wider
# than the type) are refused in one line naming the key, with exit 2, before anything is written.
set -u
B="$BIN/bench-patched"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0; passes=0
ok() { passes=$((passes+1)); }
bad() { echo "FAIL: $*"; fails=$((fails+1)); }

"$B" --config "$SRC/configs/ci/patched.json" --out "$T/run" >"$T/stdout" 2>"$T/stderr"; rc=$?
[ $rc -eq 0 ] && ok || bad "ci config: exit $rc: $(tail -3 "$T/stderr")"
[ -s "$T/run/patched.json" ] && [ -s "$T/run/patched.csv" ] && ok || bad "ci config: result files missing"
grep -q '"validation": "fail"' "$T/run/patched.json" && bad "ci config: a validation failed" || ok
grep -q '"validation": "pass"' "$T/run/patched.json" && ok || bad "ci config: nothing validated"
for v in cpu_apply cpu_apply_mt; do
  grep -q "\"variant\": \"$v\"" "$T/run/patched.json" && ok || bad "ci config: no record of $v"
done

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
expect_refusal rate_above_1 '{"study": "patched", "axes": {"n": 1000, "patch_rate": 1.5}}' "patch_rate: must be in \[0, 1\], not 1.5"
expect_refusal rate_negative '{"study": "patched", "axes": {"n": 1000, "patch_rate": -0.01}}' "patch_rate: must be in \[0, 1\]"
expect_refusal width_0 '{"study": "patched", "axes": {"n": 1000, "bit_width": 0}}' "bit_width: must be in 1..32 for u32, not 0"
expect_refusal width_40_u32 '{"study": "patched", "axes": {"n": 1000, "type": "u32", "bit_width": 40}}' "bit_width: must be in 1..32 for u32, not 40"
expect_refusal width_9_u8 '{"study": "patched", "axes": {"n": 1000, "type": "u8", "bit_width": 9}}' "bit_width: must be in 1..8 for u8, not 9"
expect_refusal threads_odd '{"study": "patched", "axes": {"n": 1000, "threads": 100}}' "threads: must be a multiple of 32"
expect_refusal unknown_kind '{"study": "patched", "axes": {"n": 1000, "patches": "zipf"}}' "patches"

echo "cli_patched: $passes passed, $fails failed"
[ $fails -eq 0 ]
