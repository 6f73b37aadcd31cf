// The CPU multireduce variants (Alg 2.2, Alg 2.4 with every sort-bit count) against a brute-force
// per-bucket fold, for every operator (the non-commutative ones check order), the operators' laws,
// and the label distributions the studies share.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "check.hpp"
#include "cpu_reference/multireduce/cpu_multireduce.hpp"

namespace mr = lp::multireduce;

template <class Op>
std::vector<typename Op::value_type> values_for(std::size_t n, harness::Rng& rng) {
  using T = typename Op::value_type;
  std::vector<T> v(n);
  for (std::size_t i = 0; i < n; ++i) {
    std::uint64_t x = rng.next();
    if constexpr (std::is_same_v<T, mr::Affine32>) v[i] = {std::uint32_t(x) | 1u, std::uint32_t(x >> 32)};
    else if constexpr (std::is_same_v<Op, mr::Last>) v[i] = std::int32_t(i);
    else if constexpr (std::is_floating_point_v<T>) v[i] = T(int(x % 2001) - 1000);  // small integers: sums exact in any order
    else v[i] = T(x);
  }
  return v;
}

template <class Op>
void check_op(const char* name) {
  using T = typename Op::value_type;
  harness::Rng rng(42);
  // Laws on random elements: identity on both sides, associativity.
  for (int k = 0; k < 1000; ++k) {
    auto v = values_for<Op>(3, rng);
    CHECK_MSG(Op::apply(Op::identity(), v[0]) == v[0] && Op::apply(v[0], Op::identity()) == v[0], name << " identity");
    CHECK_MSG(Op::apply(Op::apply(v[0], v[1]), v[2]) == Op::apply(v[0], Op::apply(v[1], v[2])), name << " associativity");
  }
  for (std::uint32_t m : {1u, 2u, 3u, 17u, 256u, 1000u, 4099u})
    for (std::size_t n : {std::size_t(0), std::size_t(1), std::size_t(2), std::size_t(999), std::size_t(20011)})
      for (const char* dist : {"uniform", "degenerate", "sorted", "zipf"}) {
        auto labels = harness::labels(std::int64_t(n), m, dist, 1.1, rng.next());
        auto values = values_for<Op>(n, rng);
        auto want = lp::cpu::multireduce_brute_force<Op>(labels, values, m);
        std::vector<T> got(m);
        lp::cpu::multireduce_sequential<Op>(labels.data(), values.data(), std::int64_t(n), m, got.data());
        CHECK_MSG(got == want, name << " sequential n=" << n << " m=" << m << " " << dist);
        for (int bits : {0, 1, 3, 8, 13, 32}) {
          std::fill(got.begin(), got.end(), T{});
          lp::cpu::multireduce_sorted<Op>(labels.data(), values.data(), std::int64_t(n), m, bits, got.data());
          CHECK_MSG(got == want, name << " sorted bits=" << bits << " n=" << n << " m=" << m << " " << dist);
        }
      }
}

void check_labels() {
  const std::int64_t n = 200000;
  for (std::uint32_t m : {1u, 7u, 256u, 65537u}) {
    for (const char* dist : {"uniform", "degenerate", "sorted", "zipf"}) {
      auto l = harness::labels(n, m, dist, 1.0, 7);
      CHECK_MSG(std::all_of(l.begin(), l.end(), [m](std::uint32_t x) { return x < m; }), dist << " range m=" << m);
      CHECK_MSG(l == harness::labels(n, m, dist, 1.0, 7), dist << " deterministic");
    }
    auto d = harness::labels(n, m, "degenerate", 1.0, 1);
    CHECK(std::all_of(d.begin(), d.end(), [m](std::uint32_t x) { return x == m - 1; }));
    auto s = harness::labels(n, m, "sorted", 1.0, 1);
    CHECK(std::is_sorted(s.begin(), s.end()));
  }
  // Zipf(1) over 256 labels: the most frequent label has probability 1/H(256) ~ 0.1633, the
  // second half that.
  auto z = harness::labels(n, 256, "zipf", 1.0, 3);
  std::vector<std::int64_t> count(256, 0);
  for (auto x : z) ++count[x];
  std::sort(count.rbegin(), count.rend());
  double h = 0;
  for (int r = 1; r <= 256; ++r) h += 1.0 / r;
  CHECK_MSG(std::fabs(double(count[0]) / n - 1 / h) < 0.01, "zipf top " << double(count[0]) / n << " vs " << 1 / h);
  CHECK_MSG(std::fabs(double(count[1]) / n - 0.5 / h) < 0.01, "zipf second " << double(count[1]) / n);
  // A steeper exponent concentrates more.
  auto z2 = harness::labels(n, 256, "zipf", 2.0, 3);
  std::vector<std::int64_t> c2(256, 0);
  for (auto x : z2) ++c2[x];
  CHECK(*std::max_element(c2.begin(), c2.end()) > count[0]);
}

int main() {
  check_op<mr::Add<std::int32_t>>("add/int32");
  check_op<mr::Add<std::int64_t>>("add/int64");
  check_op<mr::Add<float>>("add/float32");
  check_op<mr::Min<std::int32_t>>("min/int32");
  check_op<mr::Max<std::int32_t>>("max/int32");
  check_op<mr::Compose>("affine");
  check_op<mr::Last>("last");
  // The affine composition is order-sensitive: a reversed input gives a different bucket.
  std::vector<std::uint32_t> l = {0, 0, 0};
  std::vector<mr::Affine32> v = {{3, 1}, {5, 2}, {7, 10}}, r(v.rbegin(), v.rend());
  CHECK(lp::cpu::multireduce_brute_force<mr::Compose>(l, v, 1) != lp::cpu::multireduce_brute_force<mr::Compose>(l, r, 1));
  check_labels();
  return test_summary("test_cpu_multireduce");
}
