// Every registered GPU variant of the decimal study through the study's own points (the sales
// generator, the exact reference, poisoned buckets, the validation the benchmark uses): odd sizes,
// one product (every row one group, which overflows decimal64), more products than rows, every
// type and overflow mode, each product-id distribution, a decimal(18, 0) price (the products'
// 29 digits), m across every regime of auto (shared memory, a cluster, L2, beyond), several seeds;
// then the cases again in a shuffled order, so no outcome depends on what ran before. Exit 77
// (CTest: skipped) without a GPU; LP_GPU_TEST_QUICK=1 (the sanitizer runs) takes fewer, smaller cases.
#include <cuda_runtime.h>

#include <string>
#include <vector>

#include "apps/decimal/decimal_study.hpp"
#include "apps/harness/datagen.hpp"
#include "check.hpp"
#include "check_variant.hpp"
#include "gpu_test.hpp"

namespace lp::decimal_study {
const char* const kDefaultConfig = "{}";
}

using harness::Params;

namespace {

struct Case {
  std::int64_t n, m;
  std::string dist, type, on_overflow = "null";
  std::uint64_t seed = 1;
  std::int64_t precision = 11, scale = 2;
};

}  // namespace

int main() {
  if (no_gpu("test_gpu_decimal")) return kSkipped;
  const bool quick = quick_mode();
  auto study = lp::decimal_study::make_study();
  harness::Rng pick(1412);
  std::vector<Case> cases;
  std::vector<std::int64_t> sizes = {1, 3, 1000, 4099, 65537, (1 << 20) + 3};
  std::vector<std::int64_t> ms = {1, 2, 255, 4096, 20000, 100003, 1 << 20, (1 << 22) + 1};
  if (quick) sizes = {1, 3, 4099}, ms = {1, 255, 20000, 100003};
  for (const std::string type : {"decimal128", "decimal64", "double"})
    for (std::int64_t n : sizes)
      for (const std::string dist : {"uniform", "zipf", "degenerate"})
        cases.push_back({n, ms[std::size_t(pick.below(ms.size()))], dist, type, "null", 1 + pick.below(1000)});
  // Every regime of auto on enough rows to fill it, both overflow modes, the widest price.
  for (std::int64_t m : ms)
    for (const std::string type : {"decimal128", "decimal64"})
      cases.push_back({quick ? 50021 : 1000003, m, "uniform", type, m % 2 ? "fail" : "null", 2 + pick.below(1000)});
  // Few ids beyond the registers' (shared_perthread, auto's plan there): every type, each at a size
  // that leaves a ragged tail of quads.
  for (std::int64_t m : {5, 13, 32})
    for (const std::string type : {"decimal128", "decimal64", "double"})
      cases.push_back({quick ? 50021 : 1000003, m, m == 13 ? "zipf" : "uniform", type, "null", 4 + pick.below(1000)});
  // decimal64's words and its sort path (8-byte sums widened) where ids repeat.
  for (std::int64_t m : ms) cases.push_back({quick ? 50021 : 1000003, m, "zipf", "decimal64", "null", 3 + pick.below(1000)});
  cases.push_back({quick ? 4099 : 300007, 1, "uniform", "decimal64", "null", 11});  // every group (the one) overflows
  cases.push_back({quick ? 4099 : 300007, 1, "uniform", "decimal64", "fail", 12});
  cases.push_back({quick ? 4099 : 200003, 777, "sorted", "decimal128", "null", 13, 18, 0});
  cases.push_back({quick ? 4099 : 200003, 777, "runs", "decimal64", "null", 14, 18, 4});
  cases.push_back({quick ? 4099 : 200003, 300, "zipf", "double", "null", 15, 15, 3});

  std::vector<TestCase> tests;
  for (const Case& c : cases) {
    Params p = default_params(*study);
    p["n"] = c.n;
    p["m"] = c.m;
    p["distribution"] = c.dist;
    p["type"] = c.type;
    p["on_overflow"] = c.on_overflow;
    p["price_precision"] = c.precision;
    p["price_scale"] = c.scale;
    tests.push_back({p, c.seed,
                     "n=" + std::to_string(c.n) + " m=" + std::to_string(c.m) + " " + c.dist + " " + c.type + " " + c.on_overflow + " decimal(" +
                         std::to_string(c.precision) + "," + std::to_string(c.scale) + ") seed=" + std::to_string(c.seed)});
  }
  run_cases_in_two_orders(*study, tests);
  return test_summary("test_gpu_decimal");
}
