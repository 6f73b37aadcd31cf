// CPU references of ModernGPU's vectorized sorted search: CPUSortedSearch, CPUSortedSearch2 and
// CPUSortedSearch3 as the reference page gives them, SortedEqualityCount, and a per-needle binary
// search (std::lower_bound / std::upper_bound) that tests use as the oracle.
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "../../kernels/sortedsearch/bounds.hpp"

namespace lp::cpu {

using lp::sortedsearch::Bounds;
using lp::sortedsearch::kMatchBit;

// CPUSortedSearch: one linear pass, bound of every a into b (Bounds::Lower or Upper).
template <Bounds B, class T, class Comp = lp::sortedsearch::Less>
void sorted_search(const T* a, std::int64_t a_count, const T* b, std::int64_t b_count,
                   std::uint32_t* a_indices, Comp comp = {}) {
  std::int64_t ai = 0, bi = 0;
  while (ai < a_count) {
    bool p = bi >= b_count || lp::sortedsearch::take_a<B>(a[ai], b[bi], comp);
    if (p)
      a_indices[ai++] = static_cast<std::uint32_t>(bi);
    else
      ++bi;
  }
}

// CPUSortedSearch2/3 generalised over Bounds: bound of A into B and the opposite bound of B into A
// in the same pass; with `flags`, the most significant bit says that the key has a match in the
// other array. Either output may be null. Returns the match counts {A matched, B matched}.
template <Bounds B, class T, class Comp = lp::sortedsearch::Less>
std::pair<std::int64_t, std::int64_t> sorted_search_both(const T* a, std::int64_t a_count, const T* b,
                                                         std::int64_t b_count, std::uint32_t* a_indices,
                                                         std::uint32_t* b_indices, bool flags,
                                                         Comp comp = {}) {
  std::int64_t ai = 0, bi = 0, a_matches = 0, b_matches = 0;
  auto equal = [&](const T& x, const T& y) { return !comp(x, y) && !comp(y, x); };
  while (ai < a_count || bi < b_count) {
    bool p;
    if (bi >= b_count)
      p = true;
    else if (ai >= a_count)
      p = false;
    else
      p = lp::sortedsearch::take_a<B>(a[ai], b[bi], comp);
    if (p) {
      // Lower: a match for a[ai] can only be b[bi]; Upper: only b[bi - 1].
      bool match = B == Bounds::Lower ? (bi < b_count && equal(a[ai], b[bi]))
                                      : (bi > 0 && equal(a[ai], b[bi - 1]));
      a_matches += match;
      if (a_indices) a_indices[ai] = static_cast<std::uint32_t>(bi) | (flags && match ? kMatchBit : 0u);
      ++ai;
    } else {
      // Lower: a match for b[bi] can only be a[ai - 1]; Upper: only a[ai].
      bool match = B == Bounds::Lower ? (ai > 0 && equal(a[ai - 1], b[bi]))
                                      : (ai < a_count && equal(a[ai], b[bi]));
      b_matches += match;
      if (b_indices) b_indices[bi] = static_cast<std::uint32_t>(ai) | (flags && match ? kMatchBit : 0u);
      ++bi;
    }
  }
  return {a_matches, b_matches};
}

// Match-only output (MgpuSearchTypeMatch for A): 1 where a[i] occurs in b, else 0.
template <class T, class Comp = lp::sortedsearch::Less>
void sorted_match(const T* a, std::int64_t a_count, const T* b, std::int64_t b_count, std::uint32_t* out,
                  Comp comp = {}) {
  sorted_search_both<Bounds::Lower>(a, a_count, b, b_count, out, nullptr, true, comp);
  for (std::int64_t i = 0; i < a_count; ++i) out[i] = out[i] >> 31;
}

// SortedEqualityCount: occurrences in b of every key of a (upper bound minus lower bound).
template <class T, class Comp = lp::sortedsearch::Less>
void sorted_equality_count(const T* a, std::int64_t a_count, const T* b, std::int64_t b_count,
                           std::uint32_t* counts, Comp comp = {}) {
  std::vector<std::uint32_t> lower(static_cast<size_t>(a_count));
  sorted_search<Bounds::Lower>(a, a_count, b, b_count, lower.data(), comp);
  sorted_search<Bounds::Upper>(a, a_count, b, b_count, counts, comp);
  for (std::int64_t i = 0; i < a_count; ++i) counts[i] -= lower[static_cast<size_t>(i)];
}

// Vectorized binary search: every needle on its own (needles need not be sorted).
template <Bounds B, class T, class Comp = lp::sortedsearch::Less>
void binary_search(const T* a, std::int64_t a_count, const T* b, std::int64_t b_count,
                   std::uint32_t* out, Comp comp = {}) {
  for (std::int64_t i = 0; i < a_count; ++i)
    out[i] = static_cast<std::uint32_t>(
        B == Bounds::Lower ? std::lower_bound(b, b + b_count, a[i], comp) - b
                           : std::upper_bound(b, b + b_count, a[i], comp) - b);
}

}  // namespace lp::cpu
