// Input values over multireduce's operators, and their printing, shared by the studies built on
// those operators (multireduce, multiscan), so both draw the same values from the same seed.
#pragma once
#include <cstdint>
#include <sstream>
#include <string>
#include <type_traits>

#include "apps/harness/datagen.hpp"
#include "kernels/multireduce/operators.hpp"

namespace lp::multireduce_study {

inline std::string show(std::int32_t v) { return std::to_string(v); }
inline std::string show(std::int64_t v) { return std::to_string(v); }
inline std::string show(float v) {
  std::ostringstream os;
  os.precision(9);
  os << v;
  return os.str();
}
inline std::string show(multireduce::Affine32 v) { return "(" + std::to_string(v.a) + "," + std::to_string(v.b) + ")"; }

// One random input value: full-range integers (wrap-around is exact), floats in [-1, 1) (zero
// mean keeps partial sums small, so every summation order is meaningful), affine maps with odd
// slopes (their products never collapse to 0, so every input still shows in the result).
template <class T>
T random_value(harness::Rng& r) {
  if constexpr (std::is_same_v<T, multireduce::Affine32>) {
    const std::uint64_t x = r.next();
    return multireduce::Affine32{static_cast<std::uint32_t>(x) | 1u, static_cast<std::uint32_t>(x >> 32)};
  } else if constexpr (std::is_floating_point_v<T>) {
    return static_cast<T>(2.0 * r.unit() - 1.0);
  } else {
    return static_cast<T>(r.next());
  }
}

}  // namespace lp::multireduce_study
