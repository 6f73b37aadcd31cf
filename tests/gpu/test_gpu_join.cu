// Every registered GPU join through the study's own points (the generator, the reference, the
// poisoned output sized by the reference's count, the digest and pair-for-pair validation the
// benchmark uses): odd sizes, |R| = 1 (every S tuple of a matching key joins it), both key types,
// every distribution, no match, heavy duplicates (a few keys: long runs in R for every S tuple),
// zipf skew, a band point (the equi-joins refuse it), several seeds; then the cases again in a
// shuffled order, so no outcome depends on what ran before. Exit 77 (CTest: skipped) without a GPU;
// LP_GPU_TEST_QUICK=1 (the sanitizer runs) takes fewer, smaller cases.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "apps/join/join_study.hpp"
#include "check.hpp"
#include "check_variant.hpp"
#include "gpu_test.hpp"

namespace lp::join_study {
const char* const kDefaultConfig = "{}";
}

using harness::Params;
using harness::Value;

namespace {

struct Case {
  std::int64_t r, s;
  std::string key, dist;
  double match = 1.0, zipf_s = 1.0;
  std::int64_t band = 0;
  std::uint64_t seed = 1;
  std::int64_t radix_bits = 0;
};

}  // namespace

int main() {
  if (no_gpu("test_gpu_join")) return kSkipped;
  const bool quick = quick_mode();
  auto study = lp::join_study::make_study();
  harness::Rng pick(777);
  std::vector<Case> cases;
  std::vector<std::int64_t> sizes = {1, 2, 31, 1000, 4099, 65537, (1 << 20) + 3};
  if (quick) sizes = {1, 31, 4099};
  for (const std::string key : {"int32", "int64"})
    for (const std::string dist : {"unique", "uniform", "zipf"})
      for (std::int64_t r : sizes)
        cases.push_back({r, sizes[std::size_t(pick.below(sizes.size()))], key, dist, 1.0, 0.5 + pick.unit(), 0, 1 + pick.below(1000)});
  // No match, part match; a few keys (|R| = 3: every S tuple of a key meets a run of R tuples);
  // strong skew; a band point.
  for (const std::string key : {"int32", "int64"}) {
    cases.push_back({5003, 7001, key, "unique", 0.0, 1.0, 0, 3});
    cases.push_back({5003, 7001, key, "unique", 0.37, 1.0, 0, 4});
    cases.push_back({3, 20011, key, "uniform", 1.0, 1.0, 0, 5});
    cases.push_back({quick ? 4099 : 200003, quick ? 8191 : 300007, key, "zipf", 1.0, 1.5, 0, 6});
    cases.push_back({300, 500, key, "uniform", 1.0, 1.0, 2, 7});
    // The radix HJ with few partitions: R partitions beyond its 2048-tuple shared table (tiles),
    // S partitions of many chunks; and with many (mostly empty) partitions.
    cases.push_back({quick ? 5001 : 20011, quick ? 7001 : 50021, key, "uniform", 1.0, 1.0, 0, 8, 1});
    cases.push_back({2049, 4097, key, "unique", 0.9, 1.0, 0, 9, 14});
  }
  for (int k = 0; k < (quick ? 2 : 6); ++k)
    cases.push_back({1 + std::int64_t(pick.below(1 << (quick ? 12 : 20))), 1 + std::int64_t(pick.below(1 << (quick ? 12 : 20))),
                     k % 2 ? "int64" : "int32", std::vector<std::string>{"unique", "uniform", "zipf"}[std::size_t(k % 3)], pick.unit(), 1.2, 0,
                     pick.next()});

  std::vector<TestCase> tests;
  for (const Case& c : cases) {
    Params p = default_params(*study);
    p["r"] = c.r;
    p["s"] = c.s;
    p["key"] = c.key;
    p["distribution"] = c.dist;
    p["match"] = c.match;
    p["zipf_s"] = c.zipf_s;
    p["band"] = c.band;
    p["radix_bits"] = c.radix_bits;
    tests.push_back({p, c.seed,
                     "r=" + std::to_string(c.r) + " s=" + std::to_string(c.s) + " " + c.key + " " + c.dist + " match=" +
                         harness::to_string(Value(c.match)) +  " band=" + std::to_string(c.band) + " bits=" + std::to_string(c.radix_bits) + " seed=" + std::to_string(c.seed)});
  }
  run_cases_in_two_orders(*study, tests);
  return test_summary("test_gpu_join");
}
