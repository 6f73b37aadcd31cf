// 128-bit integer helpers for the decimal fixed-point library (fixed_point.hpp), shared by CPU code
// and GPU kernels (the decimal128 article, docs/references.md: CUDA 11.5+ has __int128 in device
// code). Every LP_HD function is device-clean: no std::numeric_limits<__int128> (absent in strict
// -std=c++17 and in device code), no __builtin_*_overflow, no exceptions, no std::string. Checked
// arithmetic always stores the wrapped (two's complement, modulo 2^bits) result and returns whether
// the exact result did not fit. The two text functions at the end are host-only.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "kernels/common/hd.hpp"

namespace lp::decimal {

using int128 = __int128;
using uint128 = unsigned __int128;

constexpr uint128 kUint128Max = ~uint128(0);
constexpr int128 kInt128Max = int128(kUint128Max >> 1);  //  2^127 - 1
constexpr int128 kInt128Min = -kInt128Max - 1;           // -2^127

// The representation types of fixed_point: int32_t, int64_t and int128. `digits10` is the largest
// d such that every d-digit decimal fits (9, 18, 38).
template <class Rep>
struct rep_traits;
template <>
struct rep_traits<std::int32_t> {
  using unsigned_type = std::uint32_t;
  static constexpr int bits = 32;
  static constexpr int digits10 = 9;
};
template <>
struct rep_traits<std::int64_t> {
  using unsigned_type = std::uint64_t;
  static constexpr int bits = 64;
  static constexpr int digits10 = 18;
};
template <>
struct rep_traits<int128> {
  using unsigned_type = uint128;
  static constexpr int bits = 128;
  static constexpr int digits10 = 38;
};

template <class Rep>
LP_HD constexpr Rep rep_max() {
  using U = typename rep_traits<Rep>::unsigned_type;
  return Rep(U(~U(0)) >> 1);
}
template <class Rep>
LP_HD constexpr Rep rep_min() {
  return Rep(-rep_max<Rep>() - 1);
}

// |v| as an unsigned 128-bit value, exact for every Rep value including the minimum.
template <class Rep>
LP_HD constexpr uint128 magnitude(Rep v) {
  return v < 0 ? uint128(0) - uint128(int128(v)) : uint128(int128(v));
}

// The Rep whose magnitude is m (taken modulo 2^bits) and sign negative when `negative`: the
// wrapped value when m is out of range, exact otherwise (m = 2^(bits-1) with negative gives the
// minimum).
template <class Rep>
LP_HD constexpr Rep from_magnitude(uint128 m, bool negative) {
  using U = typename rep_traits<Rep>::unsigned_type;
  return negative ? Rep(U(U(0) - U(m))) : Rep(U(m));
}

// 10^k for k in [0, 38]; a larger k gives 10^k modulo 2^128, a negative k gives 0.
LP_HD constexpr uint128 pow10_u128(int k) {
  if (k < 0) return 0;
  uint128 r = 1;
  for (int i = 0; i < k; ++i) r *= 10u;
  return r;
}

// 10^k in Rep; k must be at most rep_traits<Rep>::digits10 (9, 18, 38).
template <class Rep>
LP_HD constexpr Rep pow10(int k) {
  return Rep(pow10_u128(k));
}

// out = a * b modulo 2^128; returns whether the exact product needs more than 128 bits. Exact
// through the 64-bit halves of the operands: with a = a1·2^64 + a0 and b = b1·2^64 + b0 the product
// fits only if a1·b1 = 0, the cross term a1·b0 + a0·b1 (one of them is zero then) fits 64 bits,
// and adding it, shifted, to a0·b0 does not carry out.
LP_HD constexpr bool umul128_overflow(uint128 a, uint128 b, uint128* out) {
  *out = a * b;
  const std::uint64_t a1 = std::uint64_t(a >> 64), a0 = std::uint64_t(a);
  const std::uint64_t b1 = std::uint64_t(b >> 64), b0 = std::uint64_t(b);
  if (a1 != 0 && b1 != 0) return true;
  const uint128 cross = uint128(a1) * b0 + uint128(a0) * b1;  // at most one term is nonzero
  if ((cross >> 64) != 0) return true;
  const uint128 low = uint128(a0) * b0;
  const uint128 sum = low + (cross << 64);
  return sum < low;
}

// radix^k: out = the power modulo 2^128 (square and multiply, so a huge k costs log k steps);
// returns whether the power exceeds 128 bits. radix must be 2 or 10, k >= 0.
LP_HD constexpr bool upow_overflow(unsigned radix, int k, uint128* out) {
  if (radix == 2u) {
    *out = k < 128 ? uint128(1) << k : uint128(0);
    return k >= 128;
  }
  uint128 r = 1, base = radix;
  for (int e = k; e > 0; e >>= 1) {
    if (e & 1) r *= base;
    base *= base;
  }
  *out = r;
  return k > 38;  // 10^38 < 2^128 < 10^39
}

// Checked signed arithmetic for int32_t, int64_t and int128. Each stores the wrapped result in *out
// and returns true when the exact result does not fit Rep. Addition and subtraction wrap in the
// unsigned type and read overflow from the signs: a sum overflows when both operands have the same
// sign and the result's differs.
template <class Rep>
LP_HD constexpr bool add_overflow(Rep a, Rep b, Rep* out) {
  using U = typename rep_traits<Rep>::unsigned_type;
  const Rep s = Rep(U(U(a) + U(b)));
  *out = s;
  return ((a ^ s) & (b ^ s)) < 0;
}

template <class Rep>
LP_HD constexpr bool sub_overflow(Rep a, Rep b, Rep* out) {
  using U = typename rep_traits<Rep>::unsigned_type;
  const Rep d = Rep(U(U(a) - U(b)));
  *out = d;
  return ((a ^ b) & (a ^ d)) < 0;
}

// Multiplication: int32 and int64 through the exact product in the next wider type; int128
// through the magnitudes (umul128_overflow) against the bound of the result's sign (2^127 for a
// negative product, 2^127 - 1 otherwise).
template <class Rep>
LP_HD constexpr bool mul_overflow(Rep a, Rep b, Rep* out) {
  using U = typename rep_traits<Rep>::unsigned_type;
  *out = Rep(U(U(a) * U(b)));
  if constexpr (sizeof(Rep) == 4) {
    const std::int64_t p = std::int64_t(a) * std::int64_t(b);
    return p > std::int64_t(rep_max<Rep>()) || p < std::int64_t(rep_min<Rep>());
  } else if constexpr (sizeof(Rep) == 8) {
    const int128 p = int128(a) * int128(b);
    return p > int128(rep_max<Rep>()) || p < int128(rep_min<Rep>());
  } else {
    const bool negative = (a < 0) != (b < 0);
    uint128 m = 0;
    if (umul128_overflow(magnitude(a), magnitude(b), &m)) return true;
    const uint128 bound = uint128(kInt128Max) + (negative ? 1u : 0u);
    return m > bound;
  }
}

// -a: overflows only for the minimum (which it leaves unchanged, the wrapped value).
template <class Rep>
LP_HD constexpr bool neg_overflow(Rep a, Rep* out) {
  using U = typename rep_traits<Rep>::unsigned_type;
  *out = Rep(U(U(0) - U(a)));
  return a == rep_min<Rep>();
}

// a / b truncated toward zero: overflows only for min / -1 (out = min, the wrapped value). b == 0
// is the caller's to reject: it stores 0 and returns true.
template <class Rep>
LP_HD constexpr bool div_overflow(Rep a, Rep b, Rep* out) {
  if (b == 0) {
    *out = 0;
    return true;
  }
  if (b == Rep(-1)) return neg_overflow(a, out);
  *out = Rep(a / b);
  return false;
}

// Spark's CheckOverflow on an unscaled value: |v| <= 10^precision - 1. precision <= 0 admits only
// 0; precision >= 39 admits every int128.
LP_HD constexpr bool fits_precision(int128 v, int precision) {
  if (precision <= 0) return v == 0;
  if (precision > 38) return true;
  return magnitude(v) <= pow10_u128(precision) - 1u;
}

// ---- host only ----

// Decimal digits of v, exact.
inline std::string to_string_u128(uint128 v) {
  char buf[40];
  int n = 0;
  do {
    buf[n++] = char('0' + int(v % 10u));
    v /= 10u;
  } while (v != 0);
  std::string s;
  s.reserve(std::size_t(n));
  while (n > 0) s.push_back(buf[--n]);
  return s;
}

// "-170141183460469231731687303715884105728" for kInt128Min, exact for every value.
inline std::string to_string_i128(int128 v) {
  return v < 0 ? "-" + to_string_u128(magnitude(v)) : to_string_u128(magnitude(v));
}

// An optional sign ('+' or '-') and one or more decimal digits, nothing else (no spaces). Returns
// false, leaving *out untouched, when the text is malformed or the value is outside
// [kInt128Min, kInt128Max]. Exact, including kInt128Min.
inline bool parse_i128(std::string_view text, int128* out) {
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  if (i == text.size()) return false;
  const uint128 bound = uint128(kInt128Max) + (negative ? 1u : 0u);
  uint128 m = 0;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c < '0' || c > '9') return false;
    const unsigned d = unsigned(c - '0');
    if (m > (bound - d) / 10u) return false;
    m = m * 10u + d;
  }
  *out = from_magnitude<int128>(m, negative);
  return true;
}

}  // namespace lp::decimal
