// CPU joins of two relations R and S of (key, rid) tuples, a tuple's rid being its position: the
// CPU side of He et al. 2008 (docs/references.md): the blocked
// non-indexed nested loop (NINLJ, equi or band predicate), the sort-merge join (SMJ) and the
// radix-partitioned hash join (HJ), on one thread or all of them, and the reference every join of
// the study is validated against. Plain C++, no CUDA.
//
// A join's result is a multiset of (rid_R, rid_S) pairs in no particular order. It is compared
// through a Digest (the count and an order-independent sum of hashed pairs, O(output), no sort)
// and, where it is small enough, pair for pair after sorting.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <cstring>
#include <functional>
#include <limits>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "../../kernels/join/keys.hpp"

namespace lp::cpu::join {

struct Pair {
  std::uint32_t r = 0, s = 0;  // rids: positions in R and in S
  friend bool operator==(Pair a, Pair b) { return a.r == b.r && a.s == b.s; }
  friend bool operator<(Pair a, Pair b) { return a.r != b.r ? a.r < b.r : a.s < b.s; }
};

// A bijection of 64-bit words, so distinct pairs hash apart (the GPU joins' hash too).
using lp::join::mix64;

// `sum` decides; the plain moments (sums of rid_R, rid_S and rid_R * rid_S, mod 2^64) are what a
// tool outside the suite can compute too (SQL: the DuckDB anchor validates by them).
struct Digest {
  std::uint64_t count = 0, sum = 0, sum_r = 0, sum_s = 0, sum_rs = 0;
  void add(Pair p) {
    ++count;
    sum += mix64((std::uint64_t(p.r) << 32) | p.s);
    sum_r += p.r;
    sum_s += p.s;
    sum_rs += std::uint64_t(p.r) * p.s;
  }
  friend bool operator==(const Digest& a, const Digest& b) {
    return a.count == b.count && a.sum == b.sum && a.sum_r == b.sum_r && a.sum_s == b.sum_s && a.sum_rs == b.sum_rs;
  }
};

inline Digest digest(const Pair* p, std::size_t n) {
  Digest d;
  for (std::size_t i = 0; i < n; ++i) d.add(p[i]);
  return d;
}

using lp::join::within;

template <class K>
struct Tuple {
  K key;
  std::uint32_t rid;
};

// What a join allocates, kept by the caller across calls so that a repeated join reuses its memory
// as a database's buffer pool would, instead of paying fresh pages every run (on a VM a page fault
// can cost more than the join's work on it). Any workspace gives the same result.
template <class K>
struct Workspace {
  std::vector<Tuple<K>> r, s;                          // R's and S's tuples, partitioned or sorted
  std::vector<std::size_t> r_offsets, s_offsets, hist;  // partition bounds, the partitioning's counts
  std::vector<std::vector<Pair>> parts;                // per thread: its pairs
  std::vector<std::vector<std::uint32_t>> heads, links;  // per thread: its partition's hash table
};

namespace detail {

inline unsigned workers(int threads) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  return threads > 0 ? unsigned(threads) : hw;
}

// f(w) for w in [0, n) on n threads (the calling thread is worker 0).
inline void on_threads(unsigned n, const std::function<void(unsigned)>& f) {
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < n; ++w) pool.emplace_back(f, w);
  f(0);
  for (auto& t : pool) t.join();
}

// The per-thread results into one array: what a join hands its consumer.
inline void concat(const std::vector<std::vector<Pair>>& parts, unsigned nw, std::vector<Pair>& out) {
  std::vector<std::size_t> at(nw + 1, 0);
  for (unsigned i = 0; i < nw; ++i) at[i + 1] = at[i] + parts[i].size();
  out.resize(at.back());
  on_threads(nw, [&](unsigned w) {
    if (!parts[w].empty()) std::memcpy(out.data() + at[w], parts[w].data(), parts[w].size() * sizeof(Pair));
  });
}

template <class K>
void tuples(const K* keys, std::size_t n, std::vector<Tuple<K>>& t) {
  t.resize(n);
  for (std::size_t i = 0; i < n; ++i) t[i] = {keys[i], std::uint32_t(i)};
}

// Both relations sorted by key: emit the cross product of every run of equal keys.
template <class K>
void merge(const Tuple<K>* r, std::size_t nr, const Tuple<K>* s, std::size_t ns, std::vector<Pair>& out) {
  std::size_t i = 0, j = 0;
  while (i < nr && j < ns) {
    if (r[i].key < s[j].key) {
      ++i;
    } else if (s[j].key < r[i].key) {
      ++j;
    } else {
      const K k = r[i].key;
      std::size_t ie = i, je = j;
      while (ie < nr && r[ie].key == k) ++ie;
      while (je < ns && s[je].key == k) ++je;
      for (std::size_t a = i; a < ie; ++a)
        for (std::size_t b = j; b < je; ++b) out.push_back({r[a].rid, s[b].rid});
      i = ie;
      j = je;
    }
  }
}

using lp::join::key_hash;

// Tuples of `keys` split into 2^bits partitions by `part(key)`, stable, on `nw` threads: each
// thread histograms its slice, a prefix over (partition, thread) places every slice, then each
// thread scatters its own. Fills `out` with the tuples and `offsets` with the partition bounds
// (2^bits + 1); `hist` is scratch.
template <class K, class Part>
void partition(const K* keys, std::size_t n, int bits, unsigned nw, Part part, std::vector<Tuple<K>>& out, std::vector<std::size_t>& offsets,
               std::vector<std::size_t>& hist) {
  const std::size_t parts = std::size_t(1) << bits;
  hist.assign(parts * nw, 0);  // [partition][thread]
  auto slice = [&](unsigned w) { return std::pair<std::size_t, std::size_t>(n * w / nw, n * (w + 1) / nw); };
  // Each thread counts and later places with its own array (the shared [partition][thread] table
  // would put both threads' counters in one cache line).
  on_threads(nw, [&](unsigned w) {
    const auto [lo, hi] = slice(w);
    std::vector<std::size_t> mine(parts, 0);
    for (std::size_t i = lo; i < hi; ++i) ++mine[part(keys[i])];
    for (std::size_t p = 0; p < parts; ++p) hist[p * nw + w] = mine[p];
  });
  offsets.assign(parts + 1, 0);
  std::size_t at = 0;
  for (std::size_t p = 0; p < parts; ++p) {
    offsets[p] = at;
    for (unsigned w = 0; w < nw; ++w) {
      const std::size_t c = hist[p * nw + w];
      hist[p * nw + w] = at;
      at += c;
    }
  }
  offsets[parts] = at;
  out.resize(n);
  on_threads(nw, [&](unsigned w) {
    const auto [lo, hi] = slice(w);
    std::vector<std::size_t> at(parts);
    for (std::size_t p = 0; p < parts; ++p) at[p] = hist[p * nw + w];
    for (std::size_t i = lo; i < hi; ++i) out[at[part(keys[i])]++] = {keys[i], std::uint32_t(i)};
  });
}

// Work items [0, n) handed out one at a time to `nw` threads, each with its own output, reserved
// for `expect` pairs in all (its share of them), so that the outputs do not grow by copies.
// f(item, worker, worker's output).
inline void for_each_item(std::size_t n, unsigned nw, std::size_t expect, std::vector<std::vector<Pair>>& parts,
                          const std::function<void(std::size_t, unsigned, std::vector<Pair>&)>& f) {
  if (parts.size() < nw) parts.resize(nw);
  std::atomic<std::size_t> next{0};
  on_threads(nw, [&](unsigned w) {
    parts[w].clear();  // keeps its memory
    parts[w].reserve(expect / nw + expect / (8 * nw) + 64);
    for (std::size_t i; (i = next.fetch_add(1)) < n;) f(i, w, parts[w]);
  });
}

}  // namespace detail

// The reference: R's tuples sorted by key, then each S tuple's range of keys within `band` by
// binary search. Simple enough to trust, and independent of the merge and the hash tables below.
// S is searched in contiguous slices on every core (a 2^26-tuple point takes minutes on one): the
// digest is a sum and the slices' pairs are joined in S's order, so the result does not depend on
// the thread count. `pairs` (optional) receives the result while it has at most `max_pairs` pairs
// (past that it is emptied: a huge result is digested, never held); the digest is always returned.
template <class K>
Digest reference(const std::vector<K>& r, const std::vector<K>& s, std::uint64_t band, std::vector<Pair>* pairs = nullptr,
                 std::uint64_t max_pairs = std::numeric_limits<std::uint64_t>::max()) {
  std::vector<Tuple<K>> t;
  detail::tuples(r.data(), r.size(), t);
  std::sort(t.begin(), t.end(), [](const Tuple<K>& a, const Tuple<K>& b) { return a.key != b.key ? a.key < b.key : a.rid < b.rid; });
  constexpr K kMin = std::numeric_limits<K>::lowest(), kMax = std::numeric_limits<K>::max();
  const unsigned nw = unsigned(std::min<std::size_t>(detail::workers(0), std::max<std::size_t>(1, s.size() / 65536)));
  std::vector<Digest> part(nw);
  std::vector<std::vector<Pair>> kept(nw);
  std::atomic<std::uint64_t> total{0};  // pairs so far, all slices: collecting stops past max_pairs
  detail::on_threads(nw, [&](unsigned w) {
    Digest d;
    std::vector<Pair>* mine = pairs ? &kept[w] : nullptr;
    for (std::size_t j = s.size() * w / nw, je = s.size() * (w + 1) / nw; j < je; ++j) {
      const K k = s[j];
      // [k - band, k + band], clamped to the type
      using U = std::make_unsigned_t<K>;  // distances to the type's ends, without signed overflow
      const K lo = std::uint64_t(U(U(k) - U(kMin))) <= band ? kMin : K(k - K(band));
      const K hi = std::uint64_t(U(U(kMax) - U(k))) <= band ? kMax : K(k + K(band));
      auto it = std::lower_bound(t.begin(), t.end(), lo, [](const Tuple<K>& a, K v) { return a.key < v; });
      const std::uint64_t before = d.count;
      for (; it != t.end() && it->key <= hi; ++it) {
        const Pair p{it->rid, std::uint32_t(j)};
        d.add(p);
        if (mine) mine->push_back(p);
      }
      // Past the cap (this slice's pairs or another's): stop holding them.
      if (mine && total.fetch_add(d.count - before, std::memory_order_relaxed) + (d.count - before) > max_pairs) {
        std::vector<Pair>().swap(*mine);
        mine = nullptr;
      }
    }
    part[w] = d;
  });
  Digest d;
  for (const Digest& p : part) {
    d.count += p.count;
    d.sum += p.sum;
    d.sum_r += p.sum_r;
    d.sum_s += p.sum_s;
    d.sum_rs += p.sum_rs;
  }
  if (pairs) {
    pairs->clear();
    if (d.count <= max_pairs) detail::concat(kept, nw, *pairs);
  }
  return d;
}

// NINLJ (He et al. 4.1), blocked for the cache: S in blocks that stay in L1, R streamed past each
// block; the predicate |r.key - s.key| <= band (band 0: the equi-join). One thread.
template <class K>
void nested_loop(const K* r, std::size_t nr, const K* s, std::size_t ns, std::uint64_t band, std::vector<Pair>& out) {
  out.clear();
  constexpr std::size_t kBlock = 4096;  // S keys per block: 16-32 KiB
  for (std::size_t b = 0; b < ns; b += kBlock) {
    const std::size_t be = std::min(ns, b + kBlock);
    for (std::size_t i = 0; i < nr; ++i)
      for (std::size_t j = b; j < be; ++j)
        if (within(r[i], s[j], band)) out.push_back({std::uint32_t(i), std::uint32_t(j)});
  }
}

// SMJ (He et al. 4.3) on one thread: sort both relations by key, merge.
template <class K>
void sort_merge(const K* r, std::size_t nr, const K* s, std::size_t ns, std::vector<Pair>& out, Workspace<K>* ws = nullptr) {
  Workspace<K> local;
  Workspace<K>& w = ws ? *ws : local;
  auto by_key = [](const Tuple<K>& a, const Tuple<K>& b) { return a.key < b.key; };
  detail::tuples(r, nr, w.r);
  detail::tuples(s, ns, w.s);
  std::sort(w.r.begin(), w.r.end(), by_key);
  std::sort(w.s.begin(), w.s.end(), by_key);
  out.clear();
  detail::merge(w.r.data(), nr, w.s.data(), ns, out);
}

// SMJ on every core: both relations range-partitioned on the key's top bits (after the minimum
// is subtracted) so that partition p of R can only match partition p of S, then each partition
// pair sorted and merged by whichever thread takes it.
template <class K>
void sort_merge_mt(const K* r, std::size_t nr, const K* s, std::size_t ns, int threads, std::vector<Pair>& out, Workspace<K>* ws = nullptr) {
  using U = std::make_unsigned_t<K>;
  Workspace<K> local;
  Workspace<K>& w = ws ? *ws : local;
  const unsigned nw = detail::workers(threads);
  K lo = std::numeric_limits<K>::max(), hi = std::numeric_limits<K>::lowest();
  for (std::size_t i = 0; i < nr; ++i) lo = std::min(lo, r[i]), hi = std::max(hi, r[i]);
  out.clear();
  if (nr == 0 || ns == 0) return;
  const std::uint64_t span = std::uint64_t(U(hi) - U(lo));
  int width = 0;  // bits of the span
  while (width < 64 && (span >> width) != 0) ++width;
  const int bits = std::min(width, std::max(4, 2 + 31 - __builtin_clz(nw * 8)));  // about 32 partitions per thread
  const int shift = width - bits;
  const std::size_t parts = std::size_t(1) << bits;
  // Keys of S outside R's range match nothing: they go to a partition of their own (the last + 1).
  auto part_r = [=](K k) { return std::size_t(std::uint64_t(U(k) - U(lo)) >> shift); };
  auto part_s = [=](K k) { return k < lo || k > hi ? parts : std::size_t(std::uint64_t(U(k) - U(lo)) >> shift); };
  detail::partition(r, nr, bits, nw, part_r, w.r, w.r_offsets, w.hist);
  detail::partition(s, ns, bits + 1, nw, part_s, w.s, w.s_offsets, w.hist);
  auto by_key = [](const Tuple<K>& a, const Tuple<K>& b) { return a.key < b.key; };
  detail::for_each_item(parts, nw, ns, w.parts, [&](std::size_t p, unsigned, std::vector<Pair>& mine) {
    Tuple<K>*a = w.r.data() + w.r_offsets[p], *b = w.s.data() + w.s_offsets[p];
    const std::size_t na = w.r_offsets[p + 1] - w.r_offsets[p], nb = w.s_offsets[p + 1] - w.s_offsets[p];
    if (na == 0 || nb == 0) return;
    std::sort(a, a + na, by_key);
    std::sort(b, b + nb, by_key);
    detail::merge(a, na, b, nb, mine);
  });
  detail::concat(w.parts, nw, out);
}

// The partition bits of the hash join: R's partitions of about 2^13 tuples (64-128 KiB with the
// table), so that build and probe stay in L2 (He et al. 4.4 size them to the GPU's local memory).
inline int hash_join_bits(std::size_t nr, int asked) {
  if (asked > 0) return asked;
  int b = 0;
  while (b < 18 && (nr >> b) > (std::size_t(1) << 13)) ++b;
  return b;
}

// HJ (He et al. 4.4): both relations radix-partitioned on the low bits of a hash of the key, then
// per partition a bucket-chained table built on R's tuples and probed with S's; partitions handed
// to `threads` threads (1: the single-threaded join; 0: every core).
template <class K>
void hash_join(const K* r, std::size_t nr, const K* s, std::size_t ns, int threads, int radix_bits, std::vector<Pair>& out,
               Workspace<K>* ws = nullptr) {
  Workspace<K> local;
  Workspace<K>& w = ws ? *ws : local;
  const unsigned nw = detail::workers(threads);
  const int bits = hash_join_bits(nr, radix_bits);
  const std::uint64_t mask = (std::uint64_t(1) << bits) - 1;
  auto part = [=](K k) { return std::size_t(detail::key_hash(k) & mask); };
  detail::partition(r, nr, bits, nw, part, w.r, w.r_offsets, w.hist);
  detail::partition(s, ns, bits, nw, part, w.s, w.s_offsets, w.hist);
  // Each thread's table (heads and links), kept across its partitions and calls.
  if (w.heads.size() < nw) w.heads.resize(nw), w.links.resize(nw);
  detail::for_each_item(std::size_t(1) << bits, nw, ns, w.parts, [&](std::size_t p, unsigned t, std::vector<Pair>& mine) {
    const Tuple<K>* a = w.r.data() + w.r_offsets[p];
    const Tuple<K>* b = w.s.data() + w.s_offsets[p];
    const std::size_t na = w.r_offsets[p + 1] - w.r_offsets[p], nb = w.s_offsets[p + 1] - w.s_offsets[p];
    if (na == 0 || nb == 0) return;
    std::size_t slots = 1;
    while (slots < 2 * na) slots <<= 1;
    std::vector<std::uint32_t>& head = w.heads[t];
    std::vector<std::uint32_t>& next = w.links[t];
    head.assign(slots, ~0u);
    if (next.size() < na) next.resize(na);
    // The hash's bits above the partition's choose the slot.
    for (std::size_t i = 0; i < na; ++i) {
      const std::size_t h = std::size_t(detail::key_hash(a[i].key) >> bits) & (slots - 1);
      next[i] = head[h];
      head[h] = std::uint32_t(i);
    }
    for (std::size_t j = 0; j < nb; ++j) {
      const std::size_t h = std::size_t(detail::key_hash(b[j].key) >> bits) & (slots - 1);
      for (std::uint32_t i = head[h]; i != ~0u; i = next[i])
        if (a[i].key == b[j].key) mine.push_back({a[i].rid, b[j].rid});
    }
  });
  detail::concat(w.parts, nw, out);
}

}  // namespace lp::cpu::join
