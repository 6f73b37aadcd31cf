// Deterministic input generation from the run's seed: the same config gives the same inputs on
// every machine, so a CPU reference and a GPU result can always be reproduced.
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <thread>
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

// Fills out[0, n) in chunks of 2^20 elements, chunk c from its own seed, on all cores: the result
// does not depend on the number of threads, and 2^26-element inputs take a fraction of a second.
template <class T, class Gen>
void parallel_fill(std::vector<T>& out, std::uint64_t seed, Gen gen) {
  const std::size_t n = out.size(), chunk = std::size_t(1) << 20, chunks = (n + chunk - 1) / chunk;
  const unsigned workers = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(), unsigned(chunks)));
  auto work = [&](unsigned w) {
    for (std::size_t c = w; c < chunks; c += workers) {
      Rng rng(derive_seed(seed, "chunk" + std::to_string(c)));
      for (std::size_t i = c * chunk; i < std::min(n, (c + 1) * chunk); ++i) out[i] = gen(rng, i);
    }
  };
  std::vector<std::thread> pool;
  for (unsigned w = 1; w < workers; ++w) pool.emplace_back(work, w);
  work(0);
  for (auto& t : pool) t.join();
}

// Zipf(s) ranks in [1, n] by rejection-inversion (Hormann and Derflinger 1996): exact, O(1) per
// sample and no table, so m = 2^26 labels cost no memory.
class ZipfSampler {
 public:
  ZipfSampler(std::uint64_t n, double s) : n_(double(n)), s_(s) {
    if (!(s > 0)) throw std::invalid_argument("zipf exponent must be > 0");
    h_x1_ = H(1.5) - 1.0;
    h_n_ = H(n_ + 0.5);
    cut_ = 2.0 - Hinv(H(2.5) - h(2.0));
  }
  std::uint64_t operator()(Rng& rng) const {
    for (;;) {
      double u = h_n_ + rng.unit() * (h_x1_ - h_n_);
      double x = Hinv(u);
      double k = std::floor(x + 0.5);
      if (k < 1) k = 1;
      if (k > n_) k = n_;
      if (k - x <= cut_ || u >= H(k + 0.5) - h(k)) return static_cast<std::uint64_t>(k);
    }
  }

 private:
  double h(double x) const { return std::exp(-s_ * std::log(x)); }
  // H(x) = (x^(1-s) - 1) / (1-s), written to stay exact as s -> 1 (where it becomes log x).
  double H(double x) const {
    double lx = std::log(x), t = (1.0 - s_) * lx;
    return (std::abs(t) > 1e-8 ? std::expm1(t) / t : 1.0 + t / 2) * lx;
  }
  double Hinv(double x) const {
    double t = x * (1.0 - s_);
    if (t < -1.0) t = -1.0;  // rounding at the far end of the domain
    return std::exp((std::abs(t) > 1e-8 ? std::log1p(t) / t : 1.0 - t / 2) * x);
  }
  double n_, s_, h_x1_ = 0, h_n_ = 0, cut_ = 0;
};

// Label distributions shared by the label-driven studies (multireduce, multiscan, histogram):
//   uniform     independent, uniform in [0, m)
//   degenerate  every label m-1 (the thesis's worst case: all inputs hit one bucket)
//   sorted      uniform, then sorted ascending (a counting sort)
//   nearly_sorted  sorted, then one input in 1024 (at least one) swapped with one at a uniform
//               position: a column ordered but for stragglers, which a sample takes for sorted
//   zipf        rank r with probability ~ 1/r^s, ranks scattered over [0, m) by a fixed bijection
//               (x -> a*x + b mod m, a coprime to m), so hot buckets are not neighbours
//   runs        clustered runs: a uniform start label, then consecutive labels (start, start+1, ...
//               mod m) for a run of 1..2L-1 inputs (mean L = run_length, 16 unless said), as rows of
//               clustered keys
//   equal_runs  runs of one label: a uniform label repeated for 1..2L-1 inputs (mean L), as rows that
//               arrive grouped by key
//   permutation a random permutation of [0, n): every label once (needs m = n; the scatter and
//               gather of thesis 1.2 as a permutation, where both scatter definitions agree)
inline std::vector<std::uint32_t> labels(std::int64_t n, std::uint32_t m, const std::string& dist, double zipf_s,
                                         std::uint64_t seed, double run_length = 16) {
  std::vector<std::uint32_t> out(static_cast<std::size_t>(n));
  if (m == 0) throw std::invalid_argument("labels: m must be >= 1");
  if (dist == "degenerate") {
    std::fill(out.begin(), out.end(), m - 1);
  } else if (dist == "uniform" || dist == "sorted" || dist == "nearly_sorted") {
    parallel_fill(out, seed, [m](Rng& r, std::size_t) { return static_cast<std::uint32_t>(r.below(m)); });
    if (dist != "uniform") {
      std::vector<std::int64_t> count(std::size_t(m) + 1, 0);
      for (std::uint32_t l : out) ++count[l];
      std::size_t at = 0;
      for (std::uint32_t b = 0; b < m; ++b)
        for (std::int64_t k = 0; k < count[b]; ++k) out[at++] = b;
    }
    if (dist == "nearly_sorted") {
      Rng r(derive_seed(seed, "nearly-sorted"));
      for (std::int64_t k = std::max<std::int64_t>(1, n / 1024); k > 0; --k) std::swap(out[r.below(n)], out[r.below(n)]);
    }
  } else if (dist == "runs" || dist == "equal_runs") {
    if (!(run_length >= 1)) throw std::invalid_argument("labels: run_length must be >= 1");
    const std::uint64_t mean = static_cast<std::uint64_t>(std::llround(std::min(run_length, 1e15)));
    const std::uint64_t step = dist == "runs" ? 1 : 0;
    Rng r(seed);
    for (std::size_t i = 0; i < out.size();) {
      std::uint64_t label = r.below(m);
      for (std::uint64_t k = 1 + r.below(2 * mean - 1); k > 0 && i < out.size(); --k, ++i) {
        out[i] = static_cast<std::uint32_t>(label);
        label = label + step == m ? 0 : label + step;
      }
    }
  } else if (dist == "permutation") {
    if (std::int64_t(m) != n) throw std::invalid_argument("labels: a permutation needs m = n");
    out = permutation(n, seed);
  } else if (dist == "zipf") {
    ZipfSampler zipf(m, zipf_s);
    Rng pick(derive_seed(seed, "zipf-bijection"));
    std::uint64_t a = 1 + pick.below(m);
    auto gcd = [](std::uint64_t x, std::uint64_t y) { while (y) { std::uint64_t t = x % y; x = y; y = t; } return x; };
    while (gcd(a, m) != 1) ++a;
    std::uint64_t b = pick.below(m);
    parallel_fill(out, seed, [&](Rng& r, std::size_t) { return static_cast<std::uint32_t>(((zipf(r) - 1) * a + b) % m); });
  } else {
    throw std::invalid_argument("labels: unknown distribution '" + dist + "'");
  }
  return out;
}

}  // namespace harness
