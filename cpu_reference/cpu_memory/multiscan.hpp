// Exclusive multiscan on the CPU: the sequential algorithm (thesis Alg 2.3), the same after a
// partial radix sort (Alg 2.5), and the brute-force oracle. Plain C++; operators from operators.hpp.
#pragma once
#include <cstdint>
#include <vector>

#include "partial_sort.hpp"

namespace lp::cpu {

// Alg 2.3: result[i] is bucket labels[i]'s value before input i joins it (exclusive). The bucket
// array is the caller's scratch (m entries) so that its pages follow the study's page axis.
template <class Op>
void multiscan_sequential(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n,
                          std::uint32_t m, typename Op::value_type* buckets, typename Op::value_type* result) {
  for (std::uint32_t b = 0; b < m; ++b) buckets[b] = Op::identity();
  for (std::int64_t i = 0; i < n; ++i) {
    result[i] = buckets[labels[i]];
    buckets[labels[i]] = Op::apply(buckets[labels[i]], values[i]);
  }
}

// Alg 2.5: stable partial sort of (label, index, value) by the top sort_bits bits, Alg 2.3 over the
// sorted triples, each result written back to its input's position. Stability keeps each bucket's
// inputs in order, so the result equals Alg 2.3's exactly.
template <class Op>
void multiscan_sorted(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n,
                      std::uint32_t m, int sort_bits, typename Op::value_type* buckets,
                      typename Op::value_type* result, SortScratch<typename Op::value_type>* scratch = nullptr) {
  if (effective_sort_bits(m, sort_bits) == 0) return multiscan_sequential<Op>(labels, values, n, m, buckets, result);
  SortScratch<typename Op::value_type> local;
  SortScratch<typename Op::value_type>& s = scratch ? *scratch : local;
  partial_sort_by_top_bits(labels, values, n, m, sort_bits, true, s);
  for (std::uint32_t b = 0; b < m; ++b) buckets[b] = Op::identity();
  for (std::int64_t j = 0; j < n; ++j) {
    result[s.index[j]] = buckets[s.labels[j]];
    buckets[s.labels[j]] = Op::apply(buckets[s.labels[j]], s.values[j]);
  }
}

// Oracle: for each input, fold the earlier inputs with the same label (O(n) with per-bucket lists).
template <class Op>
std::vector<typename Op::value_type> multiscan_brute_force(const std::vector<std::uint32_t>& labels,
                                                            const std::vector<typename Op::value_type>& values,
                                                            std::uint32_t m) {
  using T = typename Op::value_type;
  std::vector<std::vector<std::size_t>> per(m);
  for (std::size_t i = 0; i < labels.size(); ++i) per[labels[i]].push_back(i);
  std::vector<T> out(labels.size());
  for (std::uint32_t b = 0; b < m; ++b) {
    T acc = Op::identity();
    for (std::size_t i : per[b]) out[i] = acc, acc = Op::apply(acc, values[i]);
  }
  return out;
}

}  // namespace lp::cpu
