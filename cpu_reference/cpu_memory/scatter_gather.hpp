// Scatter and gather on the CPU (thesis section 1.2 definitions; Alg 2.1 and Alg 2.6), with the
// brute-force oracles the tests use. Plain C++.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "partial_sort.hpp"

namespace lp::cpu {

// Alg 2.1: result[indices[i]] = values[i] in input order, so the last writer wins. The result is
// initialised first (the thesis assumes it was): buckets no input names keep `init`.
template <class T>
void scatter_into(const std::uint32_t* labels, const T* values, std::int64_t n, T* result) {
  for (std::int64_t i = 0; i < n; ++i) result[labels[i]] = values[i];
}
template <class T>
void scatter_sequential(const std::uint32_t* labels, const T* values, std::int64_t n, std::uint32_t m, T init,
                        T* result) {
  for (std::uint32_t b = 0; b < m; ++b) result[b] = init;
  scatter_into(labels, values, n, result);
}

// Alg 2.4 applied to the scatter (thesis 2.x: "for scatter, the procedure is exactly the same"):
// the stable partial sort by the top sort_bits label bits, then Alg 2.1 over the sorted pairs, so
// consecutive writes fall into a small bucket range. Stable: the last writer still wins.
template <class T>
void scatter_sorted(const std::uint32_t* labels, const T* values, std::int64_t n, std::uint32_t m, int sort_bits, T* result,
                    SortScratch<T>* scratch = nullptr) {
  if (effective_sort_bits(m, sort_bits) == 0) return scatter_into(labels, values, n, result);
  SortScratch<T> local;
  SortScratch<T>& s = scratch ? *scratch : local;
  partial_sort_by_top_bits<T>(labels, values, n, m, sort_bits, false, s);
  scatter_into(s.labels.data(), s.values.data(), n, result);
}

// The check of thesis 1.2's second definition ("any one wins"): every bucket some input names holds
// the value of one of those inputs, every other bucket still holds `init`. Returns "" or the first
// bucket that breaks it. Compares bit patterns (floats included). O(n + m).
template <class T>
std::string scatter_any_mismatch(const std::uint32_t* labels, const T* values, std::int64_t n, const T* got, std::uint32_t m, T init) {
  auto same = [](const T& a, const T& b) { return std::memcmp(&a, &b, sizeof(T)) == 0; };
  std::vector<std::uint8_t> state(m, 0);  // 0: no input names it, 1: named, no match yet, 2: matched
  for (std::int64_t i = 0; i < n; ++i) {
    std::uint8_t& st = state[labels[i]];
    if (st != 2) st = same(got[labels[i]], values[i]) ? 2 : 1;
  }
  for (std::uint32_t b = 0; b < m; ++b) {
    if (state[b] == 1) return "bucket " + std::to_string(b) + " holds a value none of its inputs has";
    if (state[b] == 0 && !same(got[b], init)) return "bucket " + std::to_string(b) + " has no input but was written";
  }
  return {};
}

// Oracle: each bucket takes the value of the last input naming it (found walking backwards).
template <class T>
std::vector<T> scatter_brute_force(const std::vector<std::uint32_t>& labels, const std::vector<T>& values,
                                   std::uint32_t m, T init) {
  std::vector<T> out(m, init);
  std::vector<bool> set(m, false);
  for (std::size_t i = labels.size(); i-- > 0;)
    if (!set[labels[i]]) set[labels[i]] = true, out[labels[i]] = values[i];
  return out;
}

// Section 1.2: s_i = v[l_i] for a table v of m values and n labels.
template <class T>
void gather_sequential(const std::uint32_t* labels, const T* table, std::int64_t n, T* result) {
  for (std::int64_t i = 0; i < n; ++i) result[i] = table[labels[i]];
}

// The overlap probe of the cache simulator's model: table[l_i] += 1, independent
// read-modify-writes of an m-entry table, the multireduce's bucket access without its values.
template <class T>
void update_sequential(const std::uint32_t* labels, std::int64_t n, T* table) {
  for (std::int64_t i = 0; i < n; ++i) table[labels[i]] += T(1);
}

// Alg 2.6: sort the labels (with their positions) by the top sort_bits bits, gather from the table
// in sorted order (each segment touches a window of 2^(bits - sort_bits) table entries, so the
// table reads hit cache), and write each result back to its input position. The thesis gathers
// into a temporary and then permutes; fusing the two loops moves the same data once less.
template <class T>
void gather_sorted(const std::uint32_t* labels, const T* table, std::int64_t n, std::uint32_t m, int sort_bits,
                   T* result, SortScratch<T>* scratch = nullptr) {
  if (effective_sort_bits(m, sort_bits) == 0) return gather_sequential(labels, table, n, result);
  SortScratch<T> local;
  SortScratch<T>& s = scratch ? *scratch : local;
  partial_sort_by_top_bits<T>(labels, nullptr, n, m, sort_bits, true, s);
  for (std::int64_t j = 0; j < n; ++j) result[s.index[j]] = table[s.labels[j]];
}

// Oracle, written independently of the loops above.
template <class T>
std::vector<T> gather_brute_force(const std::vector<std::uint32_t>& labels, const std::vector<T>& table) {
  std::vector<T> out;
  out.reserve(labels.size());
  for (std::uint32_t l : labels) out.push_back(table.at(l));
  return out;
}

}  // namespace lp::cpu
