// Where to cut sorted A and B among several GPUs: ModernGPU's merge-path partition
// (MergePathPartitions) one level up, from tiles to devices. Cut k lies on the cross diagonal
// k * (|A| + |B|) / parts of the merge of A and B, so every GPU gets the same number of keys of
// A and B together whatever the ratio and the key distribution, and GPU k's needles
// A[a_k, a_k+1) have their bounds in B[b_k, b_k+1]: bound into B = b_k + bound into its slice.
#pragma once
#include <cstdint>
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

}  // namespace lp::sortedsearch
