// The multireduce operators of the thesis (section 1.2: an associative operator with identity; the
// buckets start at the identity). Host and device share them, so the CPU tests cover what kernels
// run. `commutative` tells a variant whether it may reorder inputs; `name`/`type_name` are what the
// study's `op`/`type` axes call them.
#pragma once
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

#include "../common/hd.hpp"

namespace lp::multireduce {

// An affine map x -> a*x + b on uint32 (mod 2^32); composing maps is associative, not commutative.
struct Affine32 {
  std::uint32_t a, b;
  LP_HD bool operator==(const Affine32& o) const { return a == o.a && b == o.b; }
  LP_HD bool operator!=(const Affine32& o) const { return !(*this == o); }
};

// Addition. Integers add in unsigned arithmetic: wrap-around is defined (and what GPU atomics
// do), so any input values are valid and any order gives the same bits.
template <class T>
struct Add {
  using value_type = T;
  static constexpr bool commutative = true;
  static constexpr const char* name = "add";
  LP_HD static T identity() { return T(0); }
  LP_HD static T apply(T x, T y) {
    if constexpr (std::numeric_limits<T>::is_integer) {
      using U = std::make_unsigned_t<T>;
      return static_cast<T>(static_cast<U>(x) + static_cast<U>(y));
    } else {
      return x + y;
    }
  }
};

template <class T>
struct Min {
  using value_type = T;
  static constexpr bool commutative = true;
  static constexpr const char* name = "min";
  LP_HD static T identity() { return std::numeric_limits<T>::max(); }
  LP_HD static T apply(T x, T y) { return y < x ? y : x; }
};

template <class T>
struct Max {
  using value_type = T;
  static constexpr bool commutative = true;
  static constexpr const char* name = "max";
  LP_HD static T identity() { return std::numeric_limits<T>::lowest(); }
  LP_HD static T apply(T x, T y) { return x < y ? y : x; }
};

// Composition of affine maps in input order: (a,b) ∘ (c,d) = (a·c, a·d + b), identity (1,0). The
// result of a bucket depends on the order of its inputs, so it catches any reordering variant.
struct Compose {
  using value_type = Affine32;
  static constexpr bool commutative = false;
  static constexpr const char* name = "affine";
  LP_HD static Affine32 identity() { return {1u, 0u}; }
  LP_HD static Affine32 apply(Affine32 x, Affine32 y) { return {x.a * y.a, x.a * y.b + x.b}; }
};

// "Last" (x ⊙ y = y): multireduce becomes the thesis's scatter, the last writer wins. A true
// identity needs an element no input equals, so the identity is INT32_MIN and inputs never take it
// (the study's values are input indices); x ⊙ e = x keeps the law exact.
struct Last {
  using value_type = std::int32_t;
  static constexpr bool commutative = false;
  static constexpr const char* name = "last";
  LP_HD static std::int32_t identity() { return std::numeric_limits<std::int32_t>::min(); }
  LP_HD static std::int32_t apply(std::int32_t x, std::int32_t y) { return y == identity() ? x : y; }
};

template <class T>
struct TypeName;
template <> struct TypeName<std::int32_t> { static constexpr const char* value = "int32"; };
template <> struct TypeName<std::int64_t> { static constexpr const char* value = "int64"; };
template <> struct TypeName<float> { static constexpr const char* value = "float32"; };
template <> struct TypeName<Affine32> { static constexpr const char* value = "uint32x2"; };

// Every (operator, type) the study measures. One list, so that each variant family instantiates
// exactly these.
#define LP_MULTIREDUCE_FOR_EACH_OP(X)                                                                 \
  X(::lp::multireduce::Add<std::int32_t>) X(::lp::multireduce::Add<std::int64_t>)                     \
  X(::lp::multireduce::Add<float>) X(::lp::multireduce::Min<std::int32_t>)                            \
  X(::lp::multireduce::Max<std::int32_t>) X(::lp::multireduce::Compose) X(::lp::multireduce::Last)

}  // namespace lp::multireduce
