// The primitives study's inputs (He et al. 2008, 3.1): n tuples, each a 32-bit key uniform over
// [0, 2^32) and its rid (= its position), as the columns or words each primitive reads; the random
// permutation scatter and gather move the tuples through; the scan's counts. Every input comes
// from the run's seed and n alone (not the op or the fanout), so all primitives of one n see the
// same tuples. Plain C++ (the CPU test checks the generator).
#pragma once
#include <cstdint>
#include <numeric>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "kernels/join/tuples.hpp"

namespace lp::primitives_study {

// The scan's values are the keys modulo this: small counts (a partition's size, a match count), so
// the sums of up to 2^28 of them fit 32 bits; beyond, both sides wrap alike.
constexpr std::uint32_t kCountModulus = 16;

inline std::vector<std::uint32_t> make_keys(std::int64_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> keys(static_cast<std::size_t>(n));
  harness::parallel_fill(keys, harness::derive_seed(seed, "keys/" + std::to_string(n)),
                         [](harness::Rng& r, std::size_t) { return static_cast<std::uint32_t>(r.next() >> 32); });
  return keys;
}

// Scatter's write and gather's read locations: a random permutation of [0, n), so every output
// is written exactly once (He et al.'s definitions: distinct locations).
inline std::vector<std::uint32_t> make_locations(std::int64_t n, std::uint64_t seed) {
  return harness::permutation(n, harness::derive_seed(seed, "locations/" + std::to_string(n)));
}

inline std::vector<std::uint32_t> make_rids(std::int64_t n) {
  std::vector<std::uint32_t> rids(static_cast<std::size_t>(n));
  std::iota(rids.begin(), rids.end(), std::uint32_t(0));
  return rids;
}

// The (key, rid) words (kernels/join/tuples.hpp) of scatter, gather and split.
inline std::vector<std::uint64_t> make_tuples(const std::vector<std::uint32_t>& keys) {
  std::vector<std::uint64_t> t(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) t[i] = lp::join::tuple_word(keys[i], std::uint32_t(i));
  return t;
}

inline std::vector<std::uint32_t> make_counts(const std::vector<std::uint32_t>& keys) {
  std::vector<std::uint32_t> c(keys.size());
  for (std::size_t i = 0; i < keys.size(); ++i) c[i] = keys[i] % kCountModulus;
  return c;
}

}  // namespace lp::primitives_study
