#!/usr/bin/env bash
# bench-scatter end to end: the CI config runs and validates (CPU variants; GPU variants "no GPU"
# where there is none); impossible parameters are refused in one line with exit 2, nothing written.
B="$BIN/bench-scatter"
source "$(dirname "$0")/cli_lib.sh"

run_ci_config scatter

expect_refusal m_zero '{"study": "scatter", "axes": {"n": 1000, "m": 0}}' "'axes.m': 0 is out of range"
expect_refusal permutation '{"study": "scatter", "axes": {"n": 1000, "m": 999, "distribution": "permutation"}}' "needs m = n"
expect_refusal type '{"study": "scatter", "axes": {"n": 1000, "type": "int8"}}' "type"
expect_refusal op '{"study": "scatter", "axes": {"n": 1000, "op": "permute"}}' "op"
expect_refusal zipf '{"study": "scatter", "axes": {"n": 1000, "distribution": "zipf", "zipf_s": 0}}' "zipf_s"
expect_refusal variant '{"study": "scatter", "variants": ["scater"], "axes": {"n": 1000}}' "scater"

finish cli_scatter
