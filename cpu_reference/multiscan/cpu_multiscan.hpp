// CPU multiscan in both modes (thesis 1.2): the sequential algorithm (Alg 2.3), the same after a
// partial radix sort (Alg 2.5) and the brute-force oracle. cpu_reference/cpu_memory/multiscan.hpp
// has the exclusive forms the cpu study times; these add the inclusive mode with the kernels' own
// step (kernels/multiscan/step.hpp) and reuse the one partial radix sort of Algs 2.4-2.6.
#pragma once
#include <cstdint>
#include <vector>

#include "../../kernels/multiscan/step.hpp"
#include "../multireduce/cpu_multireduce.hpp"

namespace lp::cpu {

// Alg 2.3 (inclusive: the step's result after the input joins). `buckets` is the caller's m entries.
template <class Op>
void multiscan_sequential(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                          bool inclusive, typename Op::value_type* buckets, typename Op::value_type* result) {
  for (std::uint32_t b = 0; b < m; ++b) buckets[b] = Op::identity();
  for (std::int64_t i = 0; i < n; ++i) result[i] = multiscan::scan_step<Op>(buckets[labels[i]], values[i], inclusive);
}

// Alg 2.5: stable partial sort of (label, index, value) by the top sort_bits label bits, Alg 2.3
// over the sorted triples, each result written back to its input's index.
template <class Op>
void multiscan_sorted(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                      int sort_bits, bool inclusive, typename Op::value_type* buckets, typename Op::value_type* result,
                      SortScratch<typename Op::value_type>* scratch = nullptr) {
  if (effective_sort_bits(m, sort_bits) == 0) return multiscan_sequential<Op>(labels, values, n, m, inclusive, buckets, result);
  SortScratch<typename Op::value_type> local;
  SortScratch<typename Op::value_type>& s = scratch ? *scratch : local;
  partial_sort_by_top_bits(labels, values, n, m, sort_bits, true, s);
  for (std::uint32_t b = 0; b < m; ++b) buckets[b] = Op::identity();
  for (std::int64_t j = 0; j < n; ++j) result[s.index[j]] = multiscan::scan_step<Op>(buckets[s.labels[j]], s.values[j], inclusive);
}

// Oracle: each input's result folded from scratch out of the earlier (and, inclusive, its own)
// inputs with its label, bucket by bucket, sharing no code with the algorithms above.
template <class Op>
std::vector<typename Op::value_type> multiscan_brute_force(const std::vector<std::uint32_t>& labels,
                                                            const std::vector<typename Op::value_type>& values, std::uint32_t m,
                                                            bool inclusive) {
  std::vector<std::vector<std::size_t>> per(m);
  for (std::size_t i = 0; i < labels.size(); ++i) per[labels[i]].push_back(i);
  std::vector<typename Op::value_type> out(labels.size());
  for (std::uint32_t b = 0; b < m; ++b)
    for (std::size_t k = 0; k < per[b].size(); ++k) {
      typename Op::value_type acc = Op::identity();
      for (std::size_t j = 0; j < k + (inclusive ? 1 : 0); ++j) acc = Op::apply(acc, values[per[b][j]]);
      out[per[b][k]] = acc;
    }
  return out;
}

}  // namespace lp::cpu
