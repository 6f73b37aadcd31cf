#!/usr/bin/env bash
# bench-histogram end to end without images: the CI config runs and validates (CPU variant; GPU
# variants "no GPU" where there is none), a missing image and impossible combinations are refused in
# one line with exit 2 before any work.
set -u
B="$BIN/bench-histogram"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0; passes=0
ok() { passes=$((passes+1)); }
bad() { echo "FAIL: $*"; fails=$((fails+1)); }

"$B" --config "$SRC/configs/ci/histogram.json" --out "$T/run" >"$T/stdout" 2>"$T/stderr"; rc=$?
[ $rc -eq 0 ] && ok || bad "ci config: exit $rc: $(tail -3 "$T/stderr")"
[ -s "$T/run/histogram.json" ] && [ -s "$T/run/histogram.csv" ] && ok || bad "ci config: result files missing"
grep -q '"validation": "fail"' "$T/run/histogram.json" && bad "ci config: a validation failed" || ok
grep -q '"validation": "pass"' "$T/run/histogram.json" && ok || bad "ci config: nothing validated"

# expect_refusal NAME CONFIG_TEXT PATTERN: exit 2, one line naming PATTERN, nothing written.
expect_refusal() {
  printf '%s' "$2" > "$T/$1.json"
  LP_IMAGE_DIR="$T/no-images" "$B" --config "$T/$1.json" --out "$T/out-$1" >/dev/null 2>"$T/err"; local rc=$?
  if [ $rc -ne 2 ] || [ "$(wc -l < "$T/err")" -ne 1 ] || ! grep -q -- "$3" "$T/err" || [ -e "$T/out-$1" ]; then
    bad "$1: rc=$rc $(cat "$T/err")"
  else
    ok
  fi
}
expect_refusal missing_image '{"study": "histogram", "axes": {"n": 1000, "input": "image", "image": "coffee.r"}}' "no-images/coffee.r.u8 not found"
expect_refusal u8_bins '{"study": "histogram", "axes": {"n": 1000, "bins": 4096}}' "u8 samples have at most 256 bins"
expect_refusal u32_image '{"study": "histogram", "axes": {"n": 1000, "sample": "u32", "input": "image"}}' "images are byte samples"

echo "cli_histogram: $passes passed, $fails failed"
[ $fails -eq 0 ]
