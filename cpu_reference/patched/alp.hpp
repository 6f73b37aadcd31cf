// ALP, Adaptive Lossless floating-Point compression (Afroozeh, Kuffo, Boncz, SIGMOD 2024;
// docs/references.md), on the CPU: the encoder and the reference decoder of float32 and float64
// columns, its fallback ALP-RD, and the bits each value costs. Plain C++.
//
// ALP: most floating-point columns hold decimals (prices, coordinates, readings) stored as the
// nearest binary fraction. Per vector of 1024 values an exponent e and a factor f (f <= e) map each
// value to the integer n = round(v * 10^e * 10^-f), whose decode n * 10^f * 10^-e gives back the same
// bits for nearly every value; the integers are frame-of-reference bit-packed. A value whose decode
// does not give back its bits (NaN, the infinities, -0.0, subnormals, a digit too many) is an
// exception, kept whole as a patch (the seed's layout, layout.hpp), its integer replaced by the
// vector's first regular one so that it does not widen the frame. Why f: 10^-e is inexact, so
// cents / 100 decodes exactly more often through (e, f) = (14, 12) than through (2, 0).
// (e, f) comes from two levels of sampling: over a row group's vectors, the combinations that win
// most often (at most kCandidates); then for each vector the best of those on a sample of its values.
//
// ALP-RD, for values of full precision (which no (e, f) turns into small integers): each value's
// bits are cut at r, the right r bits bit-packed, the left ones (at most 16 bits) coded through a
// dictionary of their at most 8 most frequent values; a left part outside it is an exception. The
// column takes whichever scheme's estimate on the sample is smaller. The packed layout a GPU
// decoder reads, and its CPU decode: alp_layout.hpp.
#pragma once
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "../cpu_memory/multithreaded.hpp"

namespace lp::cpu::patched::alp {

constexpr int kVector = 1024;            // values a vector (a FastLanes chunk)
constexpr int kRowGroupVectors = 100;    // vectors the first sampling level looks across
constexpr int kSampledVectors = 8;       // vectors it samples in each row group
constexpr int kSamplesPerVector = 32;    // values it samples in each (and the second level too)
constexpr int kCandidates = 5;           // combinations the first level keeps
constexpr int kEarlyExit = 2;            // the second level stops after this many worse candidates in a row
constexpr int kPositionBits = 16;        // an exception's in-vector position
constexpr int kRdMaxLeftBits = 16;       // ALP-RD: left parts of at most 16 bits
constexpr int kRdDictionary = 8;         // ... coded through at most 8 entries

template <class F>
struct Traits;
template <>
struct Traits<double> {
  using Bits = std::uint64_t;
  using Int = std::int64_t;
  static constexpr int kBits = 64;
  static constexpr int kMaxExp = 18;
  static constexpr double kMagic = 6755399441055744.0;      // 2^52 + 2^51: x + kMagic - kMagic rounds x to an integer
  static constexpr double kRoundLimit = 2251799813685248.0;  // 2^51: within it the rounding is exact, and n -> double too
  static double exp10(int k) {
    static constexpr double t[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8, 1e9,
                                   1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18};
    return t[k];
  }
  static double frac10(int k) {
    static constexpr double t[] = {1e0,   1e-1,  1e-2,  1e-3,  1e-4,  1e-5,  1e-6,  1e-7,  1e-8, 1e-9,
                                   1e-10, 1e-11, 1e-12, 1e-13, 1e-14, 1e-15, 1e-16, 1e-17, 1e-18};
    return t[k];
  }
};
template <>
struct Traits<float> {
  using Bits = std::uint32_t;
  using Int = std::int32_t;
  static constexpr int kBits = 32;
  static constexpr int kMaxExp = 10;
  static constexpr float kMagic = 12582912.0f;     // 2^23 + 2^22
  static constexpr float kRoundLimit = 4194304.0f;  // 2^22
  static float exp10(int k) {
    static constexpr float t[] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};
    return t[k];
  }
  static float frac10(int k) {
    static constexpr float t[] = {1e0f, 1e-1f, 1e-2f, 1e-3f, 1e-4f, 1e-5f, 1e-6f, 1e-7f, 1e-8f, 1e-9f, 1e-10f};
    return t[k];
  }
};

template <class F>
typename Traits<F>::Bits bits_of(F v) {
  typename Traits<F>::Bits b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}
template <class F>
F from_bits(typename Traits<F>::Bits b) {
  F v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

struct Combination {
  int e = 0, f = 0;
  bool operator==(const Combination& o) const { return e == o.e && f == o.f; }
};

// The decode, in this order of operations (the GPU decoder must use the same: n to F, times 10^f,
// times 10^-e, each rounded to F).
template <class F>
F decode_value(typename Traits<F>::Int n, Combination c) {
  const F x = F(n) * Traits<F>::exp10(c.f);
  return x * Traits<F>::frac10(c.e);
}

// The integer of v under c, or false where v is an exception (its decode would not give back its
// bits, or the scaled value is beyond the exact rounding's range, NaN included).
template <class F>
bool encode_value(F v, Combination c, typename Traits<F>::Int* n) {
  using T = Traits<F>;
  // volatile: each product and the two roundings stay separate F operations (no fused
  // multiply-add, no folding); a different rounding would only make more exceptions, never a wrong
  // value, since the decode is checked below.
  volatile F scaled = F(v * T::exp10(c.e)) * T::frac10(c.f);
  if (!(std::fabs(F(scaled)) < T::kRoundLimit)) return false;
  volatile F up = scaled + T::kMagic;
  const F rounded = up - T::kMagic;
  *n = typename T::Int(rounded);
  return bits_of(decode_value<F>(*n, c)) == bits_of(v);
}

inline int bit_width(std::uint64_t range) { return range == 0 ? 0 : 64 - __builtin_clzll(range); }

// The estimated bits of `values` under c: the frame of reference's width over the regular values,
// and every exception's position and value.
template <class F>
double estimate_bits(const F* values, int count, Combination c) {
  using Int = typename Traits<F>::Int;
  Int lo = std::numeric_limits<Int>::max(), hi = std::numeric_limits<Int>::min();
  int exceptions = 0;
  for (int i = 0; i < count; ++i) {
    Int n;
    if (!encode_value(values[i], c, &n)) {
      ++exceptions;
      continue;
    }
    lo = std::min(lo, n), hi = std::max(hi, n);
  }
  const int w = exceptions == count ? 0 : bit_width(std::uint64_t(hi) - std::uint64_t(lo));
  return double(w) * count + double(exceptions) * (Traits<F>::kBits + kPositionBits);
}

// Up to `want` values of [begin, end) evenly spaced.
template <class F>
std::vector<F> sample(const F* begin, const F* end, int want) {
  std::vector<F> out;
  const std::int64_t len = end - begin;
  if (len <= 0) return out;
  const std::int64_t step = std::max<std::int64_t>(1, len / want);
  for (std::int64_t i = 0; i < len && std::int64_t(out.size()) < want; i += step) out.push_back(begin[i]);
  return out;
}

// The best combination of a sample: the smallest estimate, ties to the larger exponent, then factor.
template <class F>
Combination best_combination(const std::vector<F>& s, double* bits = nullptr) {
  Combination best;
  double best_bits = std::numeric_limits<double>::infinity();
  for (int e = Traits<F>::kMaxExp; e >= 0; --e)
    for (int f = e; f >= 0; --f) {
      const double b = estimate_bits(s.data(), int(s.size()), Combination{e, f});
      if (b < best_bits) best_bits = b, best = {e, f};
    }
  if (bits) *bits = best_bits;
  return best;
}

// The first level's sample of the row group [first, first + vectors) of values[0, n): kSampledVectors
// vectors evenly spaced, kSamplesPerVector values of each.
template <class F>
std::vector<std::vector<F>> group_sample(const F* values, std::int64_t n, std::int64_t first, std::int64_t vectors) {
  std::vector<std::vector<F>> out;
  const std::int64_t step = std::max<std::int64_t>(1, vectors / kSampledVectors);
  for (std::int64_t v = first; v < first + vectors; v += step)
    out.push_back(sample(values + v * kVector, values + std::min<std::int64_t>(n, (v + 1) * kVector), kSamplesPerVector));
  return out;
}

// First level: the combinations that win most often over the sampled vectors of the row group
// [first, first + vectors) of values[0, n), at most kCandidates, the most frequent first.
template <class F>
std::vector<Combination> row_group_candidates(const F* values, std::int64_t n, std::int64_t first, std::int64_t vectors) {
  std::map<std::pair<int, int>, int> wins;
  for (const auto& s : group_sample(values, n, first, vectors)) {
    const Combination c = best_combination(s);
    ++wins[{c.e, c.f}];
  }
  std::vector<std::pair<int, Combination>> ranked;
  for (const auto& [ef, count] : wins) ranked.push_back({count, Combination{ef.first, ef.second}});
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) {
    if (a.first != b.first) return a.first > b.first;
    return a.second.e != b.second.e ? a.second.e > b.second.e : a.second.f > b.second.f;
  });
  std::vector<Combination> out;
  for (std::size_t i = 0; i < ranked.size() && int(i) < kCandidates; ++i) out.push_back(ranked[i].second);
  return out;
}

// Second level: the vector's combination among the candidates, on a sample of its values; the
// search stops after kEarlyExit candidates in a row that do no better.
template <class F>
Combination vector_combination(const F* begin, const F* end, const std::vector<Combination>& candidates) {
  if (candidates.size() == 1) return candidates[0];
  const auto s = sample(begin, end, kSamplesPerVector);
  Combination best = candidates[0];
  double best_bits = estimate_bits(s.data(), int(s.size()), best);
  int worse = 0;
  for (std::size_t i = 1; i < candidates.size() && worse < kEarlyExit; ++i) {
    const double b = estimate_bits(s.data(), int(s.size()), candidates[i]);
    if (b < best_bits) best_bits = b, best = candidates[i], worse = 0;
    else ++worse;
  }
  return best;
}

// One ALP vector: the combination, the frame (base and width), every value's integer (an
// exception's the filler) and the exceptions' in-vector positions and original bits.
template <class F>
struct AlpVector {
  using Int = typename Traits<F>::Int;
  Combination c;
  Int base = 0;
  int w = 0;
  std::vector<Int> ints;
  std::vector<std::uint16_t> exception_pos;
  std::vector<typename Traits<F>::Bits> exception_bits;
  // e, f and w a byte each, the base a whole word.
  static constexpr double kHeaderBits = 3 * 8 + Traits<F>::kBits;
  double bits() const {
    return kHeaderBits + double(w) * double(ints.size()) + double(exception_pos.size()) * (Traits<F>::kBits + kPositionBits);
  }
};

template <class F>
AlpVector<F> encode_vector(const F* values, int count, Combination c) {
  using Int = typename Traits<F>::Int;
  AlpVector<F> v;
  v.c = c;
  v.ints.resize(std::size_t(count));
  std::vector<char> regular(static_cast<std::size_t>(count));
  bool any = false;
  Int filler = 0;
  for (int i = 0; i < count; ++i) {
    regular[i] = encode_value(values[i], c, &v.ints[i]);
    if (regular[i] && !any) any = true, filler = v.ints[i];
  }
  Int lo = filler, hi = filler;
  for (int i = 0; i < count; ++i) {
    if (!regular[i]) {
      v.ints[i] = filler;
      v.exception_pos.push_back(std::uint16_t(i));
      v.exception_bits.push_back(bits_of(values[i]));
    }
    lo = std::min(lo, v.ints[i]), hi = std::max(hi, v.ints[i]);
  }
  v.base = lo;
  v.w = bit_width(std::uint64_t(hi) - std::uint64_t(lo));
  return v;
}

// ALP-RD's cut of a column: r right bits, the left parts' dictionary (most frequent first).
struct RdCut {
  int right_bits = 0;
  int code_bits = 0;
  std::vector<std::uint16_t> dictionary;
};

template <class F>
double rd_estimate(const std::vector<F>& s, int r, RdCut* cut) {
  std::map<std::uint16_t, int> freq;
  for (const F v : s) ++freq[std::uint16_t(bits_of(v) >> r)];
  std::vector<std::pair<int, std::uint16_t>> ranked;
  for (const auto& [left, count] : freq) ranked.push_back({count, left});
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  RdCut c;
  c.right_bits = r;
  int covered = 0;
  for (std::size_t i = 0; i < ranked.size() && int(i) < kRdDictionary; ++i) c.dictionary.push_back(ranked[i].second), covered += ranked[i].first;
  c.code_bits = bit_width(c.dictionary.size() > 1 ? c.dictionary.size() - 1 : 0);
  if (cut) *cut = c;
  const double exceptions = double(s.size()) - covered;
  return double(r + c.code_bits) * double(s.size()) + exceptions * (Traits<F>::kBits + kPositionBits);
}

template <class F>
RdCut rd_best_cut(const std::vector<F>& s, double* bits = nullptr) {
  RdCut best;
  double best_bits = std::numeric_limits<double>::infinity();
  for (int r = Traits<F>::kBits - 1; r >= Traits<F>::kBits - kRdMaxLeftBits; --r) {
    RdCut c;
    const double b = rd_estimate(s, r, &c);
    if (b < best_bits) best_bits = b, best = c;
  }
  if (bits) *bits = best_bits;
  return best;
}

enum class Scheme { Alp, AlpRd };

// An encoded column. ALP: its vectors. ALP-RD: the cut, each value's right bits and left code, and
// the exceptions (global positions, original bits) whose left part the dictionary misses.
template <class F>
struct Encoded {
  using Bits = typename Traits<F>::Bits;
  Scheme scheme = Scheme::Alp;
  std::int64_t n = 0;
  std::vector<AlpVector<F>> vectors;
  RdCut cut;
  std::vector<Bits> right;
  std::vector<std::uint8_t> codes;
  std::vector<std::int64_t> rd_exception_pos;
  std::vector<Bits> rd_exception_bits;

  std::int64_t exceptions() const {
    if (scheme == Scheme::AlpRd) return std::int64_t(rd_exception_pos.size());
    std::int64_t e = 0;
    for (const auto& v : vectors) e += std::int64_t(v.exception_pos.size());
    return e;
  }
  // Everything a decoder reads, in bits: per vector its header, packed integers and exceptions;
  // ALP-RD's dictionary and cut once, then r + code bits a value and its exceptions.
  double bits() const {
    if (scheme == Scheme::AlpRd)
      return 16.0 * double(cut.dictionary.size()) + 16.0 + double(cut.right_bits + cut.code_bits) * double(n) +
             double(rd_exception_pos.size()) * (Traits<F>::kBits + kPositionBits);
    double b = 0;
    for (const auto& v : vectors) b += v.bits();
    return b;
  }
  double bits_per_value() const { return n > 0 ? bits() / double(n) : 0.0; }
};

// The sample both schemes are judged on: kSampledVectors vectors a row group, kSamplesPerVector values each.
template <class F>
std::vector<std::vector<F>> column_sample(const F* values, std::int64_t n) {
  std::vector<std::vector<F>> out;
  const std::int64_t vectors = (n + kVector - 1) / kVector;
  for (std::int64_t g = 0; g < vectors; g += kRowGroupVectors)
    for (auto& s : group_sample(values, n, g, std::min<std::int64_t>(kRowGroupVectors, vectors - g))) out.push_back(std::move(s));
  return out;
}

// Which scheme the column takes: ALP's best combination a sampled vector, against ALP-RD's best cut
// over all sampled values.
template <class F>
Scheme choose_scheme(const F* values, std::int64_t n) {
  if (n == 0) return Scheme::Alp;
  double alp = 0;
  std::vector<F> all;
  for (const auto& s : column_sample(values, n)) {
    double b = 0;
    best_combination(s, &b);
    alp += b + AlpVector<F>::kHeaderBits * double(s.size()) / kVector;
    all.insert(all.end(), s.begin(), s.end());
  }
  double rd = 0;
  rd_best_cut(all, &rd);
  return rd < alp ? Scheme::AlpRd : Scheme::Alp;
}

// `threads` (0: every core) split the row groups (ALP) or the values (ALP-RD); the encoding is the
// same for any count: each row group's candidates come from its own sample, and ALP-RD's cut from
// the column's.
template <class F>
Encoded<F> encode(const F* values, std::int64_t n, Scheme scheme, int threads = 1) {
  Encoded<F> out;
  out.n = n;
  out.scheme = scheme;
  if (n < 0) throw std::invalid_argument("alp::encode: n < 0");
  const std::int64_t vectors = (n + kVector - 1) / kVector;
  threads = lp::cpu::resolve_threads(threads);
  if (scheme == Scheme::Alp) {
    out.vectors.resize(std::size_t(vectors));
    const std::int64_t groups = (vectors + kRowGroupVectors - 1) / kRowGroupVectors;
    lp::cpu::run_threads(threads, [&](int t) {
      for (std::int64_t gi = groups * t / threads; gi < groups * (t + 1) / threads; ++gi) {
        const std::int64_t g = gi * kRowGroupVectors, in_group = std::min<std::int64_t>(kRowGroupVectors, vectors - g);
        const auto candidates = row_group_candidates(values, n, g, in_group);
        for (std::int64_t v = g; v < g + in_group; ++v) {
          const F* b = values + v * kVector;
          const F* e = values + std::min<std::int64_t>(n, (v + 1) * kVector);
          out.vectors[std::size_t(v)] = encode_vector(b, int(e - b), vector_combination(b, e, candidates));
        }
      }
    });
    return out;
  }
  std::vector<F> all;
  for (const auto& s : column_sample(values, n)) all.insert(all.end(), s.begin(), s.end());
  out.cut = rd_best_cut(all);
  const int r = out.cut.right_bits;
  const auto mask = r >= Traits<F>::kBits ? ~typename Traits<F>::Bits(0) : (typename Traits<F>::Bits(1) << r) - 1;
  out.right.resize(std::size_t(n));
  out.codes.resize(std::size_t(n));
  // Each thread's exceptions in position order, joined in thread order.
  std::vector<std::vector<std::int64_t>> pos(static_cast<std::size_t>(threads));
  std::vector<std::vector<typename Traits<F>::Bits>> bits(static_cast<std::size_t>(threads));
  lp::cpu::run_threads(threads, [&](int t) {
    for (std::int64_t i = n * t / threads; i < n * (t + 1) / threads; ++i) {
      const auto b = bits_of(values[i]);
      out.right[std::size_t(i)] = b & mask;
      const auto left = std::uint16_t(b >> r);
      const auto at = std::find(out.cut.dictionary.begin(), out.cut.dictionary.end(), left);
      if (at == out.cut.dictionary.end()) {
        out.codes[std::size_t(i)] = 0;
        pos[std::size_t(t)].push_back(i);
        bits[std::size_t(t)].push_back(b);
      } else {
        out.codes[std::size_t(i)] = std::uint8_t(at - out.cut.dictionary.begin());
      }
    }
  });
  for (int t = 0; t < threads; ++t) {
    out.rd_exception_pos.insert(out.rd_exception_pos.end(), pos[std::size_t(t)].begin(), pos[std::size_t(t)].end());
    out.rd_exception_bits.insert(out.rd_exception_bits.end(), bits[std::size_t(t)].begin(), bits[std::size_t(t)].end());
  }
  return out;
}

template <class F>
Encoded<F> encode(const F* values, std::int64_t n, int threads = 1) {
  return encode(values, n, choose_scheme(values, n), threads);
}

// The reference decoder: every value, then the exceptions patched in.
template <class F>
std::vector<F> decode(const Encoded<F>& a) {
  std::vector<F> out(std::size_t(a.n));
  if (a.scheme == Scheme::Alp) {
    std::int64_t at = 0;
    for (const auto& v : a.vectors) {
      for (std::size_t i = 0; i < v.ints.size(); ++i) out[std::size_t(at) + i] = decode_value<F>(v.ints[i], v.c);
      for (std::size_t k = 0; k < v.exception_pos.size(); ++k) out[std::size_t(at) + v.exception_pos[k]] = from_bits<F>(v.exception_bits[k]);
      at += std::int64_t(v.ints.size());
    }
    return out;
  }
  const int r = a.cut.right_bits;
  for (std::int64_t i = 0; i < a.n; ++i) {
    const auto left = typename Traits<F>::Bits(a.cut.dictionary.empty() ? 0 : a.cut.dictionary[a.codes[std::size_t(i)]]);
    out[std::size_t(i)] = from_bits<F>((left << r) | a.right[std::size_t(i)]);
  }
  for (std::size_t k = 0; k < a.rd_exception_pos.size(); ++k) out[std::size_t(a.rd_exception_pos[k])] = from_bits<F>(a.rd_exception_bits[k]);
  return out;
}

}  // namespace lp::cpu::patched::alp
