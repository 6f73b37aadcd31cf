// Deterministic input generation from the run's seed: the same config gives the same inputs on
// every machine, so a CPU reference and a GPU result can always be reproduced.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace harness {

// splitmix64: tiny, fast, and statistically fine for benchmark inputs.
struct Rng {
  std::uint64_t state;
  explicit Rng(std::uint64_t seed) : state(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  }
  std::uint64_t below(std::uint64_t n) { return n ? static_cast<std::uint64_t>((static_cast<unsigned __int128>(next()) * n) >> 64) : 0; }
  double unit() { return (next() >> 11) * 0x1.0p-53; }
};

// A seed for one named input of one point: the run seed mixed with a tag (FNV-1a).
inline std::uint64_t derive_seed(std::uint64_t seed, const std::string& tag) {
  std::uint64_t h = 0xcbf29ce484222325ull ^ seed;
  for (unsigned char c : tag) h = (h ^ c) * 0x100000001b3ull;
  return Rng(h).next();
}

// n non-decreasing integers spread over [0, span): mean gap span/n. With span >= 2n the gaps are
// at least 1 (all distinct); below n most gaps are 0 (runs of equal keys).
inline std::vector<std::int64_t> sorted_integers(std::int64_t n, std::int64_t span, std::uint64_t seed) {
  std::vector<std::int64_t> v(static_cast<size_t>(n));
  Rng rng(seed);
  double mean = n ? static_cast<double>(span) / n : 1.0;
  std::int64_t x = static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(mean > 1 ? mean : 1)));
  for (std::int64_t i = 0; i < n; ++i) {
    v[static_cast<size_t>(i)] = x;
    if (mean >= 2)
      x += 1 + static_cast<std::int64_t>(rng.below(static_cast<std::uint64_t>(2 * mean - 1)));  // mean gap = mean
    else
      x += rng.unit() < mean / 2 ? 2 : 0;  // mean gap = mean, equal keys in runs
  }
  return v;
}

// Fisher-Yates permutation of [0, n).
inline std::vector<std::uint32_t> permutation(std::int64_t n, std::uint64_t seed) {
  std::vector<std::uint32_t> p(static_cast<size_t>(n));
  for (std::int64_t i = 0; i < n; ++i) p[static_cast<size_t>(i)] = static_cast<std::uint32_t>(i);
  Rng rng(seed);
  for (std::int64_t i = n - 1; i > 0; --i) std::swap(p[static_cast<size_t>(i)], p[rng.below(static_cast<std::uint64_t>(i + 1))]);
  return p;
}

}  // namespace harness
