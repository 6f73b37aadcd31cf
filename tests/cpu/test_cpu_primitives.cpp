// The primitives study's CPU side: He et al. 2008's primitives on one thread (cpu_reference/
// primitives/primitives.hpp: map, scatter, gather, exclusive scan, split, sort) against brute force
// on random small inputs (n = 0 up, full-range keys and keys from a few values, several seeds,
// fanouts powers of two and not); the split and sort checks accepting every admissible answer and
// catching planted errors; the tuple word and the partition function; the input generator.
#include <algorithm>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "apps/primitives/inputs.hpp"
#include "check.hpp"
#include "cpu_reference/primitives/primitives.hpp"
#include "kernels/join/tuples.hpp"

namespace {

namespace cp = lp::cpu::primitives;
using lp::join::tuple_key;
using lp::join::tuple_rid;
using lp::join::tuple_word;

// The partition function as its definition reads: the top half of splitmix64's finaliser, mod fanout.
std::uint32_t brute_partition(std::uint32_t key, std::uint32_t fanout) {
  std::uint64_t x = key;
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  x ^= x >> 31;
  return std::uint32_t(x >> 32) % fanout;
}

std::vector<std::uint32_t> random_keys(harness::Rng& g, std::size_t n, bool few) {
  std::vector<std::uint32_t> k(n);
  for (auto& x : k) x = few ? std::uint32_t(g.below(5)) * 0x40000001u : std::uint32_t(g.next());
  return k;
}

std::vector<std::uint64_t> tuples_of(const std::vector<std::uint32_t>& keys) {
  std::vector<std::uint64_t> t(keys.size());
  for (std::size_t i = 0; i < t.size(); ++i) t[i] = tuple_word(keys[i], std::uint32_t(i));
  return t;
}

void tuple_words() {
  const std::uint32_t keys[] = {0u, 1u, 0x7fffffffu, 0x80000000u, 0xffffffffu};
  for (std::uint32_t k : keys)
    for (std::uint32_t r : keys) {
      CHECK(tuple_key(tuple_word(k, r)) == k);
      CHECK(tuple_rid(tuple_word(k, r)) == r);
    }
  // Word order is key order first, then rid order.
  CHECK(tuple_word(1, 0xffffffffu) < tuple_word(2, 0));
  CHECK(tuple_word(5, 3) < tuple_word(5, 4));
  CHECK(tuple_word(0x80000000u, 0) > tuple_word(0x7fffffffu, 0xffffffffu));
}

void partitions(std::uint64_t seed) {
  harness::Rng g(seed);
  for (std::uint32_t fanout : {1u, 2u, 3u, 16u, 255u, 256u, 2048u, 4096u}) {
    std::vector<std::uint64_t> hits(fanout, 0);
    const int draws = 64 * int(fanout);
    for (int i = 0; i < draws; ++i) {
      const std::uint32_t key = std::uint32_t(g.next());
      const std::uint32_t p = lp::join::partition_of(key, fanout);
      CHECK_MSG(p == brute_partition(key, fanout), "key " << key << " fanout " << fanout);
      CHECK(p < fanout);
      CHECK(lp::join::partition_of_item(tuple_word(key, 99), fanout) == p);
      ++hits[p];
    }
    // A hash spreads: with 64 draws per partition each gets some (a partition of none is 1e-28 likely).
    for (std::uint32_t p = 0; p < fanout; ++p) CHECK_MSG(hits[p] > 0, "fanout " << fanout << " partition " << p << " empty");
  }
}

// Every primitive against brute force; the checks pass the reference's answers.
void references(std::uint64_t seed) {
  harness::Rng g(seed);
  for (int round = 0; round < 60; ++round) {
    const std::size_t n = round < 8 ? std::size_t(round) : std::size_t(g.below(round % 4 ? 40 : 600));
    const bool few = round % 3 == 0;
    const std::uint32_t fanout = std::vector<std::uint32_t>{2, 3, 7, 16, 100, 4096}[std::size_t(round) % 6];
    const std::vector<std::uint32_t> keys = random_keys(g, n, few);
    const std::vector<std::uint64_t> tuples = tuples_of(keys);
    const std::int64_t N = std::int64_t(n);
    const std::string what = " n=" + std::to_string(n) + " fanout=" + std::to_string(fanout) + " seed=" + std::to_string(seed);

    std::vector<std::uint32_t> ids(n, 7);
    cp::map_partitions(keys.data(), N, fanout, ids.data());
    for (std::size_t i = 0; i < n; ++i) CHECK_MSG(ids[i] == brute_partition(keys[i], fanout), "map" << what);

    // Scatter through a permutation: out[j] is the tuple whose location is j; gather inverts it.
    const std::vector<std::uint32_t> loc = harness::permutation(N, g.next());
    std::vector<std::uint64_t> scattered(n, ~0ull), gathered(n, ~0ull), back(n, ~0ull);
    cp::scatter(tuples.data(), loc.data(), N, scattered.data());
    for (std::size_t j = 0; j < n; ++j)
      for (std::size_t i = 0; i < n; ++i)
        if (loc[i] == j) CHECK_MSG(scattered[j] == tuples[i], "scatter" << what);
    cp::gather(tuples.data(), loc.data(), N, gathered.data());
    for (std::size_t i = 0; i < n; ++i) CHECK_MSG(gathered[i] == tuples[loc[i]], "gather" << what);
    cp::gather(scattered.data(), loc.data(), N, back.data());
    CHECK_MSG(back == tuples, "gather(scatter) is the identity" << what);

    // Exclusive scan, modulo 2^32: counts of the study (key % 16) and full-range words that wrap.
    for (bool wrap : {false, true}) {
      std::vector<std::uint32_t> in(n), sums(n, 7);
      for (std::size_t i = 0; i < n; ++i) in[i] = wrap ? keys[i] : keys[i] % lp::primitives_study::kCountModulus;
      cp::exclusive_scan(in.data(), N, sums.data());
      for (std::size_t i = 0; i < n; ++i) {
        std::uint32_t s = 0;
        for (std::size_t j = 0; j < i; ++j) s += in[j];
        CHECK_MSG(sums[i] == s, "scan wrap=" << wrap << " at " << i << what);
      }
    }

    // Split: the stable partition, partition by partition.
    std::vector<std::uint64_t> want_split, got(n, ~0ull), cursor;
    std::vector<std::uint64_t> hist(fanout, 0);
    for (std::uint32_t p = 0; p < fanout; ++p)
      for (std::size_t i = 0; i < n; ++i)
        if (brute_partition(keys[i], fanout) == p) want_split.push_back(tuples[i]), ++hist[p];
    CHECK_MSG(cp::histogram(tuples.data(), N, fanout) == hist, "histogram" << what);
    cp::split(tuples.data(), N, fanout, got.data(), cursor);
    CHECK_MSG(got == want_split, "split" << what);
    CHECK_MSG(cp::split_mismatch(tuples.data(), N, fanout, hist, got.data()).empty(), "split check" << what);
    // Any order within each partition is a split too.
    for (std::size_t lo = 0; lo < n;) {
      std::size_t hi = lo;
      while (hi < n && brute_partition(tuple_key(got[hi]), fanout) == brute_partition(tuple_key(got[lo]), fanout)) ++hi;
      std::reverse(got.begin() + std::ptrdiff_t(lo), got.begin() + std::ptrdiff_t(hi));
      lo = hi;
    }
    CHECK_MSG(cp::split_mismatch(tuples.data(), N, fanout, hist, got.data()).empty(), "split check, reordered partitions" << what);

    // Sort: a stable sort of the tuples by key (rids are positions).
    std::vector<std::uint32_t> order(n);
    for (std::size_t i = 0; i < n; ++i) order[i] = std::uint32_t(i);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) { return keys[a] < keys[b]; });
    const std::vector<std::uint32_t> rids = lp::primitives_study::make_rids(N);
    std::vector<std::uint32_t> sk(n, 7), sr(n, 7);
    std::vector<std::uint64_t> words;
    cp::sort(keys.data(), rids.data(), N, sk.data(), sr.data(), words);
    for (std::size_t i = 0; i < n; ++i) {
      CHECK_MSG(sr[i] == order[i], "sort rid at " << i << what);
      CHECK_MSG(sk[i] == keys[order[i]], "sort key at " << i << what);
      CHECK_MSG(words[i] == tuple_word(keys[order[i]], order[i]), "sort words at " << i << what);
    }
    CHECK_MSG(cp::sort_mismatch(keys.data(), N, words, sk.data(), sr.data()).empty(), "sort check" << what);
    // Equal keys' rids in any order pass too (an unstable sort is a sort).
    for (std::size_t lo = 0; lo < n;) {
      std::size_t hi = lo;
      while (hi < n && sk[hi] == sk[lo]) ++hi;
      std::reverse(sr.begin() + std::ptrdiff_t(lo), sr.begin() + std::ptrdiff_t(hi));
      lo = hi;
    }
    CHECK_MSG(cp::sort_mismatch(keys.data(), N, words, sk.data(), sr.data()).empty(), "sort check, equal keys reordered" << what);
  }
}

// The checks catch what a wrong split or sort would write.
void planted_errors(std::uint64_t seed) {
  harness::Rng g(seed);
  const std::size_t n = 500;
  const std::uint32_t fanout = 13;
  const std::vector<std::uint32_t> keys = random_keys(g, n, false);
  const std::vector<std::uint64_t> tuples = tuples_of(keys);
  const std::vector<std::uint64_t> hist = cp::histogram(tuples.data(), std::int64_t(n), fanout);
  std::vector<std::uint64_t> good(n), cursor;
  cp::split(tuples.data(), std::int64_t(n), fanout, good.data(), cursor);
  auto split_bad = [&](std::vector<std::uint64_t> v, const char* what, const std::vector<std::uint64_t>& h) {
    const std::string why = cp::split_mismatch(tuples.data(), std::int64_t(n), fanout, h, v.data());
    CHECK_MSG(!why.empty(), "split check passed " << what);
  };
  CHECK(cp::split_mismatch(tuples.data(), std::int64_t(n), fanout, hist, good.data()).empty());
  {
    auto v = good;
    std::swap(v.front(), v.back());  // partitions out of order
    split_bad(v, "partitions swapped", hist);
  }
  {
    auto v = good;
    v[10] = v[11];  // a tuple twice, one missing
    split_bad(v, "duplicate tuple", hist);
  }
  {
    auto v = good;
    v[20] ^= std::uint64_t(1) << 40;  // a key changed
    split_bad(v, "changed key", hist);
  }
  {
    auto v = good;
    v[n - 1] = ~0ull;  // never written
    split_bad(v, "poison", hist);
  }
  {
    auto h = hist;  // the histogram says otherwise
    ++h[0], --h[fanout - 1];
    split_bad(good, "sizes", h);
  }

  // Sort, with keys of a few values: equal-key runs.
  const std::vector<std::uint32_t> few = random_keys(g, n, true);
  const std::vector<std::uint32_t> rids = lp::primitives_study::make_rids(std::int64_t(n));
  std::vector<std::uint32_t> sk(n), sr(n);
  std::vector<std::uint64_t> words;
  cp::sort(few.data(), rids.data(), std::int64_t(n), sk.data(), sr.data(), words);
  auto sort_bad = [&](std::vector<std::uint32_t> k, std::vector<std::uint32_t> r, const char* what) {
    CHECK_MSG(!cp::sort_mismatch(few.data(), std::int64_t(n), words, k.data(), r.data()).empty(), "sort check passed " << what);
  };
  CHECK(cp::sort_mismatch(few.data(), std::int64_t(n), words, sk.data(), sr.data()).empty());
  {
    auto k = sk, r = sr;
    std::swap(k.front(), k.back()), std::swap(r.front(), r.back());  // a consistent pair out of order
    sort_bad(k, r, "order");
  }
  {
    auto r = sr;
    r[5] = r[6];  // a rid twice
    sort_bad(sk, r, "duplicate rid");
  }
  {
    auto r = sr;
    std::swap(r.front(), r.back());  // rids naming tuples of other keys
    sort_bad(sk, r, "rid of another key");
  }
  {
    auto r = sr;
    r[7] = ~0u;
    sort_bad(sk, r, "poison rid");
  }
}

// The inputs: deterministic, rid = position, locations a permutation, counts the keys mod 16.
void generator() {
  namespace ps = lp::primitives_study;
  for (std::int64_t n : {1, 2, 1000, 65537}) {
    const auto k1 = ps::make_keys(n, 42), k2 = ps::make_keys(n, 42), k3 = ps::make_keys(n, 43);
    CHECK(k1 == k2);
    CHECK(std::int64_t(k1.size()) == n);
    if (n >= 1000) {
      CHECK(k1 != k3);
      CHECK(std::set<std::uint32_t>(k1.begin(), k1.end()).size() > std::size_t(n) * 9 / 10);  // 32-bit keys: few collisions
      CHECK(*std::max_element(k1.begin(), k1.end()) > 0xf0000000u);  // the full range, not 31 bits
    }
    const auto loc = ps::make_locations(n, 42);
    std::vector<std::uint32_t> sorted_loc = loc;
    std::sort(sorted_loc.begin(), sorted_loc.end());
    CHECK(sorted_loc == ps::make_rids(n));
    const auto t = ps::make_tuples(k1);
    const auto c = ps::make_counts(k1);
    for (std::int64_t i = 0; i < n; ++i) {
      CHECK(tuple_key(t[std::size_t(i)]) == k1[std::size_t(i)]);
      CHECK(tuple_rid(t[std::size_t(i)]) == std::uint32_t(i));
      CHECK(c[std::size_t(i)] == k1[std::size_t(i)] % 16);
    }
  }
}

}  // namespace

int main() {
  tuple_words();
  generator();
  for (std::uint64_t seed : {1ull, 2ull, 20080609ull}) {
    partitions(seed);
    references(seed);
    planted_errors(seed);
  }
  return test_summary("test_cpu_primitives");
}
