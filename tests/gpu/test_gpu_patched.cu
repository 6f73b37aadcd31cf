// Every registered patched variant through the study's own points (the generator, the packing and
// the layout builder, the poisoned output and the exact validation the benchmark uses): sizes that
// are not multiples of 1024 (a partial last chunk) and odd ones, every type, bit widths from 1 to the
// full width, empty patch sets (rate 0), every position and so every lane patched (rate 1), chunks
// with all 1024 positions patched (clustered), dense and sparse chunks side by side with `dense`
// on both sides of them for `auto`'s per-column plan, block sizes (u64 at w = 64 caps the block by its staging area), several seeds;
// then the cases again in a shuffled order, so no outcome depends on what ran before. Exit 77
// (CTest: skipped) without a GPU; LP_GPU_TEST_QUICK=1 (the sanitizer runs) takes fewer, smaller cases.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "apps/patched/patched_study.hpp"
#include "check.hpp"
#include "check_variant.hpp"
#include "gpu_test.hpp"

namespace lp::patched_study {
const char* const kDefaultConfig = "{}";
}

using harness::Params;
using harness::Value;

namespace {

struct Case {
  std::int64_t n;
  std::string type;
  std::int64_t w;
  double rate;
  std::string patches;
  std::int64_t threads = 0, dense = 0;
  std::uint64_t seed = 1;
};

int bits_of(const std::string& type) { return type == "u8" ? 8 : type == "u16" ? 16 : type == "u32" ? 32 : 64; }

Params params_for(const harness::Study& study, const Case& c) {
  Params p = default_params(study);
  p["n"] = c.n;
  p["type"] = c.type;
  p["bit_width"] = c.w;
  p["patch_rate"] = c.rate;
  p["patches"] = c.patches;
  p["threads"] = c.threads;
  p["dense"] = c.dense;
  return p;
}

}  // namespace

int main() {
  if (no_gpu("test_gpu_patched")) return kSkipped;
  const bool quick = quick_mode();
  auto study = lp::patched_study::make_study();
  harness::Rng pick(4242);
  std::vector<Case> cases;
  std::vector<std::int64_t> sizes = {1, 5, 1023, 1024, 1025, 4099, 3 * 1024 + 517, 65537, (1 << 20) + 3};
  std::vector<double> rates = {0, 0.001, 0.05, 0.3, 1};
  if (quick) {
    sizes = {5, 1025, 4099};
    rates = {0, 0.3, 1};
  }
  for (const std::string type : {"u8", "u16", "u32", "u64"})
    for (std::int64_t n : sizes)
      for (double rate : rates)
        for (const std::string kind : {"uniform", "clustered"}) {
          // A random width, the full width now and then (no compression, every shift crossing).
          const int W = bits_of(type);
          const std::int64_t w = pick.below(5) == 0 ? W : 1 + std::int64_t(pick.below(std::uint64_t(W)));
          cases.push_back({n, type, w, rate, kind, 0, 0, 1 + pick.below(1000)});
        }
  // Random odd sizes; with 0.3 clustered, chunks with all 1024 positions patched beside unpatched ones.
  for (int k = 0; k < (quick ? 2 : 8); ++k) {
    const std::int64_t n = 1 + std::int64_t(pick.below(1 << (quick ? 14 : 21)));
    const std::string type = std::vector<std::string>{"u8", "u16", "u32", "u64"}[std::size_t(k % 4)];
    cases.push_back({n, type, 1 + std::int64_t(pick.below(std::uint64_t(bits_of(type)))), 0.3, "clustered", 0, 0, pick.next()});
    cases.push_back({n, type, 1 + std::int64_t(pick.below(std::uint64_t(bits_of(type)))), 0.01, "uniform", 0, 0, pick.next()});
  }
  // Knobs: block sizes (32 = one warp, 1024; u64 at w = 64 stages 16 KiB per warp, so the launcher
  // caps the block), auto's threshold at both ends and in between.
  for (std::int64_t t : {32, 64, 1024}) {
    cases.push_back({(1 << 16) + 11, "u64", 64, 0.05, "uniform", t, 0, 7});
    cases.push_back({(1 << 16) + 11, "u8", 3, 0.3, "clustered", t, 0, 8});
  }
  for (std::int64_t dense : {1, 16, 1024, 2048})
    for (const std::string type : {"u8", "u16", "u64"}) cases.push_back({200003, type, 7, 0.3, "clustered", 0, dense, 9});
  if (quick) cases.resize(std::min<std::size_t>(cases.size(), 90));

  const std::set<std::string> names = gpu_variants(*study);
  std::map<std::string, int> passed;
  // Forward, then every case again in a shuffled order (fresh points from the same seeds).
  std::vector<std::size_t> order(cases.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::vector<std::size_t> runs = order;
  harness::Rng shuffle(99);
  for (std::size_t i = order.size(); i > 1; --i) std::swap(order[i - 1], order[shuffle.below(i)]);
  runs.insert(runs.end(), order.begin(), order.end());
  for (std::size_t ri = 0; ri < runs.size(); ++ri) {
    const Case& c = cases[runs[ri]];
    Params p = params_for(*study, c);
    const std::string why = study->check_params(p);
    CHECK_MSG(why.empty(), "case refused: " << why);
    if (!why.empty()) continue;
    auto point = study->make_point(p, c.seed, true);
    const std::string what = "n=" + std::to_string(c.n) + " " + c.type + " w=" + std::to_string(c.w) + " rate=" + harness::to_string(Value(c.rate)) +
                             " " + c.patches + " threads=" + std::to_string(c.threads) + " dense=" + std::to_string(c.dense) +
                             " seed=" + std::to_string(c.seed);
    std::printf("run %zu/%zu: %s\n", ri + 1, runs.size(), what.c_str());
    std::fflush(stdout);
    // Variants in a different order on each pass.
    std::vector<std::string> vs(names.begin(), names.end());
    if (ri >= cases.size()) std::reverse(vs.begin(), vs.end());
    for (const auto& name : vs) {
      const VariantOutcome o = check_variant(*point, name, name + " " + what);
      if (o == VariantOutcome::ContextLost) return test_summary("test_gpu_patched");
      if (o == VariantOutcome::Passed) ++passed[name];
    }
  }
  for (const auto& name : names) CHECK_MSG(passed[name] > 0, name << " never ran");
  for (const auto& [name, k] : passed) std::printf("  %s: %d cases passed\n", name.c_str(), k);
  return test_summary("test_gpu_patched");
}
