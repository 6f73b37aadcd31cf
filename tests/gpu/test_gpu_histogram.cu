// Every registered histogram variant, through the study's own points (input generation, the CPU
// reference, the poisoned outputs and the exact validation the benchmark uses): random sizes, sizes
// that are not multiples of 4 bytes, sizes around the 63-word flush rounds of TRISH/BankTRISH and the
// 63-word limit of Podlozhnyuk's 8-bit counters, degenerate inputs (far more than 255 equal bytes per
// thread), zipf, the images where scripts/make_images.py wrote them, u8 and u32 samples, several
// seeds and the variants' knobs. Exit 77 (CTest: skipped) without a GPU. LP_GPU_TEST_QUICK=1 (the
// sanitizer runs) takes a few small cases.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "apps/histogram/histogram_study.hpp"
#include "check.hpp"
#include "gpu_test.hpp"
#include "check_variant.hpp"

namespace lp::histogram_study {
const char* const kDefaultConfig = "{}";
}

using harness::Params;
using harness::Value;

namespace {

struct Case {
  std::int64_t n;
  std::int64_t bins;
  std::string sample, input, image;
  std::map<std::string, Value> knobs;
};

Params params_for(const harness::Study& study, const Case& c) {
  Params p = default_params(study);
  p["n"] = c.n;
  p["bins"] = c.bins;
  p["sample"] = c.sample;
  p["input"] = c.input;
  if (!c.image.empty()) p["image"] = c.image;
  for (const auto& [k, v] : c.knobs) p[k] = v;
  return p;
}

Value I(std::int64_t v) { return Value(v); }

}  // namespace

int main() {
  if (no_gpu("test_gpu_histogram")) return kSkipped;
  const bool quick = quick_mode();
  auto study = lp::histogram_study::make_study();
  std::vector<Case> cases;
  const std::vector<std::string> inputs = {"uniform", "degenerate", "zipf"};
  // Byte sizes: tiny, not multiples of 4, around TRISH's round (64 threads x 63 words x 4 B = 16128),
  // BankTRISH x8's (512 x 7 x 4 = 14336), Podlozhnyuk64's block (192 x 63 x 4 = 48384), and larger.
  std::vector<std::int64_t> u8_sizes = {1, 2, 3, 4, 5, 7, 251, 4099, 16127, 16128, 16129, 16131, 14335, 14337, 48383, 48385,
                                        3 * 16128 + 2, 1 << 20, (1 << 22) + 3};
  std::vector<std::int64_t> u32_sizes = {1, 3, 5, 17, 4099, 65537, (1 << 20) + 1};
  if (quick) {
    u8_sizes = {3, 4099, 16129, 48385};
    u32_sizes = {5, 4099};
  }
  harness::Rng pick(12345);
  for (int k = 0; k < (quick ? 2 : 10); ++k) u8_sizes.push_back(1 + std::int64_t(pick.below(1 << 21)));
  for (int k = 0; k < (quick ? 1 : 4); ++k) u32_sizes.push_back(1 + std::int64_t(pick.below(1 << 20)));

  for (const auto& in : inputs) {
    for (std::int64_t n : u8_sizes) {
      cases.push_back({n, 256, "u8", in, "", {}});
      if (!quick && n % 3 == 0) cases.push_back({n, 64, "u8", in, "", {}});
    }
    for (std::int64_t n : u32_sizes)
      for (std::int64_t bins : {std::int64_t(1), std::int64_t(256), std::int64_t(4096), std::int64_t(65536)})
        if (!quick || bins != 1) cases.push_back({n, bins, "u32", in, "", {}});
  }
  cases.push_back({(1 << 20) + 3, 64, "u8", "degenerate", "", {}});
  cases.push_back({(1 << 18) + 3, 65536, "u32", "zipf", "", {{"zipf_s", Value(3.0)}}});  // 16-bit counters, mixed warps
  cases.push_back({(1 << 18) + 5, (1 << 17) + 3, "u32", "degenerate", "", {}});  // auto's look: the cluster where windows would serve
  // 16-bit counters past their phases' flush threshold (one bin, a block's share over 8192 samples),
  // at the default block and at 256 and 64 threads (more steps a phase), in the sanitizer runs too.
  cases.push_back({(1 << 21) + 3, 65536, "u32", "degenerate", "", {}});
  cases.push_back({(1 << 21) + 5, 65535, "u32", "zipf", "", {{"zipf_s", Value(3.0)}, {"threads", I(256)}}});
  if (!quick) cases.push_back({(1 << 22) + 7, 65536, "u32", "degenerate", "", {{"threads", I(64)}}});
  // The 16-bit copies merged over a cluster of 4 and 8 (distributed shared memory; in the sanitizer
  // runs too), past the flush threshold: a bin's sum over the cluster exceeds 16 bits.
  cases.push_back({(1 << 21) + 7, 65535, "u32", "zipf", "", {{"zipf_s", Value(3.0)}, {"cluster", I(4)}}});
  cases.push_back({(1 << 21) + 9, 65536, "u32", "degenerate", "", {{"cluster", I(8)}}});
  // Copies whose words end inside a warp's span of the merge (60001 and 65537 bins: 30001 and 32769
  // words), merged by one block and over clusters.
  for (std::int64_t c : {1, 2, 8}) {
    cases.push_back({(1 << 20) + 3, 60001, "u32", "uniform", "", {{"cluster", I(c)}}});
    cases.push_back({(1 << 20) + 5, 65537, "u32", "zipf", "", {{"cluster", I(c)}}});
  }
  // Streamed from pinned host memory in chunks: the sharded variants and h2d_stream.
  cases.push_back({100003, 300, "u32", "zipf", "", {{"source", Value(std::string("host"))}, {"chunk", I(4096)}}});
  if (!quick) {
    // Odd bin counts, and more than one cluster pass.
    cases.push_back({300007, 1000, "u32", "uniform", "", {}});
    cases.push_back({300007, 100000, "u32", "zipf", "", {}});
    cases.push_back({400009, (1 << 22) + 5, "u32", "uniform", "", {}});
    // 16-bit counters: one bin takes every sample, over 65536 per block (a high half that wraps the
    // word at 65536 bins, a low half without a neighbour at 65535); and the multireduce's windows.
    cases.push_back({(1 << 24) + 3, 65536, "u32", "degenerate", "", {}});
    cases.push_back({(1 << 24) + 3, 65535, "u32", "degenerate", "", {}});
    cases.push_back({(1 << 24) + 3, 65536, "u32", "zipf", "", {}});
    // A hot bin (zipf 3: 83% of the samples) over 65536 per block in warps of mixed bins: the
    // 16-bit counters' carries on the bundle path, not only on whole-warp sums.
    cases.push_back({(1 << 24) + 3, 65536, "u32", "zipf", "", {{"zipf_s", Value(3.0)}}});
    cases.push_back({300007, (1 << 17) + 3, "u32", "uniform", "", {}});
    cases.push_back({(1 << 22) + 1, (1 << 17) + 3, "u32", "degenerate", "", {}});
    // Knobs: every BankTRISH factor, block sizes, resident blocks (the thesis's 3), cluster sizes.
    for (std::int64_t f = 1; f <= 8; ++f)
      for (const auto& in : inputs) cases.push_back({(1 << 20) + 1 + f, 256, "u8", in, "", {{"factor", I(f)}}});
    for (std::int64_t t : {64, 128, 512}) cases.push_back({123457, 256, "u8", "degenerate", "", {{"threads", I(t)}}});
    for (std::int64_t b : {1, 3}) cases.push_back({(1 << 21) + 5, 256, "u8", "zipf", "", {{"blocks_per_sm", I(b)}}});
    for (std::int64_t c : {1, 2, 4, 8, 16}) cases.push_back({500009, 65536, "u32", "zipf", "", {{"cluster", I(c)}}});
    cases.push_back({500009, 4096, "u32", "degenerate", "", {{"threads", I(256)}, {"blocks_per_sm", I(1)}}});
    // Large degenerate inputs: every thread sees thousands of equal bytes (8-bit counter overflow).
    cases.push_back({(1 << 24) + 1, 256, "u8", "degenerate", "", {}});
  }
  // The photographs, where scripts/make_images.py wrote them.
  for (const char* img : {"camera.grey", "astronaut.r", "coffee.g", "hubble_deep_field.grey"}) {
    if (!std::filesystem::exists(lp::histogram_study::image_dir() + "/" + img + ".u8")) {
      std::printf("image %s not in %s: skipped (scripts/make_images.py writes it)\n", img, lp::histogram_study::image_dir().c_str());
      continue;
    }
    cases.push_back({quick ? 100003 : (1 << 22) + 1, 256, "u8", "image", img, {}});
  }

  std::map<std::string, int> passed;
  // podlozhnyuk256's software tagging races for a bin by design: racecheck runs with
  // LP_GPU_TEST_SKIP=podlozhnyuk256.
  const std::set<std::string> names = gpu_variants(*study);
  std::uint64_t seed = 1;
  for (std::size_t ci = 0; ci < cases.size(); ++ci) {
    const Case& c = cases[ci];
    ++seed;
    Params p = params_for(*study, c);
    const std::string why = study->check_params(p);
    if (!why.empty()) {
      std::printf("case %zu refused: %s\n", ci, why.c_str());
      continue;
    }
    auto point = study->make_point(p, seed, true);
    std::string knob_text;
    for (const auto& [k, v] : c.knobs) knob_text += " " + k + "=" + harness::to_string(v);
    const std::string what = "n=" + std::to_string(c.n) + " bins=" + std::to_string(c.bins) + " " + c.sample + " " + c.input +
                             (c.image.empty() ? "" : ":" + c.image) + knob_text + " seed=" + std::to_string(seed);
    std::printf("case %zu/%zu: %s\n", ci + 1, cases.size(), what.c_str());
    std::fflush(stdout);
    for (const auto& name : names) {
      const VariantOutcome o = check_variant(*point, name, name + " " + what);
      if (o == VariantOutcome::ContextLost) return test_summary("test_gpu_histogram");
      if (o == VariantOutcome::Passed) ++passed[name];
    }
  }
  for (const auto& name : names) CHECK_MSG(passed[name] > 0, name << " never ran");
  for (const auto& [name, k] : passed) std::printf("  %s: %d cases passed\n", name.c_str(), k);
  return test_summary("test_gpu_histogram");
}
