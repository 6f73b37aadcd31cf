// CPU multireduce: the thesis's sequential algorithm (Alg 2.2), the same after a partial radix sort
// of the labels by their top sortBits bits (Alg 2.4), and a brute-force per-bucket fold that the
// tests use as the oracle. Plain C++; the operators are the kernels' own (operators.hpp).
#pragma once
#include <cstdint>
#include <vector>

#include "../../kernels/common/label_bits.hpp"
#include "../../kernels/multireduce/operators.hpp"

namespace lp::cpu {

// Alg 2.2: buckets start at the identity; every input updates its bucket in input order.
template <class Op>
void multireduce_sequential(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n,
                            std::uint32_t m, typename Op::value_type* buckets) {
  for (std::uint32_t b = 0; b < m; ++b) buckets[b] = Op::identity();
  for (std::int64_t i = 0; i < n; ++i) buckets[labels[i]] = Op::apply(buckets[labels[i]], values[i]);
}

using lp::label_bits;  // ceil(log2 m), shared with the kernels (kernels/common/label_bits.hpp)

// Clamps sort_bits to the label width; 0 means "no sort".
inline int effective_sort_bits(std::uint32_t m, int sort_bits) {
  const int bits = label_bits(m);
  return sort_bits < 0 ? 0 : sort_bits > bits ? bits : sort_bits;
}

// Where a partial sort puts its output. A caller that times repeated runs keeps one and passes it
// in: the vectors are sized (and their pages faulted) once, by the warm-up, not in every timed
// run; callers that pass none get a fresh one, as a one-off call needs.
template <class T>
struct SortScratch {
  std::vector<std::uint32_t> labels, index;
  std::vector<T> values;
  std::vector<std::int64_t> start;
};

// The partial radix sort of the thesis's sort-first algorithms (Algs 2.4-2.6): one stable
// counting-sort pass by the top `sort_bits` of the ceil(log2 m) label bits. Stable, so inputs of
// one bucket keep their order and the sorted algorithms stay exact for non-commutative
// operators. It carries each input's position when `with_index` (multiscan and gather put results
// back in input order) and its value when `values` is given.
// Its two passes apart (the cache-simulator study times each on its own, to price them):
// the count and prefix sum into s.start, then the scatter, which consumes s.start.
template <class T>
void partial_sort_count(const std::uint32_t* labels, std::int64_t n, std::uint32_t m, int sort_bits, SortScratch<T>& s) {
  sort_bits = effective_sort_bits(m, sort_bits);
  const int shift = label_bits(m) - sort_bits;
  s.start.assign((std::size_t(1) << sort_bits) + 1, 0);
  for (std::int64_t i = 0; i < n; ++i) ++s.start[(labels[i] >> shift) + 1];
  for (std::size_t d = 1; d < s.start.size(); ++d) s.start[d] += s.start[d - 1];
}
template <class T>
void partial_sort_scatter(const std::uint32_t* labels, const T* values, std::int64_t n, std::uint32_t m, int sort_bits,
                          bool with_index, SortScratch<T>& s) {
  sort_bits = effective_sort_bits(m, sort_bits);
  const int shift = label_bits(m) - sort_bits;
  s.labels.resize(static_cast<std::size_t>(n));
  if (with_index) s.index.resize(static_cast<std::size_t>(n));
  if (values) s.values.resize(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t at = s.start[labels[i] >> shift]++;
    s.labels[at] = labels[i];
    if (with_index) s.index[at] = static_cast<std::uint32_t>(i);
    if (values) s.values[at] = values[i];
  }
}
template <class T>
void partial_sort_by_top_bits(const std::uint32_t* labels, const T* values, std::int64_t n, std::uint32_t m, int sort_bits,
                              bool with_index, SortScratch<T>& s) {
  partial_sort_count(labels, n, m, sort_bits, s);
  partial_sort_scatter(labels, values, n, m, sort_bits, with_index, s);
}

// Alg 2.4: the partial sort, then Alg 2.2 over the sorted pairs, so consecutive updates fall into
// a small bucket range (cache-friendly for large m).
template <class Op>
void multireduce_sorted(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n,
                        std::uint32_t m, int sort_bits, typename Op::value_type* buckets,
                        SortScratch<typename Op::value_type>* scratch = nullptr) {
  if (effective_sort_bits(m, sort_bits) == 0) return multireduce_sequential<Op>(labels, values, n, m, buckets);
  SortScratch<typename Op::value_type> local;
  SortScratch<typename Op::value_type>& s = scratch ? *scratch : local;
  partial_sort_by_top_bits(labels, values, n, m, sort_bits, false, s);
  multireduce_sequential<Op>(s.labels.data(), s.values.data(), n, m, buckets);
}

// The oracle: each bucket folded from its own inputs, in input order, independently of the others.
template <class Op>
std::vector<typename Op::value_type> multireduce_brute_force(const std::vector<std::uint32_t>& labels,
                                                              const std::vector<typename Op::value_type>& values,
                                                              std::uint32_t m) {
  std::vector<std::vector<typename Op::value_type>> per(m);
  for (std::size_t i = 0; i < labels.size(); ++i) per[labels[i]].push_back(values[i]);
  std::vector<typename Op::value_type> out(m);
  for (std::uint32_t b = 0; b < m; ++b) {
    typename Op::value_type acc = Op::identity();
    for (const auto& v : per[b]) acc = Op::apply(acc, v);
    out[b] = acc;
  }
  return out;
}

}  // namespace lp::cpu
