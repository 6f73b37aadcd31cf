// CPU multireduce: the thesis's sequential algorithm (Alg 2.2), the same after a partial radix sort
// of the labels by their top sortBits bits (Alg 2.4), and a brute-force per-bucket fold that the
// tests use as the oracle. Plain C++; the operators are the kernels' own (operators.hpp).
#pragma once
#include <cstdint>
#include <vector>

#include "../../kernels/multireduce/operators.hpp"

namespace lp::cpu {

// Alg 2.2: buckets start at the identity; every input updates its bucket in input order.
template <class Op>
void multireduce_sequential(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n,
                            std::uint32_t m, typename Op::value_type* buckets) {
  for (std::uint32_t b = 0; b < m; ++b) buckets[b] = Op::identity();
  for (std::int64_t i = 0; i < n; ++i) buckets[labels[i]] = Op::apply(buckets[labels[i]], values[i]);
}

// Bits needed to address m buckets: ceil(log2 m).
inline int label_bits(std::uint32_t m) {
  int b = 0;
  while (b < 32 && (std::uint64_t(1) << b) < m) ++b;
  return b;
}

// Alg 2.4: a stable counting sort by the top `sort_bits` of the ceil(log2 m) label bits, then Alg
// 2.2 over the sorted pairs, so consecutive updates fall into a small bucket range (cache-friendly
// for large m). Stable, so it is exact for non-commutative operators too. The scratch vectors are
// the algorithm's own cost and are timed with it.
template <class Op>
void multireduce_sorted(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n,
                        std::uint32_t m, int sort_bits, typename Op::value_type* buckets) {
  using T = typename Op::value_type;
  const int bits = label_bits(m);
  if (sort_bits > bits) sort_bits = bits;
  if (sort_bits <= 0) return multireduce_sequential<Op>(labels, values, n, m, buckets);
  const int shift = bits - sort_bits;
  std::vector<std::int64_t> start((std::size_t(1) << sort_bits) + 1, 0);
  for (std::int64_t i = 0; i < n; ++i) ++start[(labels[i] >> shift) + 1];
  for (std::size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
  std::vector<std::uint32_t> sl(static_cast<std::size_t>(n));
  std::vector<T> sv(static_cast<std::size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) {
    std::int64_t at = start[labels[i] >> shift]++;
    sl[at] = labels[i];
    sv[at] = values[i];
  }
  multireduce_sequential<Op>(sl.data(), sv.data(), n, m, buckets);
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
