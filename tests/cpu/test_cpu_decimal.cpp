// The decimal study's CPU side: the sales generator (ranges, row kinds, determinism,
// the overflow design: decimal64 nulls where decimal128 does not), the query's operators on the
// host (the 16-byte carry add, the 32-bit words and their carry resolution, decimal64's product
// check and sticky overflow) and the sequential and multithreaded queries against a brute force.
#include <algorithm>
#include <cstdint>
#include <map>
#include <vector>

#include "apps/decimal/sales.hpp"
#include "check.hpp"
#include "cpu_reference/decimal/group_sum.hpp"
#include "cpu_reference/decimal/int128.hpp"

using lp::decimal::int128;
namespace cd = lp::cpu::decimal;
namespace kd = lp::decimal;
using namespace lp::decimal_study;

namespace {

cd::Limits limits(int product_digits, int sum_digits) {
  return {kd::pow10<int128>(product_digits) - 1, kd::pow10<int128>(sum_digits) - 1};
}

// The query by its definition: a map of exact totals over the non-null products.
void brute_force(const Sales& s, std::uint32_t m, const cd::Limits& lim, std::vector<int128>& total, std::vector<std::uint8_t>& null, bool& failed) {
  std::map<std::uint32_t, int128> sum;
  failed = false;
  for (std::size_t i = 0; i < s.labels.size(); ++i) {
    const int128 p = int128(s.price[i]) * s.qty[i];
    if (p > lim.product || -p > lim.product) {
      failed = true;
      continue;
    }
    sum[s.labels[i]] += p;
  }
  total.assign(m, 0);
  null.assign(m, 0);
  for (auto& [g, t] : sum) {
    total[g] = t;
    null[g] = t > lim.sum || -t > lim.sum;
    failed |= null[g] != 0;
  }
}

void test_generator() {
  for (int precision : {1, 4, 11, 18}) {
    const Sales s = make_sales(100003, 1000, "uniform", 1.0, precision, std::min(precision, 2), true, 7);
    const std::int64_t top = pow10_i64(precision) - 1;
    bool ok = true;
    for (std::size_t i = 0; i < s.labels.size(); ++i) {
      ok &= s.labels[i] < 1000 && s.price[i] >= 1 && s.price[i] <= top && s.qty[i] >= 1;
      ok &= s.price_f[i] == double(s.price[i]) / double(pow10_i64(std::min(precision, 2)));
    }
    CHECK_MSG(ok, "precision " << precision);
    const Sales again = make_sales(100003, 1000, "uniform", 1.0, precision, std::min(precision, 2), false, 7);
    CHECK(again.price == s.price && again.qty == s.qty && again.labels == s.labels && again.price_f.empty());
  }
  // One product in 8 is a wholesaler's, product 0 among them; extreme rows one in 4096.
  int wholesalers = 0;
  for (std::uint32_t p = 0; p < 80000; ++p) wholesalers += wholesale(p);
  CHECK(wholesale(0));
  CHECK_MSG(wholesalers > 9000 && wholesalers < 11000, wholesalers);
  const Sales s = make_sales(1 << 20, 1 << 12, "uniform", 1.0, 11, 2, false, 9);
  std::int64_t extreme = 0;
  for (std::int32_t q : s.qty) extreme += q >= (1 << 30);
  CHECK_MSG(extreme > 150 && extreme < 370, extreme);
}

// The design the study's overflow claims rest on: at decimal(11,2), decimal128's Spark types
// (decimal(22,2), decimal(32,2)) null nothing, decimal64's 18 digits null rows and groups, at m = 1
// (the one wholesale product) and at m = 2^16.
void test_overflow_design() {
  for (std::uint32_t m : {1u, 1u << 16}) {
    const Sales s = make_sales(1 << 19, m, "uniform", 1.0, 11, 2, false, 3);
    const cd::Rows r{s.labels.data(), s.price.data(), nullptr, s.qty.data(), std::int64_t(s.labels.size()), m};
    const cd::Answer a128 = cd::reference(r, limits(22, 32)), a64 = cd::reference(r, limits(18, 18));
    CHECK(a128.null_rows == 0 && a128.null_groups == 0 && !a128.failed());
    CHECK_MSG(a64.null_rows > 0 && a64.null_groups > 0, m << ": " << a64.null_rows << " " << a64.null_groups);
    if (m == 1) CHECK(a64.null_groups == 1);
  }
}

void test_operators() {
  using kd::Sum128;
  using kd::Sum128Words;
  using kd::Sum64;
  // 16-byte carry add and the word split, across the carry out of the low word and signs.
  const int128 vals[] = {0, 1, -1, int128(~0ull), int128(~0ull) + 1, -int128(~0ull), int128(1) << 100, -(int128(1) << 100) + 12345,
                         int128(0x7fffffffffffffffll) * 0x7fffffff};
  for (int128 a : vals)
    for (int128 b : vals) {
      CHECK(Sum128::apply(a, b) == a + b);
      CHECK(Sum128Words::total(Sum128Words::apply(Sum128Words::split(a), Sum128Words::split(b))) == a + b);
    }
  // Words summed many times without carries still resolve exactly.
  Sum128Words::value_type w = Sum128Words::identity();
  int128 exact = 0;
  harness::Rng g(5);
  for (int i = 0; i < 100000; ++i) {
    const int128 v = int128(std::int64_t(g.next())) * std::int32_t(g.next());
    w = Sum128Words::apply(w, Sum128Words::split(v));
    exact += v;
  }
  CHECK(Sum128Words::total(w) == exact);
  // decimal64: the product's overflow from the high half, the limit, and the sticky sum.
  bool null = false;
  CHECK(Sum64::row(999999999999ll, 1000000, kd::pow10<int128>(18) - 1, &null) == 999999999999000000ll && !null);
  Sum64::row(999999999999ll, 1000001, kd::pow10<int128>(18) - 1, &null);
  CHECK(null);  // 1.000000999999e18 > 10^18 - 1
  Sum64::row(0x7fffffffffffffffll, 2, kd::pow10<int128>(18) - 1, &null);
  CHECK(null);  // beyond int64
  Sum64::row(-(0x7fffffffffffffffll) - 1, -1, kd::pow10<int128>(18) - 1, &null);
  CHECK(null);  // -INT64_MIN
  CHECK(Sum64::apply(0x7fffffffffffffffll, 1) == Sum64::kOverflow);
  CHECK(Sum64::apply(Sum64::kOverflow, -5) == Sum64::kOverflow && Sum64::overflowed(Sum64::apply(-5, Sum64::kOverflow)));
  CHECK(Sum64::apply(-(0x7fffffffffffffffll), -2) == Sum64::kOverflow);
  CHECK(Sum64::apply(4, -9) == -5 && !Sum64::overflowed(-5));
  // decimal64's two words: exact totals of mixed-sign 18-digit products in any order, sums the
  // 8-byte buckets could not hold resolved (CheckOverflow sees them), the widened sticky marker.
  using kd::Sum64Words;
  const long long limit18 = 999999999999999999ll;
  Sum64Words::value_type up = Sum64Words::identity(), down = Sum64Words::identity();
  int128 exact64 = 0;
  std::vector<long long> products;
  for (int i = 0; i < 20000; ++i) products.push_back((i % 3 ? 1 : -1) * (long long)(g.next() % std::uint64_t(limit18)));
  products.push_back(limit18), products.push_back(-limit18), products.push_back(-(1ll << 32)), products.push_back((1ll << 32) - 1);
  for (std::size_t i = 0; i < products.size(); ++i) {
    up = Sum64Words::apply(up, Sum64Words::split(products[i]));
    down = Sum64Words::apply(down, Sum64Words::split(products[products.size() - 1 - i]));
    exact64 += products[i];
  }
  CHECK(Sum64Words::total(up) == exact64 && up == down && !Sum64Words::overflowed(up));
  Sum64Words::value_type many = Sum64Words::identity();
  for (int i = 0; i < 100; ++i) many = Sum64Words::apply(many, Sum64Words::split(limit18));
  CHECK(Sum64Words::total(many) == int128(limit18) * 100);  // beyond int64: the words still hold it
  for (long long v : {0ll, -1ll, limit18, -limit18}) CHECK(Sum64Words::total(Sum64Words::widen(v)) == v);
  CHECK(Sum64Words::overflowed(Sum64Words::widen(Sum64::kOverflow)));
  CHECK(Sum64Words::overflowed(Sum64Words::apply(Sum64Words::split(5), Sum64Words::widen(Sum64::kOverflow))));
}

void test_queries() {
  harness::Rng g(11);
  for (int k = 0; k < 24; ++k) {
    const std::int64_t n = 1 + std::int64_t(g.below(k < 12 ? 5000 : 300000));
    const std::uint32_t m = 1 + std::uint32_t(g.below(k % 3 == 0 ? 3 : k % 3 == 1 ? 3000 : 200000));
    const char* dist = k % 4 == 0 ? "zipf" : k % 4 == 1 ? "degenerate" : k % 4 == 2 ? "runs" : "uniform";
    const int precision = 1 + int(g.below(18)), scale = int(g.below(std::uint64_t(precision) + 1));
    const Sales s = make_sales(n, m, dist, 1.1, precision, scale, true, g.next());
    const cd::Rows r{s.labels.data(), s.price.data(), s.price_f.data(), s.qty.data(), n, m};
    for (const cd::Limits& lim : {limits(precision + 11, std::min(precision + 21, 38)), limits(18, 18), limits(12, 13)}) {
      std::vector<int128> want;
      std::vector<std::uint8_t> want_null;
      bool want_failed = false;
      brute_force(s, m, lim, want, want_null, want_failed);
      const cd::Answer a = cd::reference(r, lim);
      CHECK_MSG(a.total == want && a.null == want_null && a.failed() == want_failed, "reference, case " << k << ": " << (a.total == want) << (a.null == want_null) << a.failed() << want_failed << " p=" << precision << " n=" << n << " m=" << m << " lim=" << double(lim.product) << "," << double(lim.sum));
      {
        std::vector<int128> total(m);
        std::vector<std::uint8_t> null(m);
        const bool failed = cd::group_sum_sequential(r, lim, total.data(), null.data());
        CHECK_MSG(total == want && null == want_null && failed == want_failed, "sequential, case " << k);
      }
      for (int threads : {1, 3}) {
        std::vector<unsigned char> scratch(cd::group_sum_mt_scratch_bytes(n, m, threads));
        std::vector<int128> total(m);
        std::vector<std::uint8_t> null(m);
        const bool failed = cd::group_sum_mt(r, lim, threads, scratch.data(), total.data(), null.data());
        CHECK_MSG(total == want && null == want_null && failed == want_failed, "mt, case " << k << ", " << threads << " threads");
      }
    }
    // The double query against the exact totals (a relative 1e-9: few rows per group here).
    std::vector<double> seq(m), mt(m);
    cd::group_sum_double(r, seq.data());
    std::vector<unsigned char> scratch(cd::group_sum_double_mt_scratch_bytes(n, m, 3));
    cd::group_sum_double_mt(r, 3, scratch.data(), mt.data());
    const cd::Answer exact = cd::reference(r, limits(38, 38));
    bool close = true;
    const double unit = double(pow10_i64(scale));
    for (std::uint32_t b = 0; b < m; ++b) {
      const double e = double(exact.total[b]) / unit;
      close &= std::abs(seq[b] - e) <= 1e-9 * std::abs(e) && std::abs(mt[b] - e) <= 1e-9 * std::abs(e);
    }
    CHECK_MSG(close, "double, case " << k);
  }
}

}  // namespace

int main() {
  test_generator();
  test_overflow_design();
  test_operators();
  test_queries();
  return test_summary("cpu_decimal");
}
