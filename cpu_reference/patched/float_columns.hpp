// Generated float columns for the patched study's ALP path (alp.hpp), each deterministic from its
// seed and shaped like a kind of real column: prices with two decimals, coordinates with six,
// percentages with one, integers stored as floats, a sensor's random walk with two decimals, uniform
// random values of full precision (nearly all exceptions to ALP: its fallback's case), and prices
// with the special values mixed in (NaN, both infinities, -0.0, subnormals, the extremes). Values
// are made the way a program makes them: the decimal's integer divided by its power of ten, in F.
// Plain C++.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"

namespace lp::cpu::patched {

enum class FloatColumn { Prices, Coordinates, Percentages, Integers, RandomWalk, Uniform, Specials };

inline const char* name(FloatColumn k) {
  switch (k) {
    case FloatColumn::Prices: return "prices";
    case FloatColumn::Coordinates: return "coordinates";
    case FloatColumn::Percentages: return "percentages";
    case FloatColumn::Integers: return "integers";
    case FloatColumn::RandomWalk: return "random_walk";
    case FloatColumn::Uniform: return "uniform";
    case FloatColumn::Specials: return "specials";
  }
  return "?";
}

inline FloatColumn float_column(const std::string& s) {
  for (FloatColumn k : {FloatColumn::Prices, FloatColumn::Coordinates, FloatColumn::Percentages, FloatColumn::Integers,
                        FloatColumn::RandomWalk, FloatColumn::Uniform, FloatColumn::Specials})
    if (s == name(k)) return k;
  throw std::invalid_argument("unknown float column '" + s +
                              "' (prices, coordinates, percentages, integers, random_walk, uniform, specials)");
}

// The special values of F, each bit pattern a decoder must give back: NaN (quiet, and one with a
// payload), both infinities, -0.0, the smallest and largest subnormals, the extremes.
template <class F>
F float_of_bits(std::uint64_t b) {
  F v;
  if constexpr (sizeof(F) == 8) {
    std::memcpy(&v, &b, 8);
  } else {
    const auto w = static_cast<std::uint32_t>(b);
    std::memcpy(&v, &w, 4);
  }
  return v;
}

template <class F>
std::vector<F> special_values() {
  using L = std::numeric_limits<F>;
  const bool d = sizeof(F) == 8;
  const F payload_nan = float_of_bits<F>(d ? 0x7ff8000000000123ull : 0x7fc00123ull);    // quiet, with a payload
  const F signalling_nan = float_of_bits<F>(d ? 0xfff0000000000007ull : 0xff800007ull);  // negative, signalling
  return {L::quiet_NaN(), payload_nan, signalling_nan, L::infinity(), -L::infinity(), F(-0.0), F(0.0), L::denorm_min(), -L::denorm_min(),
          F(L::min() - L::denorm_min()), L::min(), L::max(), L::lowest(), L::epsilon()};
}

template <class F>
std::vector<F> make_float_column(FloatColumn kind, std::int64_t n, std::uint64_t seed) {
  if (n < 0) throw std::invalid_argument("make_float_column: n < 0");
  harness::Rng rng(harness::derive_seed(seed, std::string("float_column/") + name(kind)));
  std::vector<F> out(static_cast<std::size_t>(n));
  // Cents from 1 to 10^6 with a log-uniform spread, as prices are.
  auto cents = [&] { return std::floor(std::exp(rng.unit() * std::log(1e6))); };
  double walk = 20.0;
  const auto specials = special_values<F>();
  for (std::int64_t i = 0; i < n; ++i) {
    F v = 0;
    switch (kind) {
      case FloatColumn::Prices: v = F(cents()) / F(100); break;
      case FloatColumn::Coordinates: v = F(std::int64_t(rng.below(360000001)) - 180000000) / F(1000000); break;
      case FloatColumn::Percentages: v = F(rng.below(1001)) / F(10); break;
      case FloatColumn::Integers: v = F(rng.below(1000000)); break;
      case FloatColumn::RandomWalk:
        walk += (rng.unit() - 0.5) * 0.5;
        v = F(std::llround(walk * 100.0)) / F(100);
        break;
      case FloatColumn::Uniform: v = F(rng.unit()); break;
      case FloatColumn::Specials:
        v = rng.below(64) == 0 ? specials[rng.below(specials.size())] : F(cents()) / F(100);
        break;
    }
    out[static_cast<std::size_t>(i)] = v;
  }
  return out;
}

}  // namespace lp::cpu::patched
