// Spark SQL's decimal result types (the decimal128 article, docs/references.md, "Spark"): the
// precision and scale Spark's analyzer gives the result of a decimal operator or aggregate, with
// spark.sql.decimalOperations.allowPrecisionLoss = true (the default), after Spark's DecimalPrecision
// rules and DecimalType.adjustPrecisionScale; they tell which libcudf width a column needs. Spark's
// scale is the number of digits after the point, the negative of libcudf's (0.12345 is Spark scale
// 5, libcudf scale -5). Plain C++.
#pragma once
#include <algorithm>
#include <string>

namespace lp::decimal::spark {

struct DecimalType {
  int precision;  // decimal digits in all, 1..38
  int scale;      // digits after the point, 0..precision
};
constexpr bool operator==(DecimalType a, DecimalType b) { return a.precision == b.precision && a.scale == b.scale; }
constexpr bool operator!=(DecimalType a, DecimalType b) { return !(a == b); }

constexpr int kMaxPrecision = 38;
constexpr int kMaxScale = 38;
constexpr int kMaxIntDigits = 9;    // the most digits an int32 always holds (decimal32)
constexpr int kMaxLongDigits = 18;  // the most digits an int64 always holds (decimal64)
constexpr int kMinimumAdjustedScale = 6;

// The decimal type an integer operand is cast to: byte (8 bits) decimal(3,0), short decimal(5,0),
// int decimal(10,0), long decimal(20,0); decimal(0,0) (invalid) for another width.
constexpr DecimalType of_integer(int bits) {
  switch (bits) {
    case 8: return {3, 0};
    case 16: return {5, 0};
    case 32: return {10, 0};
    case 64: return {20, 0};
    default: return {0, 0};
  }
}

// DecimalType.bounded: precision and scale each capped at 38.
constexpr DecimalType bounded(int p, int s) { return {std::min(p, kMaxPrecision), std::min(s, kMaxScale)}; }

// DecimalType.adjustPrecisionScale (allowPrecisionLoss = true): a precision above 38 becomes 38,
// and the scale gives way to keep the integer digits, but keeps at least min(s, 6) digits after
// the point. (A negative scale, possible only under Spark's legacy setting, stays as it is.)
constexpr DecimalType adjust_precision_scale(int p, int s) {
  if (p <= kMaxPrecision) return {p, s};
  if (s < 0) return {kMaxPrecision, s};
  const int int_digits = p - s;
  const int min_scale = std::min(s, kMinimumAdjustedScale);
  return {kMaxPrecision, std::max(kMaxPrecision - int_digits, min_scale)};
}

// e1 + e2 and e1 - e2: scale max(s1, s2), precision max(p1 - s1, p2 - s2) + scale + 1.
constexpr DecimalType add_result(DecimalType a, DecimalType b) {
  const int s = std::max(a.scale, b.scale);
  return adjust_precision_scale(std::max(a.precision - a.scale, b.precision - b.scale) + s + 1, s);
}
constexpr DecimalType subtract_result(DecimalType a, DecimalType b) { return add_result(a, b); }

// e1 * e2: precision p1 + p2 + 1, scale s1 + s2.
constexpr DecimalType multiply_result(DecimalType a, DecimalType b) {
  return adjust_precision_scale(a.precision + b.precision + 1, a.scale + b.scale);
}

// e1 / e2: scale max(6, s1 + p2 + 1), precision p1 - s1 + s2 + scale.
constexpr DecimalType divide_result(DecimalType a, DecimalType b) {
  const int s = std::max(kMinimumAdjustedScale, a.scale + b.precision + 1);
  return adjust_precision_scale(a.precision - a.scale + b.scale + s, s);
}

// e1 % e2: scale max(s1, s2), precision min(p1 - s1, p2 - s2) + scale.
constexpr DecimalType remainder_result(DecimalType a, DecimalType b) {
  const int s = std::max(a.scale, b.scale);
  return adjust_precision_scale(std::min(a.precision - a.scale, b.precision - b.scale) + s, s);
}

// sum(e): bounded(p + 10, s).
constexpr DecimalType sum_result(DecimalType a) { return bounded(a.precision + 10, a.scale); }

// avg(e): bounded(p + 4, s + 4), as Spark's Average.resultType (bounded, not adjusted: decimal(38,10)
// averages to decimal(38,14)).
constexpr DecimalType average_result(DecimalType a) { return bounded(a.precision + 4, a.scale + 4); }

// The type both operands are cast to before the operator runs (Spark's widerDecimalType, the
// promote_precision(cast(… as decimal(12,2))) of a decimal(11,2) times an int): scale max(s1, s2),
// integer digits max(p1 - s1, p2 - s2), bounded.
constexpr DecimalType wider_type(DecimalType a, DecimalType b) {
  const int s = std::max(a.scale, b.scale);
  return bounded(std::max(a.precision - a.scale, b.precision - b.scale) + s, s);
}

// A type Spark accepts: 1 <= precision <= 38 and 0 <= scale <= precision.
constexpr bool valid(DecimalType t) {
  return t.precision >= 1 && t.precision <= kMaxPrecision && t.scale >= 0 && t.scale <= t.precision;
}

// Why t is not valid ("precision 39 exceeds 38", "scale 5 exceeds precision 3"), or "" if it is.
inline std::string invalid_reason(DecimalType t) {
  if (t.precision < 1) return "precision " + std::to_string(t.precision) + " is below 1";
  if (t.precision > kMaxPrecision)
    return "precision " + std::to_string(t.precision) + " exceeds " + std::to_string(kMaxPrecision);
  if (t.scale < 0) return "scale " + std::to_string(t.scale) + " is negative";
  if (t.scale > t.precision)
    return "scale " + std::to_string(t.scale) + " exceeds precision " + std::to_string(t.precision);
  return "";
}

// "decimal(22,2)".
inline std::string to_string(DecimalType t) {
  return "decimal(" + std::to_string(t.precision) + "," + std::to_string(t.scale) + ")";
}

// More than 18 digits do not fit an int64: the column needs decimal128.
constexpr bool needs_decimal128(int precision) { return precision > kMaxLongDigits; }

// libcudf's storage for a precision: decimal32 (4 bytes) up to 9 digits, decimal64 (8) up to 18,
// decimal128 (16) beyond.
constexpr int storage_bytes(int precision) {
  return precision <= kMaxIntDigits ? 4 : (precision <= kMaxLongDigits ? 8 : 16);
}

// The libcudf scale_type value of a Spark type (the negated scale).
constexpr int libcudf_scale(DecimalType t) { return -t.scale; }

}  // namespace lp::decimal::spark
