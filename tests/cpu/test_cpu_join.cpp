// The join study's CPU side: every CPU join (NINLJ with equi and band predicates, SMJ
// and the radix hash join on one thread and several) against a brute-force join on random small
// relations of both key types, with duplicates, empty relations, no match and all match (every key
// equal: |R| |S| pairs), the reference and its digest, and the relation generator (distinct
// primary keys, the match fraction, zipf's skew, int64 keys equal to int32 ones shifted).
#include <algorithm>
#include <cstdint>
#include <map>
#include <set>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "apps/join/relations.hpp"
#include "check.hpp"
#include "cpu_reference/join/join.hpp"

namespace {

namespace cj = lp::cpu::join;
using cj::Pair;

template <class K>
std::vector<Pair> brute(const std::vector<K>& r, const std::vector<K>& s, std::uint64_t band) {
  std::vector<Pair> out;
  for (std::size_t i = 0; i < r.size(); ++i)
    for (std::size_t j = 0; j < s.size(); ++j) {
      const long double d = (long double)r[i] - (long double)s[j];
      if ((d < 0 ? -d : d) <= (long double)band) out.push_back({std::uint32_t(i), std::uint32_t(j)});
    }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<Pair> sorted(std::vector<Pair> v) {
  std::sort(v.begin(), v.end());
  return v;
}

// Every join of the study on (r, s), against `want` (sorted).
template <class K>
void all_joins(const std::vector<K>& r, const std::vector<K>& s, std::uint64_t band, const std::vector<Pair>& want, const char* what) {
  std::vector<Pair> got;
  const cj::Digest dw = cj::digest(want.data(), want.size());
  std::vector<Pair> ref;
  CHECK_MSG(cj::reference(r, s, band, &ref) == dw, "reference digest " << what);
  CHECK_MSG(sorted(ref) == want, "reference pairs " << what);
  // Capped: the pairs kept while they fit, none (and the same digest) past the cap.
  for (std::uint64_t cap : {std::uint64_t(0), std::uint64_t(want.size()), std::uint64_t(want.size() + 1)}) {
    std::vector<Pair> capped;
    CHECK_MSG(cj::reference(r, s, band, &capped, cap) == dw, "capped reference digest " << what);
    CHECK_MSG(want.size() <= cap ? sorted(capped) == want : capped.empty(), "capped reference pairs cap=" << cap << " " << what);
  }
  cj::nested_loop(r.data(), r.size(), s.data(), s.size(), band, got);
  CHECK_MSG(sorted(got) == want, "nested_loop band=" << band << " " << what);
  if (band != 0) return;  // the rest are equi-joins
  // One workspace for every join of the test (every size, thread count and partitioning, in turn):
  // what a join leaves in it must never change the next one's result. And none (a fresh one).
  static cj::Workspace<K> kept;
  for (cj::Workspace<K>* ws : {&kept, static_cast<cj::Workspace<K>*>(nullptr)}) {
    cj::sort_merge(r.data(), r.size(), s.data(), s.size(), got, ws);
    CHECK_MSG(sorted(got) == want, "sort_merge " << what);
    for (int threads : {1, 2, 3, 8}) {
      cj::sort_merge_mt(r.data(), r.size(), s.data(), s.size(), threads, got, ws);
      CHECK_MSG(sorted(got) == want, "sort_merge_mt threads=" << threads << " " << what);
      for (int bits : {0, 1, 5, 11}) {
        cj::hash_join(r.data(), r.size(), s.data(), s.size(), threads, bits, got, ws);
        CHECK_MSG(sorted(got) == want, "hash_join threads=" << threads << " bits=" << bits << " " << what);
        CHECK_MSG(cj::digest(got.data(), got.size()) == dw, "hash_join digest " << what);
      }
    }
  }
}

template <class K>
void random_relations(std::uint64_t seed) {
  harness::Rng g(seed);
  for (int round = 0; round < 30; ++round) {
    const std::size_t nr = std::size_t(g.below(300)), ns = std::size_t(g.below(300));
    const std::uint64_t domain = 1 + g.below(round % 3 == 0 ? 8 : 400);  // small domains: many duplicates
    std::vector<K> r(nr), s(ns);
    // keys of both signs and, for int64, beyond 32 bits
    const std::int64_t offset = sizeof(K) == 8 ? -(std::int64_t(1) << 40) : -200;
    for (auto& k : r) k = K(std::int64_t(g.below(domain)) + offset);
    for (auto& k : s) k = K(std::int64_t(g.below(domain)) + offset);
    for (std::uint64_t band : {0ull, 1ull, 7ull}) all_joins(r, s, band, brute(r, s, band), "random");
  }
}

template <class K>
void edge_cases() {
  const std::vector<K> none, one{K(5)}, three{K(1), K(2), K(3)};
  all_joins(none, three, 0, {}, "empty R");
  all_joins(three, none, 0, {}, "empty S");
  all_joins(none, none, 0, {}, "both empty");
  all_joins(three, std::vector<K>{K(7), K(8)}, 0, {}, "no match");
  // all match: every key equal, |R| |S| pairs
  const std::vector<K> same_r(97, K(-3)), same_s(113, K(-3));
  all_joins(same_r, same_s, 0, brute(same_r, same_s, 0), "all match");
  CHECK(brute(same_r, same_s, 0).size() == 97u * 113u);
  // extreme keys: the band must neither overflow nor wrap
  const K lo = std::numeric_limits<K>::lowest(), hi = std::numeric_limits<K>::max();
  const std::vector<K> ext_r{lo, K(lo + 1), K(0), K(hi - 1), hi}, ext_s{hi, lo, K(1), K(hi - 2)};
  for (std::uint64_t band : {0ull, 1ull, 2ull, ~0ull}) all_joins(ext_r, ext_s, band, brute(ext_r, ext_s, band), "extreme keys");
}

void generator() {
  namespace js = lp::join_study;
  const std::int64_t nr = 5000, ns = 20000;
  for (double match : {0.0, 0.3, 1.0}) {
    const auto u = js::make_relations<std::int32_t>(nr, ns, "unique", 1.0, match, 11);
    CHECK(std::set<std::int32_t>(u.r.begin(), u.r.end()).size() == std::size_t(nr));
    const std::set<std::int32_t> keys(u.r.begin(), u.r.end());
    std::size_t hits = 0;
    for (auto k : u.s) hits += keys.count(k);
    CHECK_MSG(std::abs(double(hits) / ns - match) < 0.02, "match fraction " << double(hits) / ns << " for " << match);
    // the same relations with int64 keys: the same values shifted by -2^40, so the same join
    const auto w = js::make_relations<std::int64_t>(nr, ns, "unique", 1.0, match, 11);
    bool shifted = true;
    for (std::size_t i = 0; i < u.s.size(); ++i) shifted &= w.s[i] == std::int64_t(u.s[i]) - (std::int64_t(1) << 40);
    CHECK_MSG(shifted, "int64 keys are the int32 keys minus 2^40");
    CHECK(cj::reference(u.r, u.s, 0) == cj::reference(w.r, w.s, 0));
  }
  // zipf: the hottest key takes far more of S than a uniform draw would, and more for larger s
  std::size_t prev = 0;
  for (double zs : {0.5, 1.0, 1.5}) {
    const auto z = js::make_relations<std::int32_t>(nr, ns, "zipf", zs, 1.0, 12);
    std::map<std::int32_t, std::size_t> count;
    for (auto k : z.s) ++count[k];
    std::size_t top = 0;
    for (auto& kv : count) top = std::max(top, kv.second);
    CHECK_MSG(top > prev, "zipf s=" << zs << " hottest key " << top);
    prev = top;
  }
  CHECK(prev > std::size_t(ns) / 10);  // s = 1.5: the hottest key draws a large share
  // uniform: both sides within [0, |R|) when they match, outside when they do not
  const auto un = js::make_relations<std::int32_t>(nr, ns, "uniform", 1.0, 0.0, 13);
  CHECK(std::all_of(un.r.begin(), un.r.end(), [&](std::int32_t k) { return k >= 0 && k < nr; }));
  CHECK(std::all_of(un.s.begin(), un.s.end(), [&](std::int32_t k) { return k >= nr && k < 2 * nr; }));
  CHECK(cj::reference(un.r, un.s, 0).count == 0);
}

}  // namespace

int main() {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    random_relations<std::int32_t>(seed);
    random_relations<std::int64_t>(seed + 10);
  }
  edge_cases<std::int32_t>();
  edge_cases<std::int64_t>();
  generator();
  return test_summary("test_cpu_join");
}
