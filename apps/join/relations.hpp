// The relations of the join study: the keys of R and S. A tuple's rid is its position,
// so a relation is its key column. Plain C++ (the CPU tests check the generator too).
//   unique    R's keys distinct (a primary key, shuffled); each S tuple, with probability `match`,
//             takes the key of a uniformly drawn R tuple (a foreign key), else a key R lacks
//   uniform   R's and S's keys uniform over [0, |R|) (duplicates on both sides, about one R tuple
//             per key), S's keys outside that range with probability 1 - match
//   zipf      R as for unique; S's matching keys drawn by zipf(s) rank over R's tuples (rank r
//             with probability ~ 1/r^s, ranks scattered over R by a fixed bijection): the skewed
//             foreign keys that overload one partition of a partitioned hash join
// Keys lie in [0, 2 |R|); int64 keys are the same values minus 2^40 (negative, beyond 32 bits;
// order and differences kept, so both key types give the same join).
#pragma once
#include <cstdint>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"

namespace lp::join_study {

template <class K>
constexpr K key_of(std::uint64_t v) {
  return sizeof(K) == 8 ? K(std::int64_t(v) - (std::int64_t(1) << 40)) : K(v);
}

template <class K>
struct Relations {
  std::vector<K> r, s;
};

template <class K>
Relations<K> make_relations(std::int64_t nr, std::int64_t ns, const std::string& dist, double zipf_s, double match, std::uint64_t seed) {
  if (nr < 1 || ns < 1) throw std::invalid_argument("relations: |R| and |S| must be >= 1");
  Relations<K> out;
  out.r.resize(std::size_t(nr));
  out.s.resize(std::size_t(ns));
  const std::uint64_t R = std::uint64_t(nr);
  if (dist == "uniform") {
    harness::parallel_fill(out.r, harness::derive_seed(seed, "R"), [&](harness::Rng& g, std::size_t) { return key_of<K>(g.below(R)); });
    harness::parallel_fill(out.s, harness::derive_seed(seed, "S"), [&](harness::Rng& g, std::size_t) {
      return key_of<K>(g.unit() < match ? g.below(R) : R + g.below(R));
    });
    return out;
  }
  if (dist != "unique" && dist != "zipf") throw std::invalid_argument("relations: unknown distribution '" + dist + "'");
  const std::vector<std::uint32_t> perm = harness::permutation(nr, harness::derive_seed(seed, "R"));
  for (std::size_t i = 0; i < perm.size(); ++i) out.r[i] = key_of<K>(perm[i]);
  if (dist == "unique") {
    harness::parallel_fill(out.s, harness::derive_seed(seed, "S"), [&](harness::Rng& g, std::size_t) {
      return g.unit() < match ? out.r[std::size_t(g.below(R))] : key_of<K>(R + g.below(R));
    });
    return out;
  }
  const harness::ZipfSampler zipf(R, zipf_s);
  harness::Rng pick(harness::derive_seed(seed, "zipf-bijection"));
  std::uint64_t a = 1 + pick.below(R);
  while (std::gcd(a, R) != 1) ++a;
  const std::uint64_t b = pick.below(R);
  harness::parallel_fill(out.s, harness::derive_seed(seed, "S"), [&](harness::Rng& g, std::size_t) {
    if (!(g.unit() < match)) return key_of<K>(R + g.below(R));
    const std::uint64_t row = std::uint64_t((static_cast<unsigned __int128>(zipf(g) - 1) * a + b) % R);
    return out.r[std::size_t(row)];
  });
  return out;
}

}  // namespace lp::join_study
