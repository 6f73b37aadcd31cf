// The thesis's "enforced sequential" multireduce (Fig 2.8): the next bucket's address depends on
// the value just read, so the CPU cannot start the next load before the last one returns and the
// run shows the latency a purely sequential model (and the cache simulator) assumes.
#pragma once
#include <cstdint>
#include <vector>

#include "partial_sort.hpp"

namespace lp::cpu {

// Fig 2.8: label i is XORed with (previous bucket value & zero). `zero` is 0 at run time but
// unknown to the compiler (the caller reads it from a volatile), so the data dependency is real
// while the buckets updated stay exactly those of Alg 2.2: the result is validated exactly.
template <class Op>
void multireduce_enforced(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n,
                          std::uint32_t m, std::uint32_t zero, typename Op::value_type* buckets) {
  using T = typename Op::value_type;
  for (std::uint32_t b = 0; b < m; ++b) buckets[b] = Op::identity();
  std::uint32_t dep = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint32_t l = labels[i] ^ (dep & zero);
    const T x = buckets[l];
    dep = static_cast<std::uint32_t>(x);
    buckets[l] = Op::apply(x, values[i]);
  }
}

// Fig 2.8's sorting curve: the partial radix sort of Alg 2.4 first, then the enforced loop.
template <class Op>
void multireduce_enforced_sorted(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n,
                                 std::uint32_t m, int sort_bits, std::uint32_t zero,
                                 typename Op::value_type* buckets, SortScratch<typename Op::value_type>* scratch = nullptr) {
  if (effective_sort_bits(m, sort_bits) == 0) return multireduce_enforced<Op>(labels, values, n, m, zero, buckets);
  SortScratch<typename Op::value_type> local;
  SortScratch<typename Op::value_type>& s = scratch ? *scratch : local;
  partial_sort_by_top_bits(labels, values, n, m, sort_bits, false, s);
  multireduce_enforced<Op>(s.labels.data(), s.values.data(), n, m, zero, buckets);
}

}  // namespace lp::cpu
