// The decimal study's sales rows: product id (the group), price decimal(p, s) (the
// unscaled int64, and the nearest double for the float query), quantity int32. Plain C++ (the CPU
// tests check the generator too).
//   product   the study's label distributions (harness::labels: uniform, zipf, ...) over [0, m)
//   price     retail rows: uniform in [1, min(10^p - 1, 10^6)] units of 10^-s, quantity 1..100;
//             bulk rows (half the rows of a wholesale product: one product in 8, chosen by a hash
//             of its id, so m = 1's only product is one): price in [10^(p-1), 10^p - 1], quantity
//             in [2^20, 2^23); extreme rows (one in 4096, any product): a bulk price and a quantity
//             in [2^30, 2^31 - 1]
// With the default decimal(11, 2) a bulk row's product (< 8.4·10^17) fits decimal64's 18 digits
// but two of them overflow its sum, and an extreme row's product (> 10^19) overflows decimal64's
// product already: wholesale products go null in decimal64 at every m while decimal128's 22- and
// 32-digit types hold every row and total (2^30 rows · 2.2·10^20 < 10^32).
#pragma once
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"

namespace lp::decimal_study {

struct Sales {
  std::vector<std::uint32_t> labels;
  std::vector<std::int64_t> price;
  std::vector<std::int32_t> qty;
  std::vector<double> price_f;  // filled only for the double query
};

inline std::int64_t pow10_i64(int k) {
  std::int64_t v = 1;
  while (k-- > 0) v *= 10;
  return v;
}

// One product in 8 is a wholesaler's (a multiplicative hash of its id; product 0 is one).
inline bool wholesale(std::uint32_t product) { return (product * 0x9E3779B1u) >> 29 == 0; }

enum class RowKind { Retail, Bulk, Extreme };

// A row's kind from its index alone, so that the price and quantity columns, filled separately
// and in parallel, agree on it.
inline RowKind row_kind(std::uint64_t seed, std::uint32_t product, std::size_t i) {
  const std::uint64_t h = harness::Rng(seed ^ (std::uint64_t(i) * 0xD1B54A32D192ED03ull)).next();
  if ((h & 4095) == 0) return RowKind::Extreme;
  return wholesale(product) && (h >> 12 & 1) ? RowKind::Bulk : RowKind::Retail;
}

inline Sales make_sales(std::int64_t n, std::uint32_t m, const std::string& dist, double zipf_s, int precision, int scale,
                        bool with_double, std::uint64_t seed, double run_length = 16) {
  if (n < 1 || m < 1) throw std::invalid_argument("sales: n and m must be >= 1");
  if (precision < 1 || precision > 18) throw std::invalid_argument("sales: the price column is decimal64 (precision 1..18)");
  Sales s;
  s.labels = harness::labels(n, m, dist, zipf_s, harness::derive_seed(seed, "products"), run_length);
  s.price.resize(std::size_t(n));
  s.qty.resize(std::size_t(n));
  const std::uint64_t kind_seed = harness::derive_seed(seed, "kind");
  const std::int64_t top = pow10_i64(precision) - 1, bulk_lo = pow10_i64(precision - 1);
  const std::int64_t retail_hi = std::min<std::int64_t>(top, 1000000);
  harness::parallel_fill(s.price, harness::derive_seed(seed, "price"), [&](harness::Rng& g, std::size_t i) {
    if (row_kind(kind_seed, s.labels[i], i) == RowKind::Retail) return std::int64_t(1 + g.below(std::uint64_t(retail_hi)));
    return bulk_lo + std::int64_t(g.below(std::uint64_t(top - bulk_lo + 1)));
  });
  harness::parallel_fill(s.qty, harness::derive_seed(seed, "quantity"), [&](harness::Rng& g, std::size_t i) {
    switch (row_kind(kind_seed, s.labels[i], i)) {
      case RowKind::Retail: return std::int32_t(1 + g.below(100));
      case RowKind::Bulk: return std::int32_t((1 << 20) + g.below((1 << 23) - (1 << 20)));
      default: return std::int32_t((1u << 30) + g.below((1u << 31) - 1 - (1u << 30) + 1));
    }
  });
  if (with_double) {
    // The nearest double to each price (exact division of two exact doubles, for p <= 15).
    const double unit = double(pow10_i64(scale));
    s.price_f.resize(std::size_t(n));
    for (std::size_t i = 0; i < s.price.size(); ++i) s.price_f[i] = double(s.price[i]) / unit;
  }
  return s;
}

}  // namespace lp::decimal_study
