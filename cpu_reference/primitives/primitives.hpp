// He et al. 2008's data-parallel primitives (3.1; docs/references.md:
// map, scatter, gather, prefix scan, split, sort) on one CPU thread: the primitives study's
// references and CPU baselines. And the checks of the two outputs that admit more than one answer:
// a split (the order within a partition is free) and a sort (the order among equal keys is free).
// Tuples are (key, rid) words (kernels/join/tuples.hpp). Plain C++.
#pragma once
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "kernels/join/tuples.hpp"

namespace lp::cpu::primitives {

using lp::join::partition_of;
using lp::join::tuple_key;
using lp::join::tuple_rid;
using lp::join::tuple_word;

// Map (3.1.1): each key's partition id.
inline void map_partitions(const std::uint32_t* keys, std::int64_t n, std::uint32_t fanout, std::uint32_t* ids) {
  for (std::int64_t i = 0; i < n; ++i) ids[i] = partition_of(keys[i], fanout);
}

// Scatter and gather (3.1.2): out[loc[i]] = in[i] / out[i] = in[loc[i]].
template <class W>
void scatter(const W* in, const std::uint32_t* loc, std::int64_t n, W* out) {
  for (std::int64_t i = 0; i < n; ++i) out[loc[i]] = in[i];
}
template <class W>
void gather(const W* in, const std::uint32_t* loc, std::int64_t n, W* out) {
  for (std::int64_t i = 0; i < n; ++i) out[i] = in[loc[i]];
}

// Prefix scan (3.1.3): the exclusive prefix sum, modulo 2^32 as the GPU's 32-bit sums.
inline void exclusive_scan(const std::uint32_t* in, std::int64_t n, std::uint32_t* out) {
  std::exclusive_scan(in, in + n, out, std::uint32_t(0));
}

// How many tuples each of the fanout partitions gets.
inline std::vector<std::uint64_t> histogram(const std::uint64_t* tuples, std::int64_t n, std::uint32_t fanout) {
  std::vector<std::uint64_t> count(fanout, 0);
  for (std::int64_t i = 0; i < n; ++i) ++count[partition_of(tuple_key(tuples[i]), fanout)];
  return count;
}

// Split (3.1.4, Algorithm 1 with one thread): the histogram, its exclusive scan as the partitions'
// cursors, then each tuple to its partition's cursor; stable (input order within a partition).
// `cursor` is the caller's, so a timed repetition does not allocate.
inline void split(const std::uint64_t* in, std::int64_t n, std::uint32_t fanout, std::uint64_t* out, std::vector<std::uint64_t>& cursor) {
  cursor.assign(fanout, 0);
  for (std::int64_t i = 0; i < n; ++i) ++cursor[partition_of(tuple_key(in[i]), fanout)];
  std::exclusive_scan(cursor.begin(), cursor.end(), cursor.begin(), std::uint64_t(0));
  for (std::int64_t i = 0; i < n; ++i) out[cursor[partition_of(tuple_key(in[i]), fanout)]++] = in[i];
}

// Sort (3.1.5): the tuples by key, equal keys by rid (the words' order), into key and rid columns.
// `words` is the caller's scratch (n words).
inline void sort(const std::uint32_t* keys, const std::uint32_t* rids, std::int64_t n, std::uint32_t* out_keys, std::uint32_t* out_rids,
                 std::vector<std::uint64_t>& words) {
  words.resize(std::size_t(n));
  for (std::int64_t i = 0; i < n; ++i) words[std::size_t(i)] = tuple_word(keys[i], rids[i]);
  std::sort(words.begin(), words.end());
  for (std::int64_t i = 0; i < n; ++i) {
    out_keys[i] = tuple_key(words[std::size_t(i)]);
    out_rids[i] = tuple_rid(words[std::size_t(i)]);
  }
}

// "" when got[0, n) is a split of in[0, n) (rid = position) into `fanout` partitions: a
// permutation of the input (each rid once, with its own key), partition ids non-decreasing, and
// each partition the size `want` (the CPU's histogram) says. Else the first violation.
inline std::string split_mismatch(const std::uint64_t* in, std::int64_t n, std::uint32_t fanout, const std::vector<std::uint64_t>& want,
                                  const std::uint64_t* got) {
  if (want.size() != fanout) return "reference of " + std::to_string(want.size()) + " partitions, expected " + std::to_string(fanout);
  std::vector<char> seen(std::size_t(n), 0);
  std::vector<std::uint64_t> size(fanout, 0);
  std::uint32_t last = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint64_t t = got[i];
    const std::uint32_t rid = tuple_rid(t);
    auto at = [&] { return "tuple " + std::to_string(i) + " (key " + std::to_string(tuple_key(t)) + ", rid " + std::to_string(rid) + ")"; };
    if (std::int64_t(rid) >= n) return at() + ": no such rid";
    if (in[rid] != t) return at() + ": the input's tuple " + std::to_string(rid) + " has key " + std::to_string(tuple_key(in[rid]));
    if (seen[rid]) return at() + ": rid written twice";
    seen[rid] = 1;
    const std::uint32_t p = partition_of(tuple_key(t), fanout);
    if (p < last) return at() + ": partition " + std::to_string(p) + " after partition " + std::to_string(last);
    last = p;
    ++size[p];
  }
  for (std::uint32_t p = 0; p < fanout; ++p)
    if (size[p] != want[p]) return "partition " + std::to_string(p) + ": " + std::to_string(size[p]) + " tuples, expected " + std::to_string(want[p]);
  return {};
}

// "" when (got_keys, got_rids)[0, n) sorts the tuples (keys[rid], rid) by key: the keys those of
// `want` (the reference's sorted words) in order, each rid once and naming a tuple of that key (any
// order among equal keys). Else the first violation.
inline std::string sort_mismatch(const std::uint32_t* keys, std::int64_t n, const std::vector<std::uint64_t>& want, const std::uint32_t* got_keys,
                                 const std::uint32_t* got_rids) {
  if (std::int64_t(want.size()) != n) return "reference of " + std::to_string(want.size()) + " tuples, expected " + std::to_string(n);
  std::vector<char> seen(std::size_t(n), 0);
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint32_t k = got_keys[i], rid = got_rids[i];
    auto at = [&] { return "tuple " + std::to_string(i) + " (key " + std::to_string(k) + ", rid " + std::to_string(rid) + ")"; };
    if (k != tuple_key(want[std::size_t(i)])) return at() + ": expected key " + std::to_string(tuple_key(want[std::size_t(i)]));
    if (std::int64_t(rid) >= n) return at() + ": no such rid";
    if (keys[rid] != k) return at() + ": the input's tuple " + std::to_string(rid) + " has key " + std::to_string(keys[rid]);
    if (seen[rid]) return at() + ": rid written twice";
    seen[rid] = 1;
  }
  return {};
}

}  // namespace lp::cpu::primitives
