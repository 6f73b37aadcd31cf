#!/usr/bin/env bash
# End-to-end checks of the executables: bad input -> one line on stderr, exit 2, no result file;
# the CI config runs (CPU variants only without a GPU) and writes JSON + CSV; compare gates.
set -u
B="$BIN/bench"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fails=0; passes=0
ok() { passes=$((passes+1)); }
bad() { echo "FAIL: $*"; fails=$((fails+1)); }

# expect_usage_error NAME CONFIG_TEXT PATTERN
expect_usage_error() {
  local name=$1 text=$2 pattern=$3
  printf '%s' "$text" > "$T/$name.json"
  "$B" sortedsearch --config "$T/$name.json" --out "$T/out-$name" >"$T/stdout" 2>"$T/stderr"
  local rc=$?
  local lines; lines=$(wc -l < "$T/stderr")
  if [ $rc -ne 2 ]; then bad "$name: exit $rc, expected 2"; return; fi
  if [ "$lines" -ne 1 ]; then bad "$name: $lines lines on stderr, expected 1: $(cat "$T/stderr")"; return; fi
  if ! grep -q -- "$pattern" "$T/stderr"; then bad "$name: stderr '$(cat "$T/stderr")' lacks '$pattern'"; return; fi
  if [ -e "$T/out-$name" ]; then bad "$name: wrote results despite the error"; return; fi
  ok
}

expect_usage_error malformed '{"study": "sortedsearch", ' "not valid JSON"
expect_usage_error unknown_key '{"study": "sortedsearch", "axess": {}}' "did you mean 'axes'"
expect_usage_error wrong_type '{"study": "sortedsearch", "seed": "x"}' "'seed': expected an integer"
expect_usage_error out_of_range '{"study": "sortedsearch", "axes": {"a_size": "2^40"}}' "out of range"
expect_usage_error bad_size '{"study": "sortedsearch", "axes": {"a_size": "lots"}}' "cannot read 'lots' as a size"
expect_usage_error bad_choice '{"study": "sortedsearch", "axes": {"type": "int33"}}' "did you mean 'int32'"
expect_usage_error unknown_axis '{"study": "sortedsearch", "axes": {"b_sise": 4}}' "did you mean 'b_size'"
expect_usage_error unknown_variant '{"study": "sortedsearch", "variants": ["mergepath_lowr"]}' "did you mean 'mergepath_lower'"
expect_usage_error wrong_study '{"study": "multireduce"}' "not 'sortedsearch'"
expect_usage_error bad_reps '{"study": "sortedsearch", "repetitions": {"min": 0}}' "repetitions.min"
expect_usage_error unknown_rep_key '{"study": "sortedsearch", "repetitions": {"warmpu": 1}}' "did you mean 'warmup'"
expect_usage_error too_large '{"study": "sortedsearch", "points": [{"a_size": "2^30", "b_size": "2^30"}]}' "must not exceed"

# Unknown study and unknown variant on the command line.
"$B" sortedserch 2>"$T/err" >/dev/null; rc=$?
[ $rc -eq 2 ] && grep -q "did you mean 'sortedsearch'" "$T/err" && ok || bad "unknown study: rc=$rc $(cat "$T/err")"
"$B" sortedsearch --variants nope --out "$T/x" 2>"$T/err" >/dev/null; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && ok || bad "unknown --variants: rc=$rc"
"$B" sortedsearch --config "$T/missing.json" --out "$T/x" 2>"$T/err" >/dev/null; rc=$?
[ $rc -eq 2 ] && grep -q "cannot read" "$T/err" && ok || bad "missing config: rc=$rc"

# The CI config runs end to end (CPU variants without a GPU) and validates.
"$B" sortedsearch --config "$SRC/configs/ci/sortedsearch.json" --out "$T/run" >"$T/stdout" 2>"$T/stderr"; rc=$?
[ $rc -eq 0 ] && ok || bad "ci config run: exit $rc: $(tail -3 "$T/stderr")"
[ -s "$T/run/sortedsearch.json" ] && [ -s "$T/run/sortedsearch.csv" ] && ok || bad "ci config run: result files missing"
grep -q '"validation": "fail"' "$T/run/sortedsearch.json" && bad "ci config run: a validation failed" || ok
ls "$T/run" | grep -q tmp && bad "temporary file left behind" || ok
# Never overwrite without --force.
"$B" sortedsearch --config "$SRC/configs/ci/sortedsearch.json" --out "$T/run" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q -- "--force" "$T/err" && ok || bad "overwrite without --force: rc=$rc"
# A file compared with itself: no slow-down.
"$B" compare "$T/run/sortedsearch.json" "$T/run/sortedsearch.json" >"$T/cmp" 2>&1; rc=$?
[ $rc -eq 0 ] && grep -q "no slow-down" "$T/cmp" && ok || bad "self compare: rc=$rc"
"$B" compare "$T/run/sortedsearch.json" "$T/nothing.json" >/dev/null 2>&1; rc=$?
[ $rc -eq 2 ] && ok || bad "compare missing file: rc=$rc"
# export: written once, refused over an existing file (one line naming --force, the file kept), then
# overwritten with --force.
"$B" export --nvbench "$T/run/sortedsearch.json" "$T/nv.json" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && [ -s "$T/nv.json" ] && ok || bad "export: rc=$rc: $(cat "$T/err")"
echo kept >"$T/nv.json"
"$B" export --nvbench "$T/run/sortedsearch.json" "$T/nv.json" 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q -- "--force" "$T/err" && [ "$(cat "$T/nv.json")" = kept ] && ok ||
  bad "export over an existing file: rc=$rc: $(cat "$T/err")"
"$B" export --force --nvbench "$T/run/sortedsearch.json" "$T/nv.json" 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && grep -q '"benchmarks"' "$T/nv.json" && ok || bad "export --force: rc=$rc: $(cat "$T/err")"
# A negative device ordinal: one short line naming it.
"$B" sortedsearch --device -1 >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "device ordinal is 0 or more, got '-1'" "$T/err" && [ "$(wc -c <"$T/err")" -lt 200 ] && ok ||
  bad "--device -1: rc=$rc: $(cat "$T/err")"
# list and demo.
"$B" list | grep -q mergepath_complete && ok || bad "bench list"
"$B" sortedsearch --demo | grep -q "^checked:" && ok || bad "demo"

# The multireduce study: an operator on a type it does not define is refused before any work; its
# CI config runs (the CPU variants) and validates.
printf '%s' '{"study": "multireduce", "axes": {"op": "min", "type": "float32"}}' > "$T/mr_bad.json"
"$BIN/bench" multireduce --config "$T/mr_bad.json" --out "$T/mr_bad" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q "op 'min' works on int32" "$T/err" && [ ! -e "$T/mr_bad" ] && ok || bad "multireduce op/type: rc=$rc $(cat "$T/err")"
"$B" multireduce --config "$SRC/configs/ci/multireduce.json" --out "$T/mr" >/dev/null 2>"$T/stderr"; rc=$?
[ $rc -eq 0 ] && [ -s "$T/mr/multireduce.json" ] && ! grep -q '"validation": "fail"' "$T/mr/multireduce.json" && ok || bad "multireduce ci config: rc=$rc $(tail -2 "$T/stderr")"

# The CPU study's CI config runs and validates (no GPU needed).
"$B" cpu --config "$SRC/configs/ci/cpu.json" --out "$T/cpu" >/dev/null 2>"$T/stderr"; rc=$?
[ $rc -eq 0 ] && [ -s "$T/cpu/cpu.json" ] && ! grep -q '"validation": "fail"' "$T/cpu/cpu.json" && ok || bad "cpu ci config: rc=$rc $(tail -2 "$T/stderr")"

# The cache-simulator study: a hierarchy that cannot be simulated stops the run before any work,
# in one line naming the key (exit 2, no results); its CI config runs and validates.
cs_bad() {  # NAME HIERARCHY_JSON PATTERN
  printf '%s' "$2" > "$T/h_$1.json"
  printf '{"study": "cachesim", "axes": {"hierarchy": "%s", "n": 1024, "m": 16}}' "$T/h_$1.json" > "$T/cs_$1.json"
  "$B" cachesim --config "$T/cs_$1.json" --out "$T/cs_$1" >/dev/null 2>"$T/err"; local rc=$?
  [ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q -- "$3" "$T/err" && [ ! -e "$T/cs_$1" ] && ok || bad "cachesim $1: rc=$rc $(cat "$T/err")"
}
cs_bad zero_ways '{"levels": [{"size_bytes": 32768, "ways": 0}]}' "levels\[0\].ways: must be >= 1"
cs_bad not_multiple '{"levels": [{"size_bytes": 30000, "line_bytes": 64, "ways": 8}]}' "levels\[0\].size_bytes: 30000 is not a multiple"
cs_bad unknown_policy '{"levels": [{"size_bytes": 32768, "ways": 8, "policy": "fifo"}]}' "levels\[0\].policy: unknown policy 'fifo'"
cs_bad unknown_key '{"levels": [{"size_bytes": 32768, "assoc": 8}]}' "levels\[0\].assoc: unknown key"
printf '%s' '{"study": "cachesim", "axes": {"hierarchy": "pentium-4"}}' > "$T/cs_preset.json"
"$B" cachesim --config "$T/cs_preset.json" --out "$T/cs_preset" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q "hierarchy: 'pentium-4' is neither a preset" "$T/err" && ok || bad "cachesim unknown preset: rc=$rc $(cat "$T/err")"
# "host" reads sysfs; here a made-up machine (an L3 whose 3072 sets are no power of two, as the
# GPU host's 245760 are not) must parse, round and run.
for i in 0 1 2 3; do mkdir -p "$T/sys/index$i"; done
w() { printf '%s\n' "$3" > "$T/sys/index$1/$2"; }
w 0 level 1; w 0 type Data; w 0 size 48K; w 0 ways_of_associativity 12; w 0 coherency_line_size 64
w 1 level 1; w 1 type Instruction; w 1 size 32K; w 1 ways_of_associativity 8; w 1 coherency_line_size 64
w 2 level 2; w 2 type Unified; w 2 size 2048K; w 2 ways_of_associativity 16; w 2 coherency_line_size 64
w 3 level 3; w 3 type Unified; w 3 size 3072K; w 3 ways_of_associativity 16; w 3 coherency_line_size 64
printf '%s' '{"study": "cachesim", "variants": ["simulate"], "axes": {"hierarchy": "host", "n": 4096, "m": 64}}' > "$T/cs_host.json"
LP_SYSFS_CACHE_DIR="$T/sys" "$B" cachesim --config "$T/cs_host.json" --out "$T/cs_host" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && grep -q '"latency_ns.L3"' "$T/cs_host/cachesim.json" && ok || bad "cachesim host from sysfs: rc=$rc $(tail -2 "$T/err")"
LP_SYSFS_CACHE_DIR="$T/nothing" "$B" cachesim --config "$T/cs_host.json" --out "$T/cs_host2" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q "describes no data cache" "$T/err" && ok || bad "cachesim host without sysfs: rc=$rc $(cat "$T/err")"
# Without sysfs' description an x86 CPU's own report through CPUID stands in (virtual machines):
# here read alone, whatever sysfs holds.
if [ "$(uname -m)" = x86_64 ]; then
  LP_HOST_CACHES=cpuid "$B" cachesim --config "$T/cs_host.json" --out "$T/cs_cpuid" >/dev/null 2>"$T/err"; rc=$?
  [ $rc -eq 0 ] && grep -q '"latency_ns.L1"' "$T/cs_cpuid/cachesim.json" && ok || bad "cachesim host from CPUID: rc=$rc $(tail -2 "$T/err")"
fi
"$B" cachesim --config "$SRC/configs/ci/cachesim.json" --out "$T/cs" >/dev/null 2>"$T/stderr"; rc=$?
[ $rc -eq 0 ] && [ -s "$T/cs/cachesim.json" ] && ! grep -q '"validation": "fail"' "$T/cs/cachesim.json" && grep -q '"predicted_ns.overlap"' "$T/cs/cachesim.json" && ok || bad "cachesim ci config: rc=$rc $(tail -2 "$T/stderr")"

# The CPU-only studies take no GPU options and say nothing of a GPU.
"$B" cpu --help >"$T/help" 2>&1
! grep -q -- "--device\|--gpus" "$T/help" && ok || bad "bench cpu --help lists GPU options"
"$B" cachesim --gpus 2 --out "$T/cs2" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && [ ! -e "$T/cs2" ] && ok || bad "bench cachesim --gpus 2: rc=$rc $(cat "$T/err")"
"$B" cpu --config "$SRC/configs/ci/cpu.json" --out "$T/cpu2" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && ! grep -qi "gpu\|cuda" "$T/err" && ok || bad "bench cpu: rc=$rc, stderr mentions a GPU: $(head -2 "$T/err")"

# Several GPUs: --gpus sets the gpus axis of every point (the records say so; without a
# GPU the sharded variant is skipped and the CPU one runs); a study without the axis refuses it;
# n above 2^30 needs source host; a shard_variant that is not a one-GPU bucket variant is refused.
"$B" multireduce --config "$SRC/configs/ci/multireduce.json" --gpus 2 --variants sharded_auto,cpu_sequential --out "$T/g2" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && python3 -c "
import json,sys
d=json.load(open('$T/g2/multireduce.json'))
sys.exit(0 if d['records'] and all(r['params']['gpus']==2 for r in d['records']) and d['meta']['config']['set_axes']['gpus']==2 else 1)" \
  && ok || bad "--gpus 2: rc=$rc $(tail -2 "$T/err")"
"$B" multiscan --gpus 2 --out "$T/g3" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q "has no 'gpus' axis" "$T/err" && [ ! -e "$T/g3" ] && ok || bad "--gpus on multiscan: rc=$rc $(cat "$T/err")"
# Sorted search over several GPUs: each GPU's share must fit 31-bit indices (2^32 keys need 3 GPUs).
printf '%s' '{"study": "sortedsearch", "axes": {"a_size": "2^31", "b_size": "2^31", "gpus": 2}}' > "$T/ss_big.json"
"$B" sortedsearch --config "$T/ss_big.json" --out "$T/g6" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && [ "$(wc -l < "$T/err")" -eq 1 ] && grep -q "gpus \* (2^30 + 2^29)" "$T/err" && [ ! -e "$T/g6" ] && ok || bad "sortedsearch 2^32 keys on 2 GPUs: rc=$rc $(cat "$T/err")"
"$B" sortedsearch --config "$SRC/configs/ci/sortedsearch.json" --gpus 2 --variants sharded_lower,cpu_sorted_search --out "$T/g7" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 0 ] && python3 -c "
import json,sys
d=json.load(open('$T/g7/sortedsearch.json'))
st={r['variant']:r['status'] for r in d['records'] if r['params']['gpus']==2}
sys.exit(0 if st.get('cpu_sorted_search')=='ok' and 'sharded_lower' in st else 1)" \
  && ok || bad "sortedsearch --gpus 2: rc=$rc $(tail -2 "$T/err")"
printf '%s' '{"study": "multireduce", "axes": {"n": "2^31"}}' > "$T/big.json"
"$B" multireduce --config "$T/big.json" --out "$T/g4" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q "need source 'host'" "$T/err" && ok || bad "n 2^31 on the device: rc=$rc $(cat "$T/err")"
printf '%s' '{"study": "histogram", "axes": {"input": "uniform", "shard_variant": "cpu_sequential"}}' > "$T/sv.json"
"$B" histogram --config "$T/sv.json" --out "$T/g5" >/dev/null 2>"$T/err"; rc=$?
[ $rc -eq 2 ] && grep -q "shard_variant" "$T/err" && ok || bad "shard_variant cpu_sequential: rc=$rc $(cat "$T/err")"

# SIGTERM mid-run (a time limit): exit 3, the records measured so far written, the rest marked not
# run, meta.interrupted set. The CPU study's sequential multireduce over 40 points of 2^24 inputs
# takes half a minute, so the signal lands mid-run.
cat > "$T/long.json" <<'EOF2'
{"study": "cpu", "variants": ["multireduce_seq"], "axes": {"n": ["2^24"], "m": [16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32, 33, 34, 35, 36, 37, 38, 39, 40, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50, 51, 52, 53, 54, 55]},
 "repetitions": {"warmup": 0, "min": 3, "max": 3}}
EOF2
"$BIN/bench" cpu --config "$T/long.json" --out "$T/long" >"$T/stdout" 2>"$T/stderr" &
pid=$!
sleep 3
kill -TERM $pid
wait $pid; rc=$?
if [ $rc -ne 3 ]; then bad "interrupted run: exit $rc, expected 3: $(tail -2 "$T/stderr")"
elif ! python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
recs = d["records"]
assert d["meta"]["interrupted"].startswith("SIGTERM"), d["meta"].get("interrupted")
assert len(recs) == 40, len(recs)
ran = [r for r in recs if r["status"] == "ok"]
rest = [r for r in recs if r["note"].startswith("not run: the run was interrupted")]
assert ran and rest and len(ran) + len(rest) == 40, (len(ran), len(rest))
' "$T/long/cpu.json" 2>"$T/err"; then bad "interrupted run: $(tail -1 "$T/err")"
else ok; fi

# Every run ends with one summary line; without a GPU the skipped records fold into one line per
# reason (--verbose lists them), and a run where nothing ran (a GPU-only config) exits 4.
"$B" sortedsearch --config "$SRC/configs/ci/sortedsearch.json" --out "$T/sum" >"$T/stdout" 2>"$T/stderr"; rc=$?
last=$(tail -n 1 "$T/stdout")
case "$last" in
  "summary: "*" validated, 0 failed, "*" skipped"*) ok ;;
  *) bad "summary line: rc=$rc, last line '$last'" ;;
esac
if grep -q "no CUDA device found\|older than this build's CUDA runtime\|no usable CUDA device" "$T/stderr"; then
  grep -q "records\? skipped: no GPU; --verbose lists them" "$T/stdout" && ! grep -q "skipped (no GPU)" "$T/stdout" && ok ||
    bad "no GPU: skipped rows not folded: $(head -5 "$T/stdout")"
  "$B" sortedsearch --config "$SRC/configs/ci/sortedsearch.json" --verbose --out "$T/sumv" >"$T/stdout" 2>/dev/null
  grep -q "skipped (no GPU)" "$T/stdout" && ok || bad "--verbose: the skipped rows are not listed"
  "$B" sortedsearch --config "$SRC/configs/ci/sortedsearch.json" --variants mergepath_lower --out "$T/none" >"$T/stdout" 2>"$T/stderr"; rc=$?
  [ $rc -eq 4 ] && [ -s "$T/none/sortedsearch.json" ] && grep -q "nothing ran" "$T/stderr" && ok ||
    bad "nothing ran: exit $rc (expected 4): $(tail -2 "$T/stderr")"
fi

echo "cli: $passes passed, $fails failed"
[ $fails -eq 0 ]
