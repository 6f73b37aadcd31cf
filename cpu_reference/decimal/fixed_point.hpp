// A decimal (and binary) fixed-point number after libcudf's `fixed_point<Rep, Radix>`
// (the decimal128 article, docs/references.md): an integer `value` of type Rep (int32_t,
// int64_t or __int128) and a run-time, strongly typed `scale`; the number is value · radix^scale,
// so a negative scale counts digits after the point (123 at scale -2 is 1.23) and a positive one
// drops low digits (17 at scale 2 is 1700). The same code serves CPU references and GPU kernels:
// every LP_HD function is device-clean (no std::string, exceptions, iostream or
// std::numeric_limits<__int128>); the text functions at the end are host-only.
//
// Overflow. Every operation has a checked form returning Checked<T> {value, overflow,
// div_by_zero}: overflow says the exact result does not fit Rep: a sum, difference or product past
// the range (+ and - shift the larger-scale operand to the common scale first; a shifted operand
// past the range whose sum comes back in range is no overflow), min / -1, -min, a rescale that
// multiplies past the range. Division by zero is flagged apart. The plain operators (+, -, *, /,
// unary -) call the checked form and return its value, which on overflow is the wrapped one (the
// exact result modulo 2^bits), as libcudf's operators leave it; on division by zero they return 0
// at the quotient's scale. Scales and their sums and differences are assumed to stay far inside
// int (|scale| < 2^30).
//
// Where this deviates from libcudf:
//  * Construction from a floating value rounds value · radix^-scale to the nearest integer (ties
//    away from zero); libcudf truncates. The double nearest a short decimal often lies just below
//    it, and truncation then loses the last digit: 0.29 is 0.28999999999999998, 0.29 · 100 gives
//    28.999999999999996, and libcudf's decimal32{0.29, scale -2} is 0.28 where this one is 0.29.
//    Every example of the article comes out the same either way: decimal32{1.2345, -2} = 1.23,
//    decimal32{17.29, -2} = 17.29, binary32{17.29, -2} = 17.25, {4.2, 0} = 4, and
//    decimal32{256.49999, -5} = 256.49999 (that double lies just above, 256.49999000000002525).
//  * rounded() adds HALF_UP rounding (Spark's, away from zero at the half) next to libcudf's
//    truncating rescale (rescaled()); comparisons are exact across scales without overflow.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "cpu_reference/decimal/int128.hpp"
#include "kernels/common/hd.hpp"

namespace lp::decimal {

enum class Radix : int { Base2 = 2, Base10 = 10 };

// The exponent of the radix; a distinct type so a scale is never passed where a value is meant.
struct scale_type {
  int value;
  LP_HD explicit constexpr scale_type(int v) : value(v) {}
};
LP_HD constexpr bool operator==(scale_type a, scale_type b) { return a.value == b.value; }
LP_HD constexpr bool operator!=(scale_type a, scale_type b) { return a.value != b.value; }

// A value already shifted: the fixed-point number is exactly value · radix^scale.
template <class Rep>
struct scaled_integer {
  Rep value;
  scale_type scale;
  LP_HD constexpr scaled_integer(Rep v, scale_type s) : value(v), scale(s) {}
};

// The result of a checked operation.
template <class T>
struct Checked {
  T value;
  bool overflow = false;
  bool div_by_zero = false;
  LP_HD constexpr bool ok() const { return !overflow && !div_by_zero; }
};

namespace detail {

template <class T>
constexpr bool is_rep_v =
    std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> || std::is_same_v<T, int128>;

// Integers a fixed_point is built from: the standard ones up to 64 bits (not bool) and int128
// (std::is_integral does not know __int128 in strict modes).
template <class T>
constexpr bool is_integer_v =
    (std::is_integral_v<T> && !std::is_same_v<T, bool> && sizeof(T) <= 8) || std::is_same_v<T, int128>;

template <class T>
constexpr bool is_floating_v = std::is_same_v<T, float> || std::is_same_v<T, double>;

// v · radix^k for k >= 0: out = the product modulo 2^bits; returns whether the exact product does
// not fit Rep. Exact through magnitudes, so -1 · 2^31 fits int32 although 2^31 does not.
template <class Rep>
LP_HD constexpr bool shift_up(Rep v, Radix r, int k, Rep* out) {
  using U = typename rep_traits<Rep>::unsigned_type;
  uint128 p = 0;
  const bool power_overflow = upow_overflow(unsigned(r), k, &p);
  *out = Rep(U(U(v) * U(p)));
  if (v == 0) return false;
  if (power_overflow) return true;
  uint128 m = 0;
  if (umul128_overflow(magnitude(v), p, &m)) return true;
  return m > uint128(rep_max<Rep>()) + (v < 0 ? 1u : 0u);
}

// v / radix^k for k >= 0, truncated toward zero (libcudf's shift). Never overflows.
template <class Rep>
LP_HD constexpr Rep shift_down(Rep v, Radix r, int k) {
  uint128 p = 0;
  if (upow_overflow(unsigned(r), k, &p)) return Rep(0);  // |v| < 2^128 <= radix^k
  return from_magnitude<Rep>(magnitude(v) / p, v < 0);
}

// v / radix^k for k >= 0, rounded HALF_UP (ties away from zero, Spark's ROUND_HALF_UP). Never
// overflows: the rounded quotient's magnitude is at most |v|.
template <class Rep>
LP_HD constexpr Rep shift_down_half_up(Rep v, Radix r, int k) {
  const uint128 m = magnitude(v);
  uint128 p = 0;
  if (upow_overflow(unsigned(r), k, &p)) {
    // radix^k >= 2^128 > 2|v| except for 2^128 and |v| = 2^127 (int128's minimum): exactly -0.5.
    const bool half = r == Radix::Base2 && k == 128 && m == (uint128(1) << 127);
    return half ? Rep(-1) : Rep(0);
  }
  uint128 q = m / p;
  const uint128 rem = m % p;
  if (rem >= p - rem) ++q;  // rem >= p / 2, without forming 2 · rem
  return from_magnitude<Rep>(q, v < 0);
}

// radix^k as a double for k >= 0 (exact while it can be: 10^k for k <= 22, 2^k up to 2^1023;
// infinity past the range).
LP_HD constexpr double pow_double(Radix r, int k) {
  double base = r == Radix::Base2 ? 2.0 : 10.0;
  double x = 1.0;
  for (; k > 0; k >>= 1) {
    if (k & 1) x *= base;
    base *= base;
  }
  return x;
}

// y rounded to the nearest integer (ties away from zero) as an int128; *overflow when y is NaN or
// outside [-2^127, 2^127). Exact: below 2^52 through the fraction y - trunc(y) (exact there), above
// it y is already an integer and is split into its high and low 64 bits without rounding.
LP_HD constexpr int128 round_to_int128(double y, bool* overflow) {
  constexpr double two52 = 4503599627370496.0;
  constexpr double two64 = 18446744073709551616.0;
  constexpr double two127 = 170141183460469231731687303715884105728.0;
  *overflow = false;
  if (!(y == y) || y >= two127 || y < -two127) {
    *overflow = true;
    return 0;
  }
  const bool negative = y < 0;
  const double a = negative ? -y : y;
  uint128 m = 0;
  if (a < two52) {
    std::uint64_t t = std::uint64_t(a);
    if (a - double(t) >= 0.5) ++t;
    m = t;
  } else if (a < two64) {
    m = std::uint64_t(a);
  } else {
    const std::uint64_t hi = std::uint64_t(a / two64);         // a / 2^64 is exact
    const double lo = a - double(hi) * two64;                   // exact, in [0, 2^64)
    m = (uint128(hi) << 64) | uint128(std::uint64_t(lo));
  }
  return from_magnitude<int128>(m, negative);
}

// v as the nearest double (correctly rounded): above 64 bits the value is cut to its top 64 bits
// with the dropped bits folded into the lowest (a sticky bit below the rounding position).
LP_HD constexpr double int128_to_double(int128 v) {
  const uint128 m = magnitude(v);
  double d = 0;
  if ((m >> 64) == 0) {
    d = double(std::uint64_t(m));
  } else {
    int sh = 0;
    uint128 t = m;
    while ((t >> 64) != 0) {
      t >>= 1;
      ++sh;
    }
    const bool sticky = (m & ((uint128(1) << sh) - 1u)) != 0;
    d = double(std::uint64_t(t) | (sticky ? 1u : 0u));
    for (int i = 0; i < sh; ++i) d *= 2.0;
  }
  return v < 0 ? -d : d;
}

}  // namespace detail

template <class Rep, Radix R>
class fixed_point {
  static_assert(detail::is_rep_v<Rep>, "fixed_point's Rep is int32_t, int64_t or __int128");

 public:
  using rep = Rep;
  static constexpr Radix radix = R;

  // 0 at scale 0.
  LP_HD constexpr fixed_point() : value_(0), scale_(0) {}

  // The already shifted value: exactly s.value · radix^s.scale.
  LP_HD constexpr explicit fixed_point(scaled_integer<Rep> s) : value_(s.value), scale_(s.scale.value) {}

  // An integer shifted to `scale`: divided by radix^scale for a positive scale, truncating toward
  // zero as libcudf does (decimal32{1729, scale 2} is 1700, binary32{1729, scale 2} is 1728);
  // multiplied by radix^-scale for a negative one (wrapped on overflow; see from_integer).
  template <class T, std::enable_if_t<detail::is_integer_v<T>, int> = 0>
  LP_HD constexpr explicit fixed_point(T v, scale_type scale) : fixed_point(from_integer(v, scale).value) {}

  // An integer at scale 0.
  template <class T, std::enable_if_t<detail::is_integer_v<T>, int> = 0>
  LP_HD constexpr explicit fixed_point(T v) : fixed_point(v, scale_type{0}) {}

  // A float or double: v · radix^-scale rounded to the nearest integer (see the file comment for
  // why not truncated as in libcudf). decimal32{1.2345, scale -2} is 1.23.
  template <class T, std::enable_if_t<detail::is_floating_v<T>, int> = 0>
  LP_HD constexpr explicit fixed_point(T v, scale_type scale) : fixed_point(from_floating(v, scale).value) {}

  template <class T, std::enable_if_t<detail::is_integer_v<T>, int> = 0>
  LP_HD static constexpr Checked<fixed_point> from_integer(T v, scale_type scale) {
    int128 w = int128(v);
    bool overflow = false;
    if (scale.value >= 0)
      w = detail::shift_down(w, R, scale.value);
    else
      overflow = detail::shift_up(w, R, -scale.value, &w);
    return narrow(w, scale, overflow);
  }

  template <class T, std::enable_if_t<detail::is_floating_v<T>, int> = 0>
  LP_HD static constexpr Checked<fixed_point> from_floating(T v, scale_type scale) {
    const double x = double(v);
    if (x == 0) return narrow(0, scale, false);  // not 0 · inf for a huge negative scale
    // One rounding while the power is exact: multiply for a negative scale, divide for a positive.
    const double y = scale.value <= 0 ? x * detail::pow_double(R, -scale.value)
                                      : x / detail::pow_double(R, scale.value);
    bool overflow = false;
    const int128 w = detail::round_to_int128(y, &overflow);
    return narrow(w, scale, overflow);
  }

  LP_HD constexpr Rep value() const { return value_; }
  LP_HD constexpr scale_type scale() const { return scale_type{scale_}; }

  // The integer part, truncated toward zero (17.29 -> 17, -17.29 -> -17); a positive scale
  // multiplies (wrapping past int128, then converted to U as static_cast does).
  template <class U, std::enable_if_t<detail::is_integer_v<U>, int> = 0>
  LP_HD constexpr explicit operator U() const {
    int128 w = int128(value_);
    if (scale_ < 0)
      w = detail::shift_down(w, R, -scale_);
    else
      detail::shift_up(w, R, scale_, &w);
    return U(w);
  }

  // The nearest double to value (correctly rounded), then one multiplication or division by the
  // radix power (exact for binary and for 10^k with k <= 22): within one rounding of the exact
  // number for |value| < 2^53 and such scales. A float goes through the double.
  template <class U, std::enable_if_t<detail::is_floating_v<U>, int> = 0>
  LP_HD constexpr explicit operator U() const {
    const double d = detail::int128_to_double(int128(value_));
    return U(scale_ >= 0 ? d * detail::pow_double(R, scale_) : d / detail::pow_double(R, -scale_));
  }

  // The same number at another scale, truncating toward zero when digits are dropped (libcudf's
  // rescale); overflow when a smaller scale multiplies past Rep's range (the value then wraps).
  LP_HD constexpr Checked<fixed_point> rescaled(scale_type to) const {
    Rep v = value_;
    bool overflow = false;
    if (to.value >= scale_)
      v = detail::shift_down(value_, R, to.value - scale_);
    else
      overflow = detail::shift_up(value_, R, scale_ - to.value, &v);
    return {fixed_point(scaled_integer<Rep>(v, to)), overflow};
  }

  // Like rescaled, but dropped digits round HALF_UP (Spark's rounding, away from zero at exactly
  // half): 256.49999 to scale 0 is 256, 2.5 is 3, -2.5 is -3.
  LP_HD constexpr Checked<fixed_point> rounded(scale_type to) const {
    Rep v = value_;
    bool overflow = false;
    if (to.value >= scale_)
      v = detail::shift_down_half_up(value_, R, to.value - scale_);
    else
      overflow = detail::shift_up(value_, R, scale_ - to.value, &v);
    return {fixed_point(scaled_integer<Rep>(v, to)), overflow};
  }

 private:
  // An exact int128 value to Rep: overflow when outside Rep's range (the value then wraps).
  LP_HD static constexpr Checked<fixed_point> narrow(int128 w, scale_type scale, bool overflow) {
    if constexpr (!std::is_same_v<Rep, int128>)
      overflow = overflow || w > int128(rep_max<Rep>()) || w < int128(rep_min<Rep>());
    using U = typename rep_traits<Rep>::unsigned_type;
    return {fixed_point(scaled_integer<Rep>(Rep(U(w)), scale)), overflow};
  }

  Rep value_;
  int scale_;
};

using decimal32 = fixed_point<std::int32_t, Radix::Base10>;
using decimal64 = fixed_point<std::int64_t, Radix::Base10>;
using decimal128 = fixed_point<int128, Radix::Base10>;
using binary32 = fixed_point<std::int32_t, Radix::Base2>;
using binary64 = fixed_point<std::int64_t, Radix::Base2>;
using binary128 = fixed_point<int128, Radix::Base2>;

namespace detail {
// Whether (-1)^nx·mx + (-1)^ny·my, magnitudes below 2^128, lies in Rep's range.
template <class Rep>
LP_HD constexpr bool signed_sum_fits(bool nx, uint128 mx, bool ny, uint128 my) {
  const uint128 pos = uint128(rep_max<Rep>()), neg = pos + 1u;
  if (nx == ny) {
    const uint128 sum = mx + my;
    return sum >= mx && sum <= (nx ? neg : pos);
  }
  return mx >= my ? mx - my <= (nx ? neg : pos) : my - mx <= (ny ? neg : pos);
}

// a + b (or a - b when `subtract`) at the common scale min(a.scale, b.scale): the operand with the
// larger scale is multiplied by radix^difference. The value wraps (it is the exact result modulo
// 2^bits whatever overflowed on the way); overflow is exact: a shifted operand past Rep's range may
// still give a sum in range (214748365 + -1.0 = 2147483640 at scale -1 in int32), so then the sum is
// decided on the 128-bit magnitudes (a shift past 128 bits cannot come back into range).
template <class Rep, Radix R>
LP_HD constexpr Checked<fixed_point<Rep, R>> add_sub(fixed_point<Rep, R> a, fixed_point<Rep, R> b, bool subtract) {
  const int sa = a.scale().value, sb = b.scale().value;
  const int s = sa < sb ? sa : sb;
  Rep av = a.value(), bv = b.value(), r = 0;
  bool shift_overflow = false;
  if (sa > s) shift_overflow = shift_up(a.value(), R, sa - s, &av);
  if (sb > s) shift_overflow = shift_up(b.value(), R, sb - s, &bv);
  bool overflow = subtract ? sub_overflow(av, bv, &r) : add_overflow(av, bv, &r);
  if (shift_overflow) {
    // Only the larger-scale operand was shifted: its exact magnitude |x|·radix^k.
    const bool a_shifted = sa > s;
    uint128 p = 0, m = 0;
    const bool past128 = upow_overflow(unsigned(R), a_shifted ? sa - s : sb - s, &p) ||
                         umul128_overflow(magnitude(a_shifted ? a.value() : b.value()), p, &m);
    const uint128 ma = a_shifted ? m : magnitude(a.value()), mb = a_shifted ? magnitude(b.value()) : m;
    overflow = past128 || !signed_sum_fits<Rep>(a.value() < 0, ma, (b.value() < 0) != subtract, mb);
  }
  return {fixed_point<Rep, R>(scaled_integer<Rep>(r, scale_type{s})), overflow};
}
}  // namespace detail

// a + b at scale min(a.scale, b.scale) (1.1 + 2.2 = 3.3 at scale -1).
template <class Rep, Radix R>
LP_HD constexpr Checked<fixed_point<Rep, R>> checked_add(fixed_point<Rep, R> a, fixed_point<Rep, R> b) {
  return detail::add_sub(a, b, false);
}

// a - b at scale min(a.scale, b.scale).
template <class Rep, Radix R>
LP_HD constexpr Checked<fixed_point<Rep, R>> checked_sub(fixed_point<Rep, R> a, fixed_point<Rep, R> b) {
  return detail::add_sub(a, b, true);
}

// a · b at scale a.scale + b.scale (1.1 · 2.2 = 2.42 at scale -2).
template <class Rep, Radix R>
LP_HD constexpr Checked<fixed_point<Rep, R>> checked_mul(fixed_point<Rep, R> a, fixed_point<Rep, R> b) {
  Rep r = 0;
  const bool overflow = mul_overflow(a.value(), b.value(), &r);
  return {fixed_point<Rep, R>(scaled_integer<Rep>(r, scale_type{a.scale().value + b.scale().value})), overflow};
}

// a / b as libcudf: the values' quotient truncated toward zero, at scale a.scale - b.scale
// (1.00 / 3 = 0.33 at scale -2). b = 0 sets div_by_zero (value 0); min / -1 overflows.
template <class Rep, Radix R>
LP_HD constexpr Checked<fixed_point<Rep, R>> checked_div(fixed_point<Rep, R> a, fixed_point<Rep, R> b) {
  const scale_type s{a.scale().value - b.scale().value};
  if (b.value() == 0) return {fixed_point<Rep, R>(scaled_integer<Rep>(Rep(0), s)), false, true};
  Rep r = 0;
  const bool overflow = div_overflow(a.value(), b.value(), &r);
  return {fixed_point<Rep, R>(scaled_integer<Rep>(r, s)), overflow};
}

// -a at a's scale; overflows for Rep's minimum.
template <class Rep, Radix R>
LP_HD constexpr Checked<fixed_point<Rep, R>> checked_neg(fixed_point<Rep, R> a) {
  Rep r = 0;
  const bool overflow = neg_overflow(a.value(), &r);
  return {fixed_point<Rep, R>(scaled_integer<Rep>(r, a.scale())), overflow};
}

// The plain operators: the checked form's value (wrapped on overflow, 0 on division by zero).
template <class Rep, Radix R>
LP_HD constexpr fixed_point<Rep, R> operator+(fixed_point<Rep, R> a, fixed_point<Rep, R> b) {
  return checked_add(a, b).value;
}
template <class Rep, Radix R>
LP_HD constexpr fixed_point<Rep, R> operator-(fixed_point<Rep, R> a, fixed_point<Rep, R> b) {
  return checked_sub(a, b).value;
}
template <class Rep, Radix R>
LP_HD constexpr fixed_point<Rep, R> operator*(fixed_point<Rep, R> a, fixed_point<Rep, R> b) {
  return checked_mul(a, b).value;
}
template <class Rep, Radix R>
LP_HD constexpr fixed_point<Rep, R> operator/(fixed_point<Rep, R> a, fixed_point<Rep, R> b) {
  return checked_div(a, b).value;
}
template <class Rep, Radix R>
LP_HD constexpr fixed_point<Rep, R> operator-(fixed_point<Rep, R> a) {
  return checked_neg(a).value;
}
template <class Rep, Radix R>
LP_HD constexpr fixed_point<Rep, R>& operator+=(fixed_point<Rep, R>& a, fixed_point<Rep, R> b) {
  return a = a + b;
}
template <class Rep, Radix R>
LP_HD constexpr fixed_point<Rep, R>& operator-=(fixed_point<Rep, R>& a, fixed_point<Rep, R> b) {
  return a = a - b;
}
template <class Rep, Radix R>
LP_HD constexpr fixed_point<Rep, R>& operator*=(fixed_point<Rep, R>& a, fixed_point<Rep, R> b) {
  return a = a * b;
}
template <class Rep, Radix R>
LP_HD constexpr fixed_point<Rep, R>& operator/=(fixed_point<Rep, R>& a, fixed_point<Rep, R> b) {
  return a = a / b;
}

// -1, 0 or 1 as the exact number a is below, equal to or above b, whatever their scales. Without
// overflow: the signs decide unless equal; then the magnitudes compare with the larger-scale one
// multiplied in 128 bits (a product past 128 bits exceeds every magnitude).
template <class Rep, Radix R>
LP_HD constexpr int compare(fixed_point<Rep, R> a, fixed_point<Rep, R> b) {
  const Rep av = a.value(), bv = b.value();
  const int sign_a = av < 0 ? -1 : (av > 0 ? 1 : 0);
  const int sign_b = bv < 0 ? -1 : (bv > 0 ? 1 : 0);
  if (sign_a != sign_b) return sign_a < sign_b ? -1 : 1;
  if (sign_a == 0) return 0;
  uint128 ma = magnitude(av), mb = magnitude(bv);
  const int sa = a.scale().value, sb = b.scale().value;
  int mag = 0;  // the magnitudes' order
  if (sa == sb) {
    mag = ma < mb ? -1 : (ma > mb ? 1 : 0);
  } else {
    const bool a_larger = sa > sb;
    uint128 p = 0, shifted = 0;
    const bool big = upow_overflow(unsigned(R), a_larger ? sa - sb : sb - sa, &p) ||
                     umul128_overflow(a_larger ? ma : mb, p, &shifted);
    const uint128 other = a_larger ? mb : ma;
    const int o = big ? 1 : (shifted < other ? -1 : (shifted > other ? 1 : 0));
    mag = a_larger ? o : -o;
  }
  return sign_a > 0 ? mag : -mag;
}

template <class Rep, Radix R>
LP_HD constexpr bool operator==(fixed_point<Rep, R> a, fixed_point<Rep, R> b) { return compare(a, b) == 0; }
template <class Rep, Radix R>
LP_HD constexpr bool operator!=(fixed_point<Rep, R> a, fixed_point<Rep, R> b) { return compare(a, b) != 0; }
template <class Rep, Radix R>
LP_HD constexpr bool operator<(fixed_point<Rep, R> a, fixed_point<Rep, R> b) { return compare(a, b) < 0; }
template <class Rep, Radix R>
LP_HD constexpr bool operator<=(fixed_point<Rep, R> a, fixed_point<Rep, R> b) { return compare(a, b) <= 0; }
template <class Rep, Radix R>
LP_HD constexpr bool operator>(fixed_point<Rep, R> a, fixed_point<Rep, R> b) { return compare(a, b) > 0; }
template <class Rep, Radix R>
LP_HD constexpr bool operator>=(fixed_point<Rep, R> a, fixed_point<Rep, R> b) { return compare(a, b) >= 0; }

// Spark's CheckOverflow: the unscaled value has at most `precision` decimal digits
// (|value| <= 10^precision - 1), for a number already at the Spark type's scale (libcudf scale =
// -Spark scale). Counts decimal digits whatever the radix.
template <class Rep, Radix R>
LP_HD constexpr bool fits(const fixed_point<Rep, R>& x, int precision) {
  return fits_precision(int128(x.value()), precision);
}

// ---- host only ----

template <class Rep>
inline const char* rep_name() {
  if constexpr (sizeof(Rep) == 4) return "int32";
  else if constexpr (sizeof(Rep) == 8) return "int64";
  else return "int128";
}

namespace detail {
// digits (decimal, most significant first) := digits · f, for a small factor f.
inline void mul_small(std::string& digits, unsigned f) {
  unsigned carry = 0;
  for (auto it = digits.rbegin(); it != digits.rend(); ++it) {
    const unsigned d = unsigned(*it - '0') * f + carry;
    *it = char('0' + d % 10u);
    carry = d / 10u;
  }
  while (carry != 0) {
    digits.insert(digits.begin(), char('0' + carry % 10u));
    carry /= 10u;
  }
}
}  // namespace detail

// The exact number in decimal: 123 at scale -2 is "1.23", -5 at scale -3 is "-0.005", decimal 17
// at scale 2 is "1700". A negative scale -k prints k digits after the point in either radix (a
// binary value / 2^k has exactly k decimal places: binary32 69 at scale -2 is "17.25"); a positive
// scale prints an integer. Zero has no sign ("0.00").
template <class Rep, Radix R>
inline std::string to_string(const fixed_point<Rep, R>& x) {
  const int s = x.scale().value;
  std::string digits = to_string_u128(magnitude(x.value()));
  int frac = 0;  // digits after the point
  if (x.value() == 0) {
    frac = s < 0 ? -s : 0;
  } else if (R == Radix::Base10) {
    if (s >= 0)
      digits.append(std::size_t(s), '0');
    else
      frac = -s;
  } else {
    // value · 2^s: times 2 s times, or times 5^k over 10^k for s = -k.
    const unsigned f = s >= 0 ? 2u : 5u;
    for (int i = 0, n = s >= 0 ? s : -s; i < n; ++i) detail::mul_small(digits, f);
    frac = s >= 0 ? 0 : -s;
  }
  if (frac > 0) {
    if (digits.size() < std::size_t(frac) + 1) digits.insert(0, std::size_t(frac) + 1 - digits.size(), '0');
    digits.insert(digits.size() - std::size_t(frac), 1, '.');
  }
  return x.value() < 0 ? "-" + digits : digits;
}

// Decimal text to a decimal fixed_point at `scale`: an optional sign, digits, an optional '.' and
// digits (at least one digit in all; no spaces, no exponent). The text's digits are rescaled
// exactly: zeros may be dropped or appended, but a nonzero digit below the scale is an error
// ("loses digits"), as are a value past Rep's range ("overflows") and malformed text. Leading
// zeros are fine; "-0.00" is 0. On error *out is untouched and *error (if given) says why.
template <class Rep, Radix R>
inline bool parse(std::string_view text, scale_type scale, fixed_point<Rep, R>* out, std::string* error) {
  static_assert(R == Radix::Base10, "parse reads decimal text into decimal fixed_point types");
  auto fail = [&](const std::string& why) {
    if (error) *error = "'" + std::string(text) + "': " + why;
    return false;
  };
  std::size_t i = 0;
  bool negative = false;
  if (i < text.size() && (text[i] == '+' || text[i] == '-')) negative = text[i++] == '-';
  std::string digits;  // integer and fraction digits, the point removed
  int frac = 0;
  bool point = false;
  for (; i < text.size(); ++i) {
    const char c = text[i];
    if (c >= '0' && c <= '9') {
      digits.push_back(c);
      if (point) ++frac;
    } else if (c == '.' && !point) {
      point = true;
    } else {
      return fail(std::string("malformed decimal: unexpected '") + c + "' at offset " + std::to_string(i));
    }
  }
  if (digits.empty()) return fail("malformed decimal: no digits");
  // The number is digits · 10^-frac = unscaled · 10^scale with unscaled = digits · 10^e.
  const long long e = -static_cast<long long>(frac) - scale.value;
  const std::size_t first = digits.find_first_not_of('0');
  digits.erase(0, first == std::string::npos ? digits.size() : first);
  if (e < 0) {
    const std::size_t drop = std::size_t(-e);
    const std::size_t keep = digits.size() > drop ? digits.size() - drop : 0;
    if (digits.find_first_not_of('0', keep) != std::string::npos)
      return fail("loses digits: nonzero digits below 10^" + std::to_string(scale.value) + " (scale " +
                  std::to_string(scale.value) + ")");
    digits.erase(keep);
  }
  const std::string range = std::string("overflows ") + rep_name<Rep>() + " at scale " + std::to_string(scale.value);
  if (digits.size() > 39) return fail(range);
  uint128 m = 0;
  for (const char c : digits) {
    const unsigned d = unsigned(c - '0');
    if (m > (kUint128Max - d) / 10u) return fail(range);
    m = m * 10u + d;
  }
  if (e > 0 && m != 0) {
    if (e > 38) return fail(range);
    uint128 p = 0;
    upow_overflow(10u, int(e), &p);
    if (umul128_overflow(m, p, &m)) return fail(range);
  }
  if (m > uint128(rep_max<Rep>()) + (negative ? 1u : 0u)) return fail(range);
  *out = fixed_point<Rep, R>(scaled_integer<Rep>(from_magnitude<Rep>(m, negative), scale));
  return true;
}

// The same with the scale the text gives: -(digits after the point) ("1.50" is 150 at scale -2,
// "1700" is 1700 at scale 0).
template <class Rep, Radix R>
inline bool parse(std::string_view text, fixed_point<Rep, R>* out, std::string* error) {
  const std::size_t point = text.find('.');
  const int frac = point == std::string_view::npos ? 0 : int(text.size() - point - 1);
  return parse(text, scale_type{-frac}, out, error);
}

}  // namespace lp::decimal
