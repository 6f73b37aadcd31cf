// Every registered GPU join through the study's own points (the generator, the reference, the
// poisoned output sized by the reference's count, the digest and pair-for-pair validation the
// benchmark uses): odd sizes, |R| = 1 (every S tuple of a matching key joins it), both key types,
// every distribution, no match, heavy duplicates (a few keys: long runs in R for every S tuple),
// zipf skew, a band point (the equi-joins refuse it), several seeds; then the cases again in a
// shuffled order, so no outcome depends on what ran before. Then `auto` alone where its decision
// matters: |S| = 1, |R| = 1, no match, all match, tiny R against a huge S and the reverse, zipf
// skew, int64 keys, both sides just below and at the size where it looks at the keys; and at some
// of those, its record: whether it looked, what the look saw and the plan the table gives for it.
// Exit 77 (CTest: skipped) without a GPU; LP_GPU_TEST_QUICK=1 (the sanitizer runs) takes fewer,
// smaller cases.
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
#include "kernels/join/auto_rule.hpp"
#include "kernels/join/nested_loop.cuh"

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

namespace ar = lp::join::auto_rule;

TestCase test_case(const harness::Study& study, const Case& c) {
  Params p = default_params(study);
  p["r"] = c.r;
  p["s"] = c.s;
  p["key"] = c.key;
  p["distribution"] = c.dist;
  p["match"] = c.match;
  p["zipf_s"] = c.zipf_s;
  p["band"] = c.band;
  p["radix_bits"] = c.radix_bits;
  return {p, c.seed,
          "r=" + std::to_string(c.r) + " s=" + std::to_string(c.s) + " " + c.key + " " + c.dist + " match=" + harness::to_string(Value(c.match)) +
              " zipf_s=" + harness::to_string(Value(c.zipf_s)) + " band=" + std::to_string(c.band) + " bits=" + std::to_string(c.radix_bits) +
              " seed=" + std::to_string(c.seed)};
}

// The sizes auto sees at an equi-join point with this device's L2. The cases below have fewer than
// 2^32 pairs and 2^31 tuples, so every equi-join runs there; the nested loop only up to 2^40 pairs.
ar::Sizes sizes_at(const Case& c) {
  int device = 0, l2 = 0;
  cudaGetDevice(&device);
  cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, device);
  ar::Sizes z;
  z.nr = c.r;
  z.ns = c.s;
  z.band = std::uint64_t(c.band);
  z.l2_bytes = double(l2);
  z.key_bytes = std::uint16_t(c.key == "int64" ? 8 : 4);
  z.nlj = lp::join::nested_loop_unsupported(c.r, c.s).empty();
  z.inlj_css = z.inlj_bs = z.smj = z.hj = z.global_hash = z.phj = true;
  return z;
}

// auto at one point the way the benchmark drives it (untimed), then its record: the plan, whether it
// looked, and against `want` (where the case fixes what the look must see) the plan the table gives
// for those signals.
void check_auto_record(const harness::Study& study, const Case& c, const ar::Signals* want) {
  const TestCase t = test_case(study, c);
  auto point = study.make_point(t.params, t.seed, true);
  Params m;
  try {
    point->prepare("auto");
    point->run("auto", nullptr);
    const cudaError_t e = cudaDeviceSynchronize();
    CHECK_MSG(e == cudaSuccess, t.what << ": " << cudaGetErrorString(e));
    const harness::Validation v = point->validate("auto");
    CHECK_MSG(v.status == harness::Validation::Status::Pass, "auto " << t.what << ": " << v.detail);
    m = point->metrics("auto");
  } catch (const std::exception& e) {
    CHECK_MSG(false, "auto " << t.what << ": " << e.what());
  }
  point->release("auto");
  if (m.empty()) return;
  const ar::Sizes z = sizes_at(c);
  const std::string plan = harness::as_str(m, "plan"), look = harness::as_str(m, "look");
  std::printf("  auto %s: plan %s, look %s\n", t.what.c_str(), plan.c_str(), look.c_str());
  CHECK_MSG(look == (ar::needs_look(z) ? "device" : "none"), t.what << ": look " << look);
  bool named = false;
  for (unsigned i = 0; i < unsigned(ar::Plan::Count); ++i) named |= plan == ar::name(ar::Plan(i));
  CHECK_MSG(named, t.what << ": plan " << plan);
  if (!ar::needs_look(z)) {
    CHECK_MSG(plan == ar::name(ar::by_size(z)), t.what << ": plan " << plan << ", by size " << ar::name(ar::by_size(z)));
    return;
  }
  CHECK_MSG(m.count("match_estimate") && m.count("profile2_heavy"), t.what << ": no profile of S in the record");
  if (c.match == 0) CHECK_MSG(harness::as_real(m, "match_estimate") == 0, t.what << ": match estimate " << harness::as_real(m, "match_estimate"));
  if (want) CHECK_MSG(plan == ar::name(ar::choose(z, *want)), t.what << ": plan " << plan << ", want " << ar::name(ar::choose(z, *want)));
}

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
  for (const Case& c : cases) tests.push_back(test_case(*study, c));
  if (!run_cases_in_two_orders(*study, tests)) return test_summary("test_gpu_join");

  // auto alone where its decision matters. L: the size where it looks at both key columns.
  const std::int64_t L = ar::kLookMinSide, big = L, huge = quick ? L : 4 * L;
  const Case s_one{L + 3, 1, "int32", "unique", 1.0, 1.0, 0, 21}, r_one{1, L + 7, "int32", "unique", 1.0, 1.0, 0, 22};
  const Case no_match{big, big, "int32", "unique", 0.0, 1.0, 0, 23}, no_match64{big, big + 5, "int64", "unique", 0.0, 1.0, 0, 24};
  const Case all_match{big, big, "int32", "unique", 1.0, 1.0, 0, 25}, zipf{big, big, "int32", "zipf", 1.0, 1.5, 0, 26};
  const Case zipf64{big, big, "int64", "zipf", 1.0, 1.5, 0, 27};
  const Case below_look{L - 1, L, "int32", "unique", 1.0, 1.0, 0, 37}, at_look{L, L, "int32", "unique", 1.0, 1.0, 0, 39};
  std::vector<Case> auto_cases = {
      s_one, r_one, no_match, no_match64, all_match, zipf, zipf64, below_look, at_look,
      {1, 1, "int64", "uniform", 1.0, 1.0, 0, 28},
      {(1 << 22) + 1, 1, "int64", "uniform", 1.0, 1.0, 0, 29},
      {3, huge, "int32", "uniform", 1.0, 1.0, 0, 30},          // tiny R (its keys hot), huge S
      {1000, huge, "int64", "zipf", 0.7, 1.2, 0, 31},
      {huge, 5, "int32", "unique", 1.0, 1.0, 0, 32},           // huge R, tiny S
      {huge, 1000, "int64", "unique", 0.5, 1.0, 0, 33},        // huge R, small S: R sorted alone
      {L, L, "int32", "uniform", 0.0, 1.0, 0, 34},             // nothing matches, duplicates on both sides
      {L, 2 * L, "int64", "uniform", 1.0, 1.0, 0, 35},         // all match, duplicates on both sides
      {big / 2, big, "int32", "zipf", 0.5, 1.0, 0, 36},
      {L, L - 1, "int64", "unique", 1.0, 1.0, 0, 38},          // just below the look, then just above
      {L, L + 1, "int64", "zipf", 1.0, 1.5, 0, 40},
  };
  std::vector<TestCase> auto_tests;
  for (const Case& c : auto_cases) auto_tests.push_back(test_case(*study, c));
  if (!run_cases_in_two_orders(*study, auto_tests, {"auto"})) return test_summary("test_gpu_join");

  // Its record where the case fixes what the look sees: S's keys all above R's (no match), a hot S
  // key (zipf 1.5), nothing to say (unique keys, all matching); and plans by size alone.
  ar::Signals none, apart, hot;
  apart.no_match = true;
  hot.hot_probe = true;
  check_auto_record(*study, s_one, nullptr);
  check_auto_record(*study, r_one, nullptr);
  check_auto_record(*study, below_look, nullptr);
  check_auto_record(*study, no_match, &apart);
  check_auto_record(*study, no_match64, &apart);
  check_auto_record(*study, all_match, &none);
  check_auto_record(*study, zipf, &hot);
  check_auto_record(*study, zipf64, &hot);
  check_auto_record(*study, at_look, &none);
  return test_summary("test_gpu_join");
}
