// The decimal fixed-point library (cpu_reference/decimal/): the 128-bit helpers against GCC's
// overflow builtins and conversions (host-only oracles) on random and edge values of int32, int64
// and int128; every example of the article (the decimal128 article, docs/references.md);
// each operator's overflow edge at the three widths (min, max, min / -1, -min, scale shifts past
// the range, division by zero); exact comparisons across scales; printing and parsing, exact strings
// and random round trips at random scales; Spark's result types against the cases of Spark's own
// DecimalPrecisionSuite and the article's query plan.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "check.hpp"
#include "cpu_reference/decimal/fixed_point.hpp"
#include "cpu_reference/decimal/int128.hpp"
#include "cpu_reference/decimal/spark_types.hpp"

namespace {

namespace dec = lp::decimal;
namespace spark = lp::decimal::spark;
using dec::decimal128;
using dec::decimal32;
using dec::decimal64;
using dec::binary128;
using dec::binary32;
using dec::binary64;
using dec::int128;
using dec::uint128;
using dec::scale_type;
using dec::to_string;
using dec::to_string_i128;

template <class Rep, dec::Radix R = dec::Radix::Base10>
dec::fixed_point<Rep, R> fp(Rep v, int s = 0) {
  return dec::fixed_point<Rep, R>(dec::scaled_integer<Rep>(v, scale_type{s}));
}
template <class Rep>
dec::fixed_point<Rep, dec::Radix::Base2> bp(Rep v, int s = 0) {
  return fp<Rep, dec::Radix::Base2>(v, s);
}

std::string str(int128 v) { return to_string_i128(v); }

int128 parse128(const char* s) {
  int128 v = 0;
  dec::parse_i128(s, &v);
  return v;
}

// A random Rep: a random bit length (so products and sums straddle the range's edges), a random
// sign, and now and then an edge value.
template <class Rep>
Rep random_rep(std::mt19937_64& g) {
  constexpr int bits = dec::rep_traits<Rep>::bits;
  const Rep edges[] = {Rep(0), Rep(1), Rep(-1), dec::rep_max<Rep>(), dec::rep_min<Rep>(),
                       Rep(dec::rep_max<Rep>() - 1), Rep(dec::rep_min<Rep>() + 1)};
  if (g() % 16 == 0) return edges[g() % 7];
  const uint128 raw = (uint128(g()) << 64) | g();
  const int len = int(g() % bits);  // 0 .. bits-1 magnitude bits
  const uint128 m = len == 0 ? 0 : raw >> (128 - len);
  return g() % 2 ? Rep(-int128(m)) : Rep(int128(m));
}

// ---- int128.hpp ----

void int128_constants() {
  CHECK(str(dec::kInt128Max) == "170141183460469231731687303715884105727");
  CHECK(str(dec::kInt128Min) == "-170141183460469231731687303715884105728");
  CHECK(dec::kInt128Max == int128((uint128(1) << 127) - 1));
  CHECK(dec::rep_max<int128>() == dec::kInt128Max && dec::rep_min<int128>() == dec::kInt128Min);
  CHECK(dec::rep_max<std::int32_t>() == std::numeric_limits<std::int32_t>::max());
  CHECK(dec::rep_min<std::int32_t>() == std::numeric_limits<std::int32_t>::min());
  CHECK(dec::rep_max<std::int64_t>() == std::numeric_limits<std::int64_t>::max());
  CHECK(dec::rep_min<std::int64_t>() == std::numeric_limits<std::int64_t>::min());
  CHECK(dec::pow10_u128(0) == 1 && dec::pow10_u128(1) == 10);
  CHECK(dec::to_string_u128(dec::pow10_u128(38)) == "1" + std::string(38, '0'));
  CHECK(dec::to_string_u128(dec::pow10_u128(19)) == "10000000000000000000");
  CHECK(dec::pow10<std::int32_t>(9) == 1000000000);
  CHECK(dec::pow10<std::int64_t>(18) == 1000000000000000000ll);
  CHECK(str(dec::pow10<int128>(38)) == "1" + std::string(38, '0'));
  CHECK(dec::to_string_u128(dec::kUint128Max) == "340282366920938463463374607431768211455");
  // radix powers with their overflow flag: 10^38 fits 128 bits, 10^39 does not; 2^127 does, 2^128 not.
  uint128 p = 0;
  CHECK(!dec::upow_overflow(10, 38, &p) && p == dec::pow10_u128(38));
  CHECK(dec::upow_overflow(10, 39, &p));
  CHECK(!dec::upow_overflow(2, 127, &p) && p == uint128(1) << 127);
  CHECK(dec::upow_overflow(2, 128, &p) && p == 0);
  CHECK(!dec::upow_overflow(10, 0, &p) && p == 1);
}

void int128_text() {
  int128 v = 0;
  CHECK(dec::parse_i128("-170141183460469231731687303715884105728", &v) && v == dec::kInt128Min);
  CHECK(dec::parse_i128("170141183460469231731687303715884105727", &v) && v == dec::kInt128Max);
  CHECK(!dec::parse_i128("170141183460469231731687303715884105728", &v));
  CHECK(!dec::parse_i128("-170141183460469231731687303715884105729", &v));
  CHECK(!dec::parse_i128("999999999999999999999999999999999999999999", &v));
  CHECK(dec::parse_i128("+5", &v) && v == 5);
  CHECK(dec::parse_i128("-0", &v) && v == 0 && str(v) == "0");
  CHECK(dec::parse_i128("007", &v) && v == 7);
  CHECK(dec::parse_i128(std::string(400, '0') + "1", &v) && v == 1);
  v = 42;
  for (const char* bad : {"", "-", "+", "1 2", " 1", "1 ", "12a", "--1", "+-1", "1.0", "0x10"})
    CHECK_MSG(!dec::parse_i128(bad, &v) && v == 42, "'" << bad << "'");
  CHECK(str(0) == "0" && str(-1) == "-1" && str(10) == "10");
  // Random round trips.
  std::mt19937_64 g(7);
  int bad = 0;
  for (int i = 0; i < 3000; ++i) {
    const int128 x = random_rep<int128>(g);
    int128 y = 0;
    if (!dec::parse_i128(str(x), &y) || y != x) ++bad;
  }
  CHECK_MSG(bad == 0, bad << " int128 text round trips failed");
}

// add/sub/mul/neg/div against GCC's builtins, on random and edge operands: the same overflow
// flag and the same wrapped value.
template <class Rep>
void checked_ops_vs_builtins(std::uint64_t seed) {
  std::mt19937_64 g(seed);
  int bad_add = 0, bad_sub = 0, bad_mul = 0, bad_neg = 0, bad_div = 0, overflows = 0;
  for (int i = 0; i < 20000; ++i) {
    const Rep a = random_rep<Rep>(g), b = random_rep<Rep>(g);
    Rep r = 0, e = 0;
    bool o = dec::add_overflow(a, b, &r);
    bool eo = __builtin_add_overflow(a, b, &e);
    bad_add += (o != eo || r != e);
    overflows += o;
    o = dec::sub_overflow(a, b, &r);
    eo = __builtin_sub_overflow(a, b, &e);
    bad_sub += (o != eo || r != e);
    o = dec::mul_overflow(a, b, &r);
    eo = __builtin_mul_overflow(a, b, &e);
    bad_mul += (o != eo || r != e);
    overflows += o;
    o = dec::neg_overflow(a, &r);
    eo = __builtin_sub_overflow(Rep(0), a, &e);
    bad_neg += (o != eo || r != e);
    if (b != 0) {
      o = dec::div_overflow(a, b, &r);
      eo = a == dec::rep_min<Rep>() && b == Rep(-1);
      bad_div += (o != eo || r != (eo ? a : Rep(a / b)));
    }
  }
  const char* name = dec::rep_name<Rep>();
  CHECK_MSG(bad_add == 0, name << " add: " << bad_add);
  CHECK_MSG(bad_sub == 0, name << " sub: " << bad_sub);
  CHECK_MSG(bad_mul == 0, name << " mul: " << bad_mul);
  CHECK_MSG(bad_neg == 0, name << " neg: " << bad_neg);
  CHECK_MSG(bad_div == 0, name << " div: " << bad_div);
  CHECK_MSG(overflows > 1000, name << " too few overflowing cases drawn: " << overflows);
}

void umul128_vs_builtin() {
  std::mt19937_64 g(11);
  int bad = 0;
  for (int i = 0; i < 20000; ++i) {
    const uint128 a = uint128(random_rep<int128>(g)) >> (g() % 2);
    const uint128 b = uint128(random_rep<int128>(g)) >> (g() % 2);
    uint128 r = 0, e = 0;
    const bool o = dec::umul128_overflow(a, b, &r);
    bad += (o != __builtin_mul_overflow(a, b, &e) || r != e);
  }
  CHECK_MSG(bad == 0, bad << " umul128 mismatches");
  // The exact edges of the split: 2^64 · (2^64 - 1) fits, 2^64 · 2^64 does not.
  uint128 r = 0;
  const uint128 two64 = uint128(1) << 64;
  CHECK(!dec::umul128_overflow(two64, two64 - 1, &r) && r == (two64 - 1) << 64);
  CHECK(dec::umul128_overflow(two64, two64, &r) && r == 0);
  CHECK(!dec::umul128_overflow(dec::kUint128Max, 1, &r) && r == dec::kUint128Max);
  CHECK(dec::umul128_overflow(dec::kUint128Max, 2, &r));
}

// The bounds of each Rep's product at the square root of the maximum and at 2^(bits-1).
template <class Rep>
void mul_edges(Rep root) {
  Rep r = 0;
  const char* name = dec::rep_name<Rep>();
  CHECK_MSG(!dec::mul_overflow(root, root, &r), name);
  CHECK_MSG(!dec::mul_overflow(Rep(-root), root, &r), name);
  CHECK_MSG(dec::mul_overflow(Rep(root + 1), Rep(root + 1), &r), name);
  CHECK_MSG(dec::mul_overflow(Rep(-(root + 1)), Rep(root + 1), &r), name);
  // 2^(h) · 2^(h-1) = 2^(bits-1): one past the maximum, exactly the minimum when negative.
  constexpr int h = dec::rep_traits<Rep>::bits / 2;
  const Rep x = Rep(int128(1) << h), y = Rep(int128(1) << (h - 1));
  CHECK_MSG(dec::mul_overflow(x, y, &r) && r == dec::rep_min<Rep>(), name);
  CHECK_MSG(!dec::mul_overflow(Rep(-x), y, &r) && r == dec::rep_min<Rep>(), name);
  CHECK_MSG(!dec::mul_overflow(x, Rep(-y), &r) && r == dec::rep_min<Rep>(), name);
  CHECK_MSG(dec::mul_overflow(Rep(-x), Rep(-y), &r), name);
  CHECK_MSG(dec::mul_overflow(dec::rep_min<Rep>(), Rep(-1), &r) && r == dec::rep_min<Rep>(), name);
  CHECK_MSG(!dec::mul_overflow(dec::rep_min<Rep>(), Rep(1), &r) && r == dec::rep_min<Rep>(), name);
  CHECK_MSG(!dec::mul_overflow(dec::rep_min<Rep>(), Rep(0), &r) && r == 0, name);
}

void fits_precision_edges() {
  for (int p = 1; p <= 38; ++p) {
    const int128 top = int128(dec::pow10_u128(p)) - 1;
    CHECK_MSG(dec::fits_precision(top, p) && dec::fits_precision(-top, p), p);
    CHECK_MSG(!dec::fits_precision(top + 1, p) && !dec::fits_precision(-top - 1, p), p);
  }
  CHECK(dec::fits_precision(0, 0) && !dec::fits_precision(1, 0));
  CHECK(dec::fits_precision(dec::kInt128Min, 39) && dec::fits_precision(dec::kInt128Max, 39));
  CHECK(!dec::fits_precision(dec::kInt128Min, 38) && !dec::fits_precision(dec::kInt128Max, 38));
}

// The double helpers of the floating constructor and conversion against the host's own.
void double_helpers() {
  std::mt19937_64 g(5);
  int bad_to = 0, bad_from = 0;
  for (int i = 0; i < 20000; ++i) {
    const int128 v = random_rep<int128>(g);
    bad_to += dec::detail::int128_to_double(v) != double(v);  // GCC's conversion rounds correctly
    // A double of random magnitude below 2^127, with halves now and then.
    const double y = g() % 8 == 0 ? double(std::int64_t(g() % 2001) - 1000) + 0.5
                                  : std::ldexp(double(g() >> 11) / 9007199254740992.0 * (g() % 2 ? 1 : -1),
                                               int(g() % 128));
    bool o = true;
    const int128 r = dec::detail::round_to_int128(y, &o);
    bad_from += (o || r != int128(std::round(y)));
  }
  CHECK_MSG(bad_to == 0, bad_to << " int128_to_double mismatches");
  CHECK_MSG(bad_from == 0, bad_from << " round_to_int128 mismatches");
  bool o = false;
  CHECK(dec::detail::round_to_int128(-std::ldexp(1.0, 127), &o) == dec::kInt128Min && !o);
  dec::detail::round_to_int128(std::ldexp(1.0, 127), &o);
  CHECK(o);
  dec::detail::round_to_int128(std::nan(""), &o);
  CHECK(o);
  CHECK(dec::detail::round_to_int128(2.5, &o) == 3 && dec::detail::round_to_int128(-2.5, &o) == -3);
  CHECK(dec::detail::round_to_int128(2.4999999, &o) == 2 && dec::detail::round_to_int128(-0.4, &o) == 0);
}

// ---- the article's examples ----

void article_examples() {
  // Scale signs and constructors.
  const decimal32 a{1.2345, scale_type{-2}};
  CHECK(a.value() == 123 && a.scale() == scale_type{-2} && to_string(a) == "1.23");
  const decimal32 b{12345, scale_type{2}};
  CHECK(b.value() == 123 && to_string(b) == "12300");
  // Decimal and binary: 17.29, 4.2, 1729.
  const decimal32 money{17.29, scale_type{-2}};
  CHECK(money.value() == 1729 && to_string(money) == "17.29");
  const binary32 bmoney{17.29, scale_type{-2}};
  CHECK(bmoney.value() == 69 && to_string(bmoney) == "17.25" && static_cast<double>(bmoney) == 17.25);
  CHECK(decimal32(4.2, scale_type{0}).value() == 4 && to_string(decimal32(4.2, scale_type{0})) == "4");
  CHECK(binary32(4.2, scale_type{0}).value() == 4 && to_string(binary32(4.2, scale_type{0})) == "4");
  const decimal32 c{1729, scale_type{2}};
  const binary32 z{1729, scale_type{2}};
  CHECK(c.value() == 17 && to_string(c) == "1700" && static_cast<int>(c) == 1700);
  CHECK(z.value() == 432 && to_string(z) == "1728" && static_cast<int>(z) == 1728);
  // Default and scale-0 constructors.
  CHECK(decimal64().value() == 0 && decimal64().scale() == scale_type{0} && to_string(decimal64()) == "0");
  CHECK(decimal64(42).value() == 42 && decimal64(42).scale() == scale_type{0});
  // 1.1 · 2.2 = 2.42 at scale -2; 1.1 + 2.2 = 3.3 at scale -1; in every width.
  const decimal128 x{1.1, scale_type{-1}}, y{2.2, scale_type{-1}};
  CHECK((x * y).value() == 242 && (x * y).scale() == scale_type{-2} && to_string(x * y) == "2.42");
  CHECK((x + y).value() == 33 && (x + y).scale() == scale_type{-1} && to_string(x + y) == "3.3");
  CHECK(to_string(decimal32{1.1, scale_type{-1}} * decimal32{2.2, scale_type{-1}}) == "2.42");
  CHECK(to_string(decimal64{1.1, scale_type{-1}} + decimal64{2.2, scale_type{-1}}) == "3.3");
  // Floats: 1.1f and 1.1f + 1.1f are not 1.1 and 2.2; the fixed-point sum is 22 at scale -1.
  CHECK(double(1.1f) != 1.1 && double(1.1f + 1.1f) != 2.2);
  CHECK(to_string(decimal32{11, scale_type{0}} + decimal32{11, scale_type{0}}) == "22");
  CHECK(to_string(fp<std::int32_t>(11, -1) + fp<std::int32_t>(11, -1)) == "2.2");
  // Sum of 10^e for e in [-2, 9]: exact in a decimal64 at scale -2, not in float.
  decimal64 sum{0, scale_type{-2}};
  float fsum = 0;
  bool overflow = false;
  decimal32 sum32{0, scale_type{-2}};
  bool overflow32 = false;
  for (int e = -2; e <= 9; ++e) {
    const double term = std::pow(10.0, e);
    const auto r = dec::checked_add(sum, decimal64{term, scale_type{-2}});
    sum = r.value;
    overflow = overflow || r.overflow;
    fsum += static_cast<float>(term);
    const auto r32 = dec::checked_add(sum32, decimal32{term, scale_type{-2}});
    sum32 = r32.value;
    overflow32 = overflow32 || r32.overflow;
  }
  CHECK(!overflow && to_string(sum) == "1111111111.11" && sum.scale() == scale_type{-2});
  CHECK(fsum == 1111111168.0f);
  CHECK(overflow32);  // 111111111111 at scale -2 needs more than 32 bits
  // Rounding 256.49999: a decimal at scale -5 holds it exactly and rounds to 256; roundf sees 256.5.
  decimal32 parsed;
  std::string err;
  CHECK(dec::parse("256.49999", scale_type{-5}, &parsed, &err) && parsed.value() == 25649999);
  const decimal32 built{256.49999, scale_type{-5}};
  CHECK(built.value() == 25649999 && to_string(built) == "256.49999");
  for (const decimal32& d : {parsed, built}) {
    const auto r = d.rounded(scale_type{0});
    CHECK(!r.overflow && r.value.value() == 256 && r.value.scale() == scale_type{0} && to_string(r.value) == "256");
    CHECK(d.rescaled(scale_type{0}).value.value() == 256);
  }
  CHECK(std::roundf(256.49999f) == 257.0f);
}

// Rounding to nearest at construction, and why: truncation (libcudf) loses a digit whenever the
// double lies just below the decimal; rounding gives back every cent.
void floating_construction() {
  CHECK(std::int64_t(0.29 * 100) == 28);  // what truncating 0.29 at scale -2 gives
  CHECK(decimal32(0.29, scale_type{-2}).value() == 29);
  CHECK(decimal32(1.15, scale_type{-2}).value() == 115 && decimal32(-2.01, scale_type{-2}).value() == -201);
  CHECK(decimal32(0.29f, scale_type{-2}).value() == 29);
  std::mt19937_64 g(3);
  int bad = 0, truncation_wrong = 0;
  for (int i = 0; i < 20000; ++i) {
    const std::int64_t cents = std::int64_t(g() % 2000000001) - 1000000000;
    const double x = double(cents) / 100.0;
    bad += decimal64(x, scale_type{-2}).value() != cents;
    truncation_wrong += std::int64_t(x * 100.0) != cents;
  }
  CHECK_MSG(bad == 0, bad << " cents not recovered");
  CHECK_MSG(truncation_wrong > 0, "truncation should lose some cents");
  // Positive scales divide; binary scales are powers of two; ties round away from zero.
  CHECK(decimal32(1749.0, scale_type{2}).value() == 17 && decimal32(1750.0, scale_type{2}).value() == 18);
  CHECK(decimal32(-1750.0, scale_type{2}).value() == -18);
  CHECK(binary32(17.29, scale_type{-3}).value() == 138);  // 17.29 · 8 = 138.32
  CHECK(binary64(0.1, scale_type{-60}).value() == std::int64_t(std::round(std::ldexp(0.1, 60))));
  // Overflow: past the range, NaN, infinity; zero at any scale is fine.
  CHECK(decimal32::from_floating(3e9, scale_type{0}).overflow);
  CHECK(decimal32::from_floating(-2147483648.0, scale_type{0}).ok());
  CHECK(decimal32::from_floating(-2147483648.0, scale_type{0}).value.value() == dec::rep_min<std::int32_t>());
  CHECK(decimal32::from_floating(2147483647.4, scale_type{0}).ok());
  CHECK(decimal32::from_floating(2147483647.5, scale_type{0}).overflow);
  CHECK(decimal32::from_floating(std::nan(""), scale_type{0}).overflow);
  CHECK(decimal32::from_floating(HUGE_VAL, scale_type{0}).overflow);
  CHECK(decimal32::from_floating(0.0, scale_type{-400}).ok());
  CHECK(decimal32::from_floating(1e-300, scale_type{0}).value.value() == 0);
  CHECK(decimal128::from_floating(1e38, scale_type{0}).ok() && decimal128::from_floating(1e39, scale_type{0}).overflow);
  CHECK(str(decimal128(1e38, scale_type{0}).value()) == "99999999999999997748809823456034029568");
  // Integral construction: truncating division for a positive scale, checked multiplication for a
  // negative one.
  CHECK(decimal32(-1729, scale_type{2}).value() == -17 && binary32(-1729, scale_type{2}).value() == -432);
  CHECK(decimal32(5, scale_type{-9}).value() == 705032704);  // 5·10^9 modulo 2^32: the wrapped value
  CHECK(decimal32::from_integer(2, scale_type{-9}).ok() && decimal32::from_integer(3, scale_type{-9}).overflow);
  CHECK(decimal32::from_integer(-2, scale_type{-9}).ok());
  CHECK(decimal32::from_integer(std::int64_t(1) << 40, scale_type{0}).overflow);
  CHECK(decimal32::from_integer(std::int64_t(1) << 40, scale_type{10}).value.value() == 109);
  CHECK(decimal128::from_integer(dec::kInt128Min, scale_type{0}).value.value() == dec::kInt128Min);
  CHECK(decimal128::from_integer(dec::kInt128Min, scale_type{-1}).overflow);
  CHECK(decimal128::from_integer(std::uint64_t(18446744073709551615ull), scale_type{-18}).ok());
  CHECK(decimal128::from_integer(std::uint64_t(18446744073709551615ull), scale_type{-19}).overflow);
  CHECK(decimal64::from_integer(7, scale_type{1000}).value.value() == 0);
  CHECK(binary32::from_integer(-1, scale_type{-31}).ok() && binary32::from_integer(1, scale_type{-31}).overflow);
}

void conversions() {
  CHECK(static_cast<int>(fp<std::int32_t>(1729, -2)) == 17 && static_cast<int>(fp<std::int32_t>(-1729, -2)) == -17);
  CHECK(static_cast<long>(fp<std::int32_t>(17, 2)) == 1700);
  CHECK(static_cast<int>(bp<std::int32_t>(69, -2)) == 17 && static_cast<int>(bp<std::int32_t>(-69, -2)) == -17);
  CHECK(static_cast<std::int64_t>(fp<int128>(dec::kInt128Min, -20)) == std::int64_t(parse128("-1701411834604692317")));
  CHECK(static_cast<double>(fp<std::int64_t>(1729, -2)) == 17.29);
  CHECK(static_cast<float>(bp<std::int32_t>(69, -2)) == 17.25f);
  CHECK(static_cast<double>(fp<std::int32_t>(17, 2)) == 1700.0);
  CHECK(static_cast<double>(fp<int128>(dec::kInt128Max)) == std::ldexp(1.0, 127));
  CHECK(static_cast<double>(fp<int128>(dec::kInt128Min)) == -std::ldexp(1.0, 127));
  CHECK(static_cast<double>(bp<int128>(dec::kInt128Min, -127)) == -1.0);
  CHECK(static_cast<int128>(fp<int128>(dec::kInt128Max, 0)) == dec::kInt128Max);
}

void rounding_and_rescaling() {
  using D = dec::fixed_point<std::int32_t, dec::Radix::Base10>;
  auto round_to = [](D d, int s) { return d.rounded(scale_type{s}).value; };
  auto trunc_to = [](D d, int s) { return d.rescaled(scale_type{s}).value; };
  CHECK(round_to(fp<std::int32_t>(25, -1), 0).value() == 3 && round_to(fp<std::int32_t>(-25, -1), 0).value() == -3);
  CHECK(round_to(fp<std::int32_t>(249, -2), 0).value() == 2 && round_to(fp<std::int32_t>(-249, -2), 0).value() == -2);
  CHECK(round_to(fp<std::int32_t>(250, -2), 0).value() == 3 && round_to(fp<std::int32_t>(-250, -2), 0).value() == -3);
  CHECK(trunc_to(fp<std::int32_t>(25, -1), 0).value() == 2 && trunc_to(fp<std::int32_t>(-25, -1), 0).value() == -2);
  CHECK(trunc_to(fp<std::int32_t>(-129, -2), -1).value() == -12 && round_to(fp<std::int32_t>(-129, -2), -1).value() == -13);
  CHECK(to_string(round_to(fp<std::int32_t>(1729, 0), 2)) == "1700" && to_string(round_to(fp<std::int32_t>(1750, 0), 2)) == "1800");
  CHECK(round_to(fp<std::int32_t>(5, 0), 1).value() == 1 && round_to(fp<std::int32_t>(4, 0), 1).value() == 0);
  // Far past the digits: 0, and the minimum rounds to 0 too (|min| < half of 10^10).
  CHECK(round_to(fp<std::int32_t>(dec::rep_min<std::int32_t>()), 10).value() == 0);
  CHECK(round_to(fp<std::int32_t>(dec::rep_min<std::int32_t>()), 9).value() == -2);
  CHECK(round_to(fp<std::int32_t>(dec::rep_max<std::int32_t>()), 1000).value() == 0);
  CHECK(trunc_to(fp<std::int32_t>(dec::rep_max<std::int32_t>()), 9).value() == 2);
  // Rounding the extremes does not overflow.
  CHECK(fp<std::int32_t>(dec::rep_max<std::int32_t>()).rounded(scale_type{1}).ok());
  CHECK(fp<int128>(dec::kInt128Min).rounded(scale_type{1}).value.value() == parse128("-17014118346046923173168730371588410573"));
  // Binary: HALF_UP at powers of two; at 2^128 int128's minimum is exactly -0.5 and rounds to -1.
  CHECK(bp<std::int32_t>(5, 0).rounded(scale_type{1}).value.value() == 3);  // 2.5 -> 3
  CHECK(bp<std::int32_t>(-5, 0).rounded(scale_type{1}).value.value() == -3);
  CHECK(bp<std::int32_t>(-5, 0).rescaled(scale_type{1}).value.value() == -2);
  CHECK(bp<int128>(dec::kInt128Min).rounded(scale_type{128}).value.value() == -1);
  CHECK(bp<int128>(dec::kInt128Max).rounded(scale_type{128}).value.value() == 0);
  CHECK(bp<int128>(dec::kInt128Min).rounded(scale_type{127}).value.value() == -1);
  CHECK(bp<int128>(dec::kInt128Min).rounded(scale_type{129}).value.value() == 0);
  CHECK(bp<int128>(dec::kInt128Min).rescaled(scale_type{128}).value.value() == 0);
  // Moving to a smaller scale multiplies, and reports overflow (rounded as well as rescaled).
  CHECK(fp<std::int32_t>(1, 0).rounded(scale_type{-9}).ok() && fp<std::int32_t>(3, 0).rounded(scale_type{-9}).overflow);
  CHECK(bp<std::int32_t>(-1, 0).rescaled(scale_type{-31}).ok());
  CHECK(bp<std::int32_t>(-1, 0).rescaled(scale_type{-31}).value.value() == dec::rep_min<std::int32_t>());
  CHECK(bp<std::int32_t>(1, 0).rescaled(scale_type{-31}).overflow);
  CHECK(bp<int128>(-1, 0).rescaled(scale_type{-127}).value.value() == dec::kInt128Min);
  CHECK(bp<int128>(-1, 0).rescaled(scale_type{-127}).ok() && bp<int128>(1, 0).rescaled(scale_type{-127}).overflow);
  CHECK(bp<int128>(-1, 0).rescaled(scale_type{-128}).overflow);
  CHECK(fp<int128>(0, 0).rescaled(scale_type{-5000}).ok());
}

// Each operator's overflow edge at one width (decimal and binary share the integer paths).
template <class Rep>
void overflow_edges() {
  using D = dec::fixed_point<Rep, dec::Radix::Base10>;
  const char* name = dec::rep_name<Rep>();
  const Rep mx = dec::rep_max<Rep>(), mn = dec::rep_min<Rep>();
  constexpr int digits = dec::rep_traits<Rep>::digits10;
  auto d = [](Rep v, int s = 0) { return fp<Rep>(v, s); };
  auto is = [](const dec::Checked<D>& r, bool overflow, Rep v, int s) {
    return r.overflow == overflow && !r.div_by_zero && r.value.value() == v && r.value.scale() == scale_type{s};
  };
  // + and -.
  CHECK_MSG(is(dec::checked_add(d(mx), d(1)), true, mn, 0), name);
  CHECK_MSG((d(mx) + d(1)).value() == mn, name);  // the plain operator wraps
  CHECK_MSG(is(dec::checked_add(d(mx), d(0)), false, mx, 0), name);
  CHECK_MSG(is(dec::checked_add(d(mx), d(mn)), false, Rep(-1), 0), name);
  CHECK_MSG(is(dec::checked_add(d(mn), d(-1)), true, mx, 0), name);
  CHECK_MSG(is(dec::checked_add(d(mn), d(mn)), true, Rep(0), 0), name);
  CHECK_MSG(is(dec::checked_sub(d(mn), d(1)), true, mx, 0), name);
  CHECK_MSG(is(dec::checked_sub(d(mx), d(-1)), true, mn, 0), name);
  CHECK_MSG(is(dec::checked_sub(d(0), d(mn)), true, mn, 0), name);
  CHECK_MSG(is(dec::checked_sub(d(-1), d(mn)), false, mx, 0), name);
  CHECK_MSG(is(dec::checked_sub(d(mn), d(mn)), false, Rep(0), 0), name);
  // *.
  CHECK_MSG(is(dec::checked_mul(d(mn), d(-1)), true, mn, 0), name);
  CHECK_MSG(is(dec::checked_mul(d(mx), d(-1)), false, Rep(-mx), 0), name);
  CHECK_MSG(is(dec::checked_mul(d(mx, -1), d(2, -1)), true, Rep(-2), -2), name);
  CHECK_MSG(is(dec::checked_mul(d(Rep(mn / 2), 3), d(2, -1)), false, mn, 2), name);
  CHECK_MSG(is(dec::checked_mul(d(Rep(mx / 2 + 1)), d(2)), true, mn, 0), name);
  // / (libcudf: the values' quotient at scale a - b).
  CHECK_MSG(is(dec::checked_div(d(mn, -2), d(-1, 1)), true, mn, -3), name);
  CHECK_MSG(is(dec::checked_div(d(mx), d(-1)), false, Rep(-mx), 0), name);
  CHECK_MSG(is(dec::checked_div(d(mn), d(1)), false, mn, 0), name);
  CHECK_MSG(is(dec::checked_div(d(-7), d(2)), false, Rep(-3), 0), name);
  const auto z = dec::checked_div(d(5, -2), d(0, -1));
  CHECK_MSG(z.div_by_zero && !z.overflow && !z.ok() && z.value.value() == 0 && z.value.scale() == scale_type{-1}, name);
  CHECK_MSG(dec::checked_div(d(0), d(0)).div_by_zero, name);
  CHECK_MSG((d(5) / d(0)).value() == 0, name);
  // Unary -.
  CHECK_MSG(is(dec::checked_neg(d(mn, -4)), true, mn, -4), name);
  CHECK_MSG((-d(mn)).value() == mn, name);
  CHECK_MSG(is(dec::checked_neg(d(mx, -4)), false, Rep(-mx), -4), name);
  CHECK_MSG(is(dec::checked_neg(d(0)), false, Rep(0), 0), name);
  // Scale changes past the range: rescale to a smaller scale, and the shifted operand of + and -.
  CHECK_MSG(d(mx).rescaled(scale_type{-1}).overflow && d(mn).rescaled(scale_type{-1}).overflow, name);
  CHECK_MSG(is(d(Rep(mx / 10)).rescaled(scale_type{-1}), false, Rep(mx / 10 * 10), -1), name);
  CHECK_MSG(is(d(Rep(mn / 10)).rescaled(scale_type{-1}), false, Rep(mn / 10 * 10), -1), name);
  CHECK_MSG(d(1).rescaled(scale_type{-digits}).ok() && d(1).rescaled(scale_type{-digits - 1}).overflow, name);
  CHECK_MSG(d(-1).rescaled(scale_type{-digits - 1}).overflow && d(1).rescaled(scale_type{-1000}).overflow, name);
  CHECK_MSG(d(0).rescaled(scale_type{-1000}).ok(), name);
  using U = typename dec::rep_traits<Rep>::unsigned_type;
  CHECK_MSG(is(dec::checked_add(d(mx), d(0, -1)), true, Rep(U(U(mx) * 10u)), -1), name);  // the shift wraps
  CHECK_MSG(is(dec::checked_add(d(Rep(mx / 10)), d(Rep(mx % 10), -1)), false, mx, -1), name);
  CHECK_MSG(dec::checked_add(d(Rep(mx / 10)), d(Rep(mx % 10 + 1), -1)).overflow, name);
  CHECK_MSG(dec::checked_add(d(0, -1), d(mx)).overflow, name);  // either operand may be the shifted one
  // A shifted operand past the range, the sum back in range: no overflow (exact).
  CHECK_MSG(is(dec::checked_add(d(Rep(mx / 10 + 1)), d(-10, -1)), false, Rep(mx / 10 * 10), -1), name);
  CHECK_MSG(is(dec::checked_sub(d(10, -1), d(Rep(mx / 10 + 1))), false, Rep(-(mx / 10 * 10)), -1), name);
  CHECK_MSG(is(dec::checked_add(d(2, -1), d(Rep(mn / 10 - 1))), false, mn, -1), name);
  CHECK_MSG(dec::checked_add(d(1, -1), d(Rep(mn / 10 - 1))).overflow, name);
  CHECK_MSG(dec::checked_add(d(Rep(mx / 10 + 1)), d(-2, -1)).overflow, name);
  CHECK_MSG(is(dec::checked_sub(d(Rep(mx / 10 + 1), 1), d(Rep(mx - 100), 0)), false, Rep(103), 0), name);
  CHECK_MSG(dec::checked_add(d(1, 1000), d(-1)).overflow, name);  // past 128 bits: never back in range
  CHECK_MSG(is(dec::checked_add(d(Rep(mn / 10)), d(Rep(mn % 10), -1)), false, mn, -1), name);
  CHECK_MSG(dec::checked_sub(d(Rep(mn / 10)), d(Rep(-(mn % 10) + 1), -1)).overflow, name);
  CHECK_MSG(is(dec::checked_sub(d(Rep(mn / 10)), d(Rep(-(mn % 10)), -1)), false, mn, -1), name);
  CHECK_MSG(dec::checked_sub(d(1, 1000), d(1)).overflow, name);
  // Comparisons across scales, exact where aligning would overflow.
  CHECK_MSG(d(mx) < d(1, digits + 1) && d(mn) > d(-1, digits + 1), name);
  CHECK_MSG(d(1, 1000) > d(mx) && d(-1, 1000) < d(mn) && d(1, 1000) > d(1, 999), name);
  CHECK_MSG(d(Rep(mx / 10 * 10)) == d(Rep(mx / 10), 1) && d(mx) != d(Rep(mx / 10), 1), name);
  CHECK_MSG(d(mx) > d(Rep(mx / 10), 1) && d(Rep(mx / 10), 1) < d(mx), name);
  CHECK_MSG(d(mn, -3) < d(mx, -3) && d(mn) <= d(mn) && d(mx) >= d(mx) && !(d(mn) < d(mn)), name);
  CHECK_MSG(d(0, 5) == d(0, -5) && d(0) < d(1, -1000) && d(0) > d(-1, -1000), name);
  CHECK_MSG(d(-11, -1) > d(-111, -2) && d(11, -1) < d(111, -2) && d(-110, -2) == d(-11, -1), name);
  // CheckOverflow at the Rep's digit count.
  const Rep top = dec::pow10<Rep>(digits) - 1;
  CHECK_MSG(dec::fits(d(top), digits) && dec::fits(d(Rep(-top)), digits), name);
  CHECK_MSG(!dec::fits(d(Rep(top + 1)), digits) && dec::fits(d(mx), digits + 1) && dec::fits(d(mn), digits + 1), name);
  // Random sums and products at random scales against the exact result (int128 for int32/int64).
  if constexpr (sizeof(Rep) <= 8) {
    std::mt19937_64 g(sizeof(Rep));
    int bad = 0, overflows = 0;
    const int max_shift = sizeof(Rep) == 4 ? 9 : 18;
    for (int i = 0; i < 20000; ++i) {
      const Rep a = random_rep<Rep>(g), b = random_rep<Rep>(g);
      const int sa = int(g() % 41) - 20, sb = sa + int(g() % (2 * max_shift + 1)) - max_shift;
      const int s = sa < sb ? sa : sb;
      const int128 ea = int128(a) * int128(dec::pow10_u128(sa - s)), eb = int128(b) * int128(dec::pow10_u128(sb - s));
      for (int op = 0; op < 3; ++op) {
        const int128 exact = op == 0 ? ea + eb : op == 1 ? ea - eb : int128(a) * int128(b);
        const auto r = op == 0 ? dec::checked_add(d(a, sa), d(b, sb))
                       : op == 1 ? dec::checked_sub(d(a, sa), d(b, sb))
                                 : dec::checked_mul(d(a, sa), d(b, sb));
        const bool exact_overflow = exact > int128(mx) || exact < int128(mn);
        const int rs = op == 2 ? sa + sb : s;
        bad += (r.overflow != exact_overflow || r.value.value() != Rep(U(exact)) || r.value.scale() != scale_type{rs});
        overflows += r.overflow;
      }
      const int c = dec::compare(d(a, sa), d(b, sb));
      bad += c != (ea < eb ? -1 : (ea > eb ? 1 : 0));
    }
    CHECK_MSG(bad == 0, name << ": " << bad << " random + - * compare mismatches");
    CHECK_MSG(overflows > 1000, name << ": too few overflows drawn " << overflows);
  }
}

// Decimal128's 38 digits: +-(10^38 - 1) fit, 10^38 fits int128 but not 38 digits (CheckOverflow).
void decimal128_precision() {
  const int128 top = int128(dec::pow10_u128(38)) - 1;
  CHECK(dec::fits(fp<int128>(top), 38) && dec::fits(fp<int128>(-top), 38));
  CHECK(!dec::fits(fp<int128>(top + 1), 38) && !dec::fits(fp<int128>(-top - 1), 38));
  const auto r = dec::checked_add(fp<int128>(top, -2), fp<int128>(1, -2));
  CHECK(r.ok() && !dec::fits(r.value, 38) && to_string(r.value) == "1" + std::string(36, '0') + ".00");
  CHECK(to_string(fp<int128>(top, -38)) == "0." + std::string(38, '9'));
  CHECK(to_string(fp<int128>(-top, 0)) == "-" + std::string(38, '9'));
  CHECK(dec::checked_mul(fp<int128>(top), fp<int128>(2)).overflow);
  CHECK(!dec::checked_mul(fp<int128>(int128(dec::pow10_u128(19))), fp<int128>(int128(dec::pow10_u128(19)))).overflow);
  CHECK(dec::checked_mul(fp<int128>(int128(dec::pow10_u128(19))), fp<int128>(int128(dec::pow10_u128(20)))).overflow);
  // The article's query: price decimal(11,2) times an int quantity gives decimal(22,2): in 128 bits
  // the largest product is exact and passes CheckOverflow at 22 digits; in 64 bits it overflows.
  const std::int64_t price = 99999999999;  // 999999999.99
  const std::int32_t qty = dec::rep_max<std::int32_t>();
  const auto p128 = dec::checked_mul(fp<int128>(price, -2), fp<int128>(qty));
  CHECK(p128.ok() && dec::fits(p128.value, 22) && to_string(p128.value) == "2147483646978525163.53");
  CHECK(dec::checked_mul(fp<std::int64_t>(price, -2), fp<std::int64_t>(qty)).overflow);
  // A window sum of 2^30 such products fits decimal(32,2).
  const auto total = dec::checked_mul(p128.value, fp<int128>(int128(1) << 30));
  CHECK(total.ok() && dec::fits(total.value, 32) && !dec::fits(total.value, 29));
}

// ---- text ----

void printing() {
  CHECK(to_string(fp<std::int32_t>(123, -2)) == "1.23");
  CHECK(to_string(fp<std::int32_t>(-5, -3)) == "-0.005");
  CHECK(to_string(fp<std::int32_t>(17, 2)) == "1700");
  CHECK(to_string(fp<std::int32_t>(0, 0)) == "0" && to_string(fp<std::int32_t>(0, 3)) == "0");
  CHECK(to_string(fp<std::int32_t>(0, -2)) == "0.00" && to_string(fp<std::int32_t>(100, -2)) == "1.00");
  CHECK(to_string(fp<std::int32_t>(-1, -1)) == "-0.1" && to_string(fp<std::int32_t>(5)) == "5");
  CHECK(to_string(fp<std::int32_t>(dec::rep_min<std::int32_t>(), -10)) == "-0.2147483648");
  CHECK(to_string(fp<std::int64_t>(dec::rep_max<std::int64_t>(), -18)) == "9.223372036854775807");
  CHECK(to_string(fp<int128>(dec::kInt128Max, -38)) == "1.70141183460469231731687303715884105727");
  CHECK(to_string(fp<int128>(dec::kInt128Min, 0)) == "-170141183460469231731687303715884105728");
  CHECK(to_string(fp<int128>(dec::kInt128Min, 2)) == "-17014118346046923173168730371588410572800");
  CHECK(to_string(fp<std::int32_t>(-12, -40)) == "-0." + std::string(38, '0') + "12");
  // Binary: the exact (finite) decimal expansion, -scale digits after the point.
  CHECK(to_string(bp<std::int32_t>(69, -2)) == "17.25" && to_string(bp<std::int32_t>(68, -2)) == "17.00");
  CHECK(to_string(bp<std::int32_t>(1, -3)) == "0.125" && to_string(bp<std::int32_t>(-3, -1)) == "-1.5");
  CHECK(to_string(bp<std::int32_t>(3, 2)) == "12" && to_string(bp<std::int32_t>(0, 5)) == "0");
  CHECK(to_string(bp<std::int32_t>(dec::rep_max<std::int32_t>(), 31)) == "4611686016279904256");
  CHECK(to_string(bp<std::int64_t>(1, -64)) == "0.0000000000000000000542101086242752217003726400434970855712890625");
  CHECK(to_string(bp<int128>(dec::kInt128Min, -127)) == "-1." + std::string(127, '0'));
  // Binary printing against decimal parsing: v / 2^k = v · 5^k / 10^k.
  std::mt19937_64 g(9);
  int bad = 0;
  for (int i = 0; i < 2000; ++i) {
    const std::int64_t v = random_rep<std::int64_t>(g);
    const int k = int(g() % 20);
    decimal128 back;
    std::string err;
    int128 expect = v;
    for (int j = 0; j < k; ++j) expect *= 5;
    bad += !(dec::parse(to_string(bp<std::int64_t>(v, -k)), scale_type{-k}, &back, &err) && back.value() == expect);
  }
  CHECK_MSG(bad == 0, bad << " binary expansions wrong");
}

// Random values at random scales: the printed text reads back to the same value and scale; its
// digits are the value's; one scale finer multiplies by 10, one coarser loses a nonzero last digit.
template <class Rep>
void round_trips(std::uint64_t seed) {
  using D = dec::fixed_point<Rep, dec::Radix::Base10>;
  constexpr int digits = dec::rep_traits<Rep>::digits10;
  std::mt19937_64 g(seed);
  int bad_text = 0, bad_back = 0, bad_auto = 0, bad_finer = 0, bad_coarser = 0;
  for (int i = 0; i < 3000; ++i) {
    const Rep v = random_rep<Rep>(g);
    const int s = int(g() % (digits + 8)) - (digits + 4);  // [-(digits+4), 3]
    const D x = fp<Rep>(v, s);
    const std::string t = to_string(x);
    // The text's digits are the value's, with -s after the point (or s zeros appended).
    std::string expect = to_string_i128(v);
    if (s > 0 && v != 0) expect += std::string(std::size_t(s), '0');
    std::string plain;
    for (char c : t)
      if (c != '.') plain.push_back(c);
    const std::size_t point = t.find('.');
    const int frac = point == std::string::npos ? 0 : int(t.size() - point - 1);
    std::string trimmed = plain;  // leading zeros of the magnitude removed
    const std::size_t sign = trimmed[0] == '-' ? 1 : 0;
    while (trimmed.size() > sign + 1 && trimmed[sign] == '0') trimmed.erase(sign, 1);
    bad_text += (trimmed != expect || frac != (s < 0 ? -s : 0));
    // Back at the same scale.
    D back;
    std::string err;
    bad_back += !(dec::parse(t, x.scale(), &back, &err) && back.value() == v && back.scale() == x.scale());
    // Back at the text's own scale: the same number.
    D autos;
    if (dec::parse(t, &autos, &err))
      bad_auto += !(autos == x && autos.scale() == scale_type{s < 0 ? s : 0});
    else
      bad_auto += !(s > 0 && err.find("overflows") != std::string::npos);  // v · 10^s past the range
    // One scale finer: v · 10, or overflow.
    Rep ten = 0;
    const bool ten_overflow = dec::mul_overflow(v, Rep(10), &ten);
    D finer;
    const bool ok_finer = dec::parse(t, scale_type{s - 1}, &finer, &err);
    bad_finer += ten_overflow ? (ok_finer || err.find("overflows") == std::string::npos) : !(ok_finer && finer.value() == ten);
    // One scale coarser: v / 10 when the last digit is 0, else "loses digits".
    D coarser;
    const bool ok_coarser = dec::parse(t, scale_type{s + 1}, &coarser, &err);
    bad_coarser += (v % 10 == 0) ? !(ok_coarser && coarser.value() == Rep(v / 10))
                                 : (ok_coarser || err.find("loses digits") == std::string::npos);
  }
  const char* name = dec::rep_name<Rep>();
  CHECK_MSG(bad_text == 0, name << " seed " << seed << ": " << bad_text << " texts wrong");
  CHECK_MSG(bad_back == 0, name << " seed " << seed << ": " << bad_back << " round trips wrong");
  CHECK_MSG(bad_auto == 0, name << " seed " << seed << ": " << bad_auto << " own-scale parses wrong");
  CHECK_MSG(bad_finer == 0, name << " seed " << seed << ": " << bad_finer << " finer parses wrong");
  CHECK_MSG(bad_coarser == 0, name << " seed " << seed << ": " << bad_coarser << " coarser parses wrong");
}

void parsing() {
  decimal32 x;
  std::string err;
  CHECK(dec::parse("1.23", scale_type{-2}, &x, &err) && x.value() == 123 && x.scale() == scale_type{-2});
  CHECK(dec::parse("1.23", &x, &err) && x.value() == 123 && x.scale() == scale_type{-2});
  CHECK(dec::parse("-0.00", scale_type{-2}, &x, &err) && x.value() == 0 && to_string(x) == "0.00");
  CHECK(dec::parse("-0.00", &x, &err) && x.value() == 0 && x.scale() == scale_type{-2});
  CHECK(dec::parse("+7", &x, &err) && x.value() == 7 && x.scale() == scale_type{0});
  CHECK(dec::parse("000123.4500", scale_type{-4}, &x, &err) && x.value() == 1234500 && to_string(x) == "123.4500");
  CHECK(dec::parse("000123.4500", &x, &err) && x.scale() == scale_type{-4} && x.value() == 1234500);
  CHECK(dec::parse("000123.4500", scale_type{-2}, &x, &err) && x.value() == 12345 && to_string(x) == "123.45");
  CHECK(dec::parse("1.20", scale_type{-1}, &x, &err) && x.value() == 12);
  CHECK(dec::parse("1200", scale_type{2}, &x, &err) && x.value() == 12 && to_string(x) == "1200");
  CHECK(dec::parse("0.000", scale_type{0}, &x, &err) && x.value() == 0);
  CHECK(dec::parse(".5", &x, &err) && x.value() == 5 && x.scale() == scale_type{-1});
  CHECK(dec::parse("5.", &x, &err) && x.value() == 5 && x.scale() == scale_type{0});
  CHECK(dec::parse("1", scale_type{-9}, &x, &err) && x.value() == 1000000000);
  CHECK(dec::parse("2147483647", scale_type{0}, &x, &err) && x.value() == dec::rep_max<std::int32_t>());
  CHECK(dec::parse("-2147483648", scale_type{0}, &x, &err) && x.value() == dec::rep_min<std::int32_t>());
  CHECK(dec::parse("-21474836.48", scale_type{-2}, &x, &err) && x.value() == dec::rep_min<std::int32_t>());
  CHECK(dec::parse("0000000000000000000000000000000000000000000000001", scale_type{0}, &x, &err) && x.value() == 1);
  CHECK(dec::parse("5", scale_type{1000}, &x, &err) == false && err.find("loses digits") != std::string::npos);
  CHECK(dec::parse("0", scale_type{-1000}, &x, &err) && x.value() == 0);
  // Errors, each named; *out untouched.
  const decimal32 keep = fp<std::int32_t>(42, -1);
  const std::string fifty_nines(50, '9');
  struct Bad {
    const char* text;
    int scale;
    const char* why;
  };
  const Bad bads[] = {
      {"1.25", -1, "loses digits"},     {"1250", 2, "loses digits"},          {"0.001", 0, "loses digits"},
      {"2147483648", 0, "overflows"},   {"-2147483649", 0, "overflows"},      {"21474836.48", -2, "overflows"},
      {"1", -10, "overflows"},          {"99999999999", 0, "overflows"},      {"1", -1000, "overflows"},
      {fifty_nines.c_str(), 0, "overflows"},
      {"", 0, "malformed"},    {"-", 0, "malformed"},   {"+", 0, "malformed"},   {".", 0, "malformed"},
      {"-.", 0, "malformed"},  {"1.2.3", 0, "malformed"}, {"1e5", 0, "malformed"}, {" 1", 0, "malformed"},
      {"1 ", 0, "malformed"},  {"--1", 0, "malformed"}, {"+-1", 0, "malformed"}, {"0x10", 0, "malformed"},
      {"1,5", 0, "malformed"}, {"abc", 0, "malformed"}, {"1.-2", 0, "malformed"}, {"NaN", 0, "malformed"},
  };
  for (const Bad& b : bads) {
    x = keep;
    err.clear();
    const bool ok = dec::parse(b.text, scale_type{b.scale}, &x, &err);
    CHECK_MSG(!ok && err.find(b.why) != std::string::npos && x.value() == 42 && x.scale() == scale_type{-1},
              "'" << b.text << "' at scale " << b.scale << ": " << err);
  }
  CHECK(!dec::parse("1.2.3", &x, nullptr));  // no error string asked for
  // The int128 extremes at scale -38, and one past.
  decimal128 y;
  CHECK(dec::parse("-1.70141183460469231731687303715884105728", scale_type{-38}, &y, &err) && y.value() == dec::kInt128Min);
  CHECK(dec::parse("1.70141183460469231731687303715884105727", &y, &err) && y.value() == dec::kInt128Max);
  CHECK(!dec::parse("1.70141183460469231731687303715884105728", &y, &err) && err.find("overflows int128") != std::string::npos);
  CHECK(!dec::parse("-1.70141183460469231731687303715884105729", &y, &err));
  CHECK(dec::parse(std::string(38, '9'), &y, &err) && dec::fits(y, 38));
  CHECK(dec::parse("1" + std::string(38, '0'), &y, &err) && !dec::fits(y, 38) && dec::fits(y, 39));
  CHECK(dec::parse("17014118346046923173168730371588410572.8", scale_type{0}, &y, &err) == false);
  CHECK(dec::parse("17014118346046923173168730371588410572.7", scale_type{-1}, &y, &err) && y.value() == dec::kInt128Max);
  CHECK(dec::parse("1", scale_type{-38}, &y, &err) && y.value() == int128(dec::pow10_u128(38)));
  CHECK(!dec::parse("2", scale_type{-38}, &y, &err) && err.find("overflows") != std::string::npos);
  decimal64 w;
  CHECK(dec::parse("-9223372036854775808", &w, &err) && w.value() == dec::rep_min<std::int64_t>());
  CHECK(!dec::parse("9223372036854775808", &w, &err) && err.find("overflows int64") != std::string::npos);
}

// ---- Spark's result types ----

void spark_types() {
  using spark::DecimalType;
  auto eq = [](DecimalType got, DecimalType want) { return got == want; };
  const DecimalType i = spark::of_integer(32);
  CHECK(eq(i, {10, 0}) && eq(spark::of_integer(8), {3, 0}) && eq(spark::of_integer(16), {5, 0}) &&
        eq(spark::of_integer(64), {20, 0}) && !spark::valid(spark::of_integer(12)));
  // The article's plan: price decimal(11,2) * quantity int: both cast to decimal(12,2), the product
  // decimal(22,2) (CheckOverflow), the window sum decimal(32,2); past 18 digits, decimal128.
  const DecimalType price{11, 2};
  CHECK(eq(spark::wider_type(price, i), {12, 2}));
  const DecimalType product = spark::multiply_result(price, i);
  CHECK_MSG(eq(product, {22, 2}), spark::to_string(product));
  CHECK(eq(spark::sum_result(product), {32, 2}));
  CHECK(spark::needs_decimal128(22) && spark::needs_decimal128(19) && !spark::needs_decimal128(18));
  CHECK(!spark::needs_decimal128(price.precision) && spark::needs_decimal128(product.precision));
  CHECK(spark::storage_bytes(1) == 4 && spark::storage_bytes(9) == 4 && spark::storage_bytes(10) == 8 &&
        spark::storage_bytes(18) == 8 && spark::storage_bytes(19) == 16 && spark::storage_bytes(38) == 16);
  CHECK(spark::libcudf_scale(product) == -2);
  // Derived from the rules: decimal(38,10) * decimal(38,10) = (77, 20) adjusted to (38, 6);
  // decimal(38,2) + decimal(38,2) = (39, 2) adjusted to (38, 2): min(2, 6) keeps both digits after
  // the point (not (38,1)); decimal(10,2) / decimal(10,2) = scale max(6, 2+10+1) = 13, precision
  // 10-2+2+13 = 23.
  CHECK(eq(spark::multiply_result({38, 10}, {38, 10}), {38, 6}));
  CHECK(eq(spark::add_result({38, 2}, {38, 2}), {38, 2}));
  CHECK(eq(spark::subtract_result({38, 2}, {38, 2}), {38, 2}));
  CHECK(eq(spark::divide_result({10, 2}, {10, 2}), {23, 13}));
  CHECK(eq(spark::add_result({38, 10}, {38, 10}), {38, 9}));
  CHECK(eq(spark::remainder_result({38, 10}, {10, 2}), {18, 10}));
  // Spark's DecimalPrecisionSuite ("basic operations", "bringing in primitive types", "maximum
  // decimals"): d1 = decimal(2,1), d2 = decimal(5,2), i = int, u = decimal(38,18).
  const DecimalType d1{2, 1}, d2{5, 2}, u{38, 18};
  CHECK(eq(spark::add_result(d1, d2), {6, 2}) && eq(spark::subtract_result(d1, d2), {6, 2}));
  CHECK(eq(spark::multiply_result(d1, d2), {8, 3}));
  CHECK(eq(spark::divide_result(d1, d2), {10, 7}) && eq(spark::divide_result(d2, d1), {10, 6}));
  CHECK(eq(spark::remainder_result(d1, d2), {3, 2}) && eq(spark::remainder_result(d2, d1), {3, 2}));
  CHECK(eq(spark::sum_result(d1), {12, 1}) && eq(spark::average_result(d1), {6, 5}));
  CHECK(eq(spark::add_result(spark::add_result(d1, d2), d1), {7, 2}));
  CHECK(eq(spark::add_result(spark::add_result(spark::add_result(d1, d2), d1), d2), {8, 2}));
  CHECK(eq(spark::add_result(spark::add_result(d1, d2), spark::add_result(d1, d2)), {7, 2}));
  CHECK(eq(spark::add_result(d1, i), {12, 1}) && eq(spark::add_result(i, d1), {12, 1}));
  CHECK(eq(spark::add_result(d1, spark::of_integer(64)), {22, 1}));
  CHECK(eq(spark::add_result(d1, spark::of_integer(16)), {7, 1}));
  CHECK(eq(spark::add_result(d1, spark::of_integer(8)), {5, 1}));
  for (const DecimalType e : {d1, d2, i, u}) {
    CHECK(eq(spark::add_result(e, u), {38, 17}));
    CHECK(eq(spark::subtract_result(e, u), {38, 17}));
  }
  CHECK(eq(spark::multiply_result(d1, u), {38, 16}) && eq(spark::multiply_result(d2, u), {38, 14}));
  CHECK(eq(spark::multiply_result(i, u), {38, 7}) && eq(spark::multiply_result(u, u), {38, 6}));
  CHECK(eq(spark::divide_result(u, d1), {38, 17}) && eq(spark::divide_result(u, d2), {38, 16}));
  CHECK(eq(spark::divide_result(u, i), {38, 18}) && eq(spark::divide_result(u, u), {38, 6}));
  CHECK(eq(spark::remainder_result(d1, u), {19, 18}) && eq(spark::remainder_result(d2, u), {21, 18}));
  CHECK(eq(spark::remainder_result(i, u), {28, 18}) && eq(spark::remainder_result(u, u), {38, 18}));
  // Aggregates: sum bounded(p + 10, s); avg bounded(p + 4, s + 4), as Spark's Average.
  CHECK(eq(spark::sum_result({38, 10}), {38, 10}) && eq(spark::sum_result({30, 2}), {38, 2}));
  CHECK(eq(spark::average_result({38, 10}), {38, 14}) && eq(spark::average_result({36, 36}), {38, 38}));
  CHECK(eq(spark::average_result({11, 2}), {15, 6}));
  // bounded and adjust_precision_scale directly.
  CHECK(eq(spark::bounded(40, 40), {38, 38}) && eq(spark::bounded(20, 3), {20, 3}));
  CHECK(eq(spark::adjust_precision_scale(38, 38), {38, 38}) && eq(spark::adjust_precision_scale(39, 39), {38, 38}));
  CHECK(eq(spark::adjust_precision_scale(45, 4), {38, 4}) && eq(spark::adjust_precision_scale(45, 20), {38, 13}));
  CHECK(eq(spark::adjust_precision_scale(80, 10), {38, 6}) && eq(spark::adjust_precision_scale(40, -2), {38, -2}));
  // Validity.
  CHECK(spark::valid({1, 0}) && spark::valid({38, 38}) && spark::valid({10, 10}));
  CHECK(spark::invalid_reason({38, 38}).empty());
  CHECK(!spark::valid({39, 2}) && spark::invalid_reason({39, 2}) == "precision 39 exceeds 38");
  CHECK(!spark::valid({3, 5}) && spark::invalid_reason({3, 5}) == "scale 5 exceeds precision 3");
  CHECK(!spark::valid({0, 0}) && spark::invalid_reason({0, 0}) == "precision 0 is below 1");
  CHECK(!spark::valid({5, -1}) && spark::invalid_reason({5, -1}) == "scale -1 is negative");
  CHECK(spark::to_string(product) == "decimal(22,2)");
  // Every result type of valid operands with precision and scale in range is itself valid.
  int bad = 0;
  for (int p1 = 1; p1 <= 38; p1 += 3)
    for (int s1 = 0; s1 <= p1; s1 += 2)
      for (int p2 = 1; p2 <= 38; p2 += 5)
        for (int s2 = 0; s2 <= p2; s2 += 3) {
          const DecimalType a{p1, s1}, b{p2, s2};
          for (const DecimalType r : {spark::add_result(a, b), spark::multiply_result(a, b), spark::divide_result(a, b),
                                      spark::remainder_result(a, b), spark::sum_result(a), spark::average_result(a),
                                      spark::wider_type(a, b)})
            bad += !spark::valid(r);
        }
  CHECK_MSG(bad == 0, bad << " invalid result types");
}

}  // namespace

int main() {
  int128_constants();
  int128_text();
  for (std::uint64_t seed : {1ull, 2ull, 3ull}) {
    checked_ops_vs_builtins<std::int32_t>(seed);
    checked_ops_vs_builtins<std::int64_t>(seed);
    checked_ops_vs_builtins<int128>(seed);
  }
  umul128_vs_builtin();
  mul_edges<std::int32_t>(46340);
  mul_edges<std::int64_t>(3037000499ll);
  mul_edges<int128>(parse128("13043817825332782212"));
  fits_precision_edges();
  double_helpers();
  article_examples();
  floating_construction();
  conversions();
  rounding_and_rescaling();
  overflow_edges<std::int32_t>();
  overflow_edges<std::int64_t>();
  overflow_edges<int128>();
  decimal128_precision();
  printing();
  for (std::uint64_t seed : {1ull, 2ull, 3ull}) {
    round_trips<std::int32_t>(seed);
    round_trips<std::int64_t>(seed);
    round_trips<int128>(seed);
  }
  parsing();
  spark_types();
  return test_summary("cpu_fixed_point");
}
