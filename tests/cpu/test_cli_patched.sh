#!/usr/bin/env bash
# bench-patched end to end: the CI config runs and validates (CPU variants; GPU variants "no GPU"
# where there is none), and impossible points (a patch rate beyond [0, 1], a bit width of 0 or wider
# than the type) are refused in one line naming the key, with exit 2, before anything is written.
B="$BIN/bench-patched"
source "$(dirname "$0")/cli_lib.sh"

run_ci_config patched
for v in cpu_apply cpu_apply_mt; do
  grep -q "\"variant\": \"$v\"" "$T/run/patched.json" && ok || bad "ci config: no record of $v"
done

expect_refusal rate_above_1 '{"study": "patched", "axes": {"n": 1000, "patch_rate": 1.5}}' "patch_rate: must be in \[0, 1\], not 1.5"
expect_refusal rate_negative '{"study": "patched", "axes": {"n": 1000, "patch_rate": -0.01}}' "patch_rate: must be in \[0, 1\]"
expect_refusal width_0 '{"study": "patched", "axes": {"n": 1000, "bit_width": 0}}' "bit_width: must be in 1..32 for u32, not 0"
expect_refusal width_40_u32 '{"study": "patched", "axes": {"n": 1000, "type": "u32", "bit_width": 40}}' "bit_width: must be in 1..32 for u32, not 40"
expect_refusal width_9_u8 '{"study": "patched", "axes": {"n": 1000, "type": "u8", "bit_width": 9}}' "bit_width: must be in 1..8 for u8, not 9"
expect_refusal threads_odd '{"study": "patched", "axes": {"n": 1000, "threads": 100}}' "threads: must be a multiple of 32"
expect_refusal unknown_kind '{"study": "patched", "axes": {"n": 1000, "patches": "zipf"}}' "patches"

finish cli_patched
