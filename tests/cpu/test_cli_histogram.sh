#!/usr/bin/env bash
# bench-histogram end to end without images: the CI config runs and validates (CPU variant; GPU
# variants "no GPU" where there is none), a missing image and impossible combinations are refused in
# one line with exit 2 before any work.
B="$BIN/bench-histogram"
source "$(dirname "$0")/cli_lib.sh"

run_ci_config histogram
# No images: the refusal of a missing one.
export LP_IMAGE_DIR="$T/no-images"

expect_refusal missing_image '{"study": "histogram", "axes": {"n": 1000, "input": "image", "image": "coffee.r"}}' "no-images/coffee.r.u8 not found"
expect_refusal u8_bins '{"study": "histogram", "axes": {"n": 1000, "bins": 4096}}' "u8 samples have at most 256 bins"
expect_refusal u32_image '{"study": "histogram", "axes": {"n": 1000, "sample": "u32", "input": "image"}}' "images are byte samples"

finish cli_histogram
