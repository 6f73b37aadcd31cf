#!/usr/bin/env bash
# The multiscan study end to end without a GPU: a bad combination is refused in one line (exit 2,
# nothing written); the CI config runs (CPU variants) and validates.
set -u
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0
bad() { echo "FAIL: $*"; fails=$((fails+1)); }
printf '%s' '{"study": "multiscan", "axes": {"mode": "multitag", "type": "float32"}}' > "$T/bad.json"
"$BIN/bench" multiscan --config "$T/bad.json" --out "$T/bad" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q "multitag" "$T/err" && [ ! -e "$T/bad" ] || bad "multitag on float32: rc=$rc $(cat "$T/err")"
"$BIN/bench" multiscan --config "$SRC/configs/ci/multiscan.json" --out "$T/ms" >/dev/null 2>"$T/stderr"; rc=$?
[ $rc -eq 0 ] && [ -s "$T/ms/multiscan.json" ] && ! grep -q '"validation": "fail"' "$T/ms/multiscan.json" || bad "multiscan ci config: rc=$rc $(tail -2 "$T/stderr")"
grep -q '"variant": "cpu_sequential"' "$T/ms/multiscan.json" || bad "multiscan ci config: no cpu_sequential record"
echo "cli_multiscan: $fails failed"
[ $fails -eq 0 ]
