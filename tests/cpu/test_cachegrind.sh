#!/usr/bin/env bash
# lp::cachesim against Cachegrind on the same address stream: for several D1/LL
# configurations the D1 and LL miss counts of the traced function must be EQUAL.
# Usage: test_cachegrind.sh <path to cachegrind_trace>. Exit 77 (skipped) without valgrind.
set -euo pipefail
BIN=${1:?usage: test_cachegrind.sh <cachegrind_trace>}
if ! command -v valgrind >/dev/null 2>&1; then
  echo "valgrind not installed: skipped"
  exit 77
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# "D1 bytes,ways,line LL bytes,ways,line": sizes are always given, because Cachegrind otherwise
# reads them from CPUID, which virtual machines report wrongly.
# The last two are wide: a 12-way D1 (48 KiB, the GPU host's) and a 38-way LL, as the host preset's L3.
for cfg in "32768,8,64 262144,16,64" "16384,4,64 131072,8,64" "32768,8,64 1048576,16,64" "8192,2,64 65536,4,64" "49152,12,64 2490368,38,64" "49152,12,64 4980736,38,64"; do
  read -r d1 ll <<<"$cfg"
  IFS=, read -r d1s d1w line <<<"$d1"
  IFS=, read -r lls llw _ <<<"$ll"
  evict=$(( 2 * lls ))
  valgrind --tool=cachegrind --cache-sim=yes --I1=32768,8,64 --D1="$d1" --LL="$ll" \
    --cachegrind-out-file="$tmp/cg.out" "$BIN" trace "$evict" >"$tmp/trace.txt" 2>"$tmp/vg.log" || {
    echo "valgrind run failed:"; cat "$tmp/vg.log"; exit 1; }
  read -r _ ev ia ba <"$tmp/trace.txt"
  # Sum the traced function's lines (every fl= block of fn=lp_cachegrind_traced), by event name.
  read -r cg_d1 cg_ll < <(awk '
    /^events:/ { for (i = 2; i <= NF; ++i) col[$i] = i; next }
    /^fn=/     { on = ($0 == "fn=lp_cachegrind_traced"); next }
    /^(fl|fi|fe|ob)=/ { next }
    on && /^[0-9]/ { d1 += $(col["D1mr"]) + $(col["D1mw"]); ll += $(col["DLmr"]) + $(col["DLmw"]) }
    END { printf "%d %d\n", d1, ll }' "$tmp/cg.out")
  read -r _ _ sim_d1 _ sim_ll < <("$BIN" replay "$d1s" "$d1w" "$line" "$lls" "$llw" "$evict" "$ev" "$ia" "$ba")
  status=EQUAL
  if [[ "$cg_d1" != "$sim_d1" || "$cg_ll" != "$sim_ll" ]]; then status=DIFFERENT; fail=1; fi
  echo "D1=$d1 LL=$ll: cachegrind D1 misses $cg_d1 LL misses $cg_ll | cachesim D1 $sim_d1 LL $sim_ll: $status"
  if (( cg_d1 == 0 )); then echo "no counts found for lp_cachegrind_traced"; fail=1; fi
done
exit $fail
