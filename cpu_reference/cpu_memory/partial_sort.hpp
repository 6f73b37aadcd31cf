// The partial radix sort shared by the sort-first CPU algorithms (thesis Algs 2.4-2.6): one stable
// counting-sort pass by the top `sort_bits` of the ceil(log2 m) label bits, carrying each input's
// original index (multiscan and gather must put results back in input order) and, optionally, its
// value. Multireduce's own Alg 2.4 lives in cpu_reference/multireduce (it needs no index).
#pragma once
#include <cstdint>
#include <vector>

#include "../multireduce/cpu_multireduce.hpp"

namespace lp::cpu {

// Clamps sort_bits to the label width; 0 means "no sort".
inline int effective_sort_bits(std::uint32_t m, int sort_bits) {
  const int bits = label_bits(m);
  return sort_bits < 0 ? 0 : sort_bits > bits ? bits : sort_bits;
}

// Stable, so inputs of one bucket keep their order: the sorted algorithms stay exact even for
// non-commutative operators. `values`/`out_values` may be null (gather sorts labels only).
template <class T>
void partial_sort_by_top_bits(const std::uint32_t* labels, const T* values, std::int64_t n, std::uint32_t m,
                              int sort_bits, std::uint32_t* out_labels, std::uint32_t* out_index, T* out_values) {
  sort_bits = effective_sort_bits(m, sort_bits);
  const int shift = label_bits(m) - sort_bits;
  std::vector<std::int64_t> start((std::size_t(1) << sort_bits) + 1, 0);
  for (std::int64_t i = 0; i < n; ++i) ++start[(labels[i] >> shift) + 1];
  for (std::size_t d = 1; d < start.size(); ++d) start[d] += start[d - 1];
  for (std::int64_t i = 0; i < n; ++i) {
    const std::int64_t at = start[labels[i] >> shift]++;
    out_labels[at] = labels[i];
    out_index[at] = static_cast<std::uint32_t>(i);
    if (values) out_values[at] = values[i];
  }
}

}  // namespace lp::cpu
