// Where to cut sorted A and B among several GPUs: ModernGPU's merge-path partition
// (MergePathPartitions) one level up, from tiles to devices. Cut k lies on the cross diagonal
// k * (|A| + |B|) / parts of the merge of A and B, so every GPU gets the same number of keys of
// A and B together whatever the ratio and the key distribution, and GPU k's needles
// A[a_k, a_k+1) have their bounds in B[b_k, b_k+1]: bound into B = b_k + bound into its slice.
#pragma once
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "bounds.hpp"

namespace lp::sortedsearch {

struct Cut {
  std::int64_t a = 0, b = 0;  // A[0, a) and B[0, b) come before the cut on the merge path
};

// parts + 1 cuts, the first (0, 0), the last (|A|, |B|); diagonal k holds the first k parts of
// |A| + |B| keys cut as evenly as possible (the first (|A| + |B|) % parts parts one key more).
// Bounds B fixes the merge's order of equal keys, so that the slices give B's bounds.
template <Bounds B, class T, class Comp = Less>
std::vector<Cut> merge_path_cuts(const T* a, std::int64_t a_count, const T* b, std::int64_t b_count, int parts, Comp comp = {}) {
  const std::int64_t n = a_count + b_count, q = n / parts, r = n % parts;
  std::vector<Cut> cuts(static_cast<std::size_t>(parts) + 1);
  for (int k = 0; k <= parts; ++k) {
    const std::int64_t diag = k * q + (k < r ? k : r);
    const std::int64_t ak = merge_path<B>(a, a_count, b, b_count, diag, comp);
    cuts[static_cast<std::size_t>(k)] = {ak, diag - ak};
  }
  return cuts;
}

// The same cuts, each inner one moved along the merge path to an A position that is a multiple of
// `align` where that costs the parts at most max(64, (|A| + |B|) / parts / 64) keys of balance (else
// it stays). Why: part k of the output lands at offset a_k of GPU 0's array, and NCCL's receive
// into an address that is not 16-byte aligned leaves its vector copy for a slow one (measured on
// H200s: GPU 0's gather of four parts at 2^23 + 2^23 keys took 0.150 ms at the exact cuts against
// 0.096 ms at aligned offsets, results/h200x4/multi-gpu/figures/ranks_targets.md). A cut at A
// position p puts before it the B keys the merge takes before A[p]: its bound into B.
template <Bounds B, class T, class Comp = Less>
std::vector<Cut> merge_path_cuts_aligned(const T* a, std::int64_t a_count, const T* b, std::int64_t b_count, int parts, std::int64_t align,
                                         Comp comp = {}) {
  std::vector<Cut> cuts = merge_path_cuts<B>(a, a_count, b, b_count, parts, comp);
  const std::int64_t slack = std::max<std::int64_t>(64, (a_count + b_count) / parts / 64);
  for (std::size_t k = 1; k + 1 < cuts.size(); ++k) {
    const Cut exact = cuts[k], &before = cuts[k - 1], &after = cuts[k + 1];
    std::int64_t best_off = -1;
    for (const std::int64_t p : {exact.a / align * align, (exact.a + align - 1) / align * align}) {
      if (p < before.a || p > after.a) continue;
      const std::int64_t q = p == a_count ? b_count : bound_in<B>(b, 0, b_count, a[p], comp);
      if (q < before.b || q > after.b) continue;
      const std::int64_t off = std::llabs((p + q) - (exact.a + exact.b));
      if (off <= slack && (best_off < 0 || off < best_off)) cuts[k] = {p, q}, best_off = off;
    }
  }
  return cuts;
}

}  // namespace lp::sortedsearch
