// Every registered patched variant through the study's own points (the generator, the packing and
// the layout builder, the poisoned output and the exact validation the benchmark uses): sizes that
// are not multiples of 1024 (a partial last chunk) and odd ones, every type, bit widths from 1 to the
// full width, empty patch sets (rate 0), every position and so every lane patched (rate 1), chunks
// with all 1024 positions patched (clustered), dense and sparse chunks side by side with `dense`
// on both sides of them, block sizes (u64 at w = 64 caps the block by its staging area), several seeds;
// then the cases again in a shuffled order, so no outcome depends on what ran before. Then `auto` on
// columns just above and below the size where it looks at lane_offsets on the device, where the
// profile sends it to each plan its table can answer (no patches, spread, clustered below and above
// the peer's rate, every lane patched, `dense` above whole chunks): the plan it records must be the
// table's answer on the host (kernels/patched/auto_rule.hpp), and the column must validate. Exit 77
// (CTest: skipped) without a GPU; LP_GPU_TEST_QUICK=1 (the sanitizer runs) takes fewer, smaller cases.
// Float columns (f32, f64): every generated kind (ALP and ALP-RD, exceptions from none to one in
// eight, the special values) at the same sizes, validated bit for bit, through every variant.
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "apps/patched/patched_study.hpp"
#include "kernels/patched/auto_rule.hpp"
#include "kernels/patched/fastlanes.hpp"
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
  std::string column = "prices";  // f32, f64: the generated column
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
  p["column"] = c.column;
  return p;
}

// auto at one point the way the benchmark records it (prepare, run, validate, metrics, release): the
// plan it reports, checked against the table's answer for the point's sizes and the lane density the
// generator made, which the profile of lane_offsets must see: 1024 for whole patched chunks, and for
// patches spread at rate p over lanes of W rows, 1024 p / (the fraction of lanes patched, 1 - (1 - p)^W).
void check_auto_plan(const harness::Study& study, const Case& c, const std::string& what) {
  namespace ar = lp::patched::auto_rule;
  const std::uint32_t bytes = std::uint32_t(bits_of(c.type) / 8);
  ar::Sizes z{};
  z.n = c.n;
  z.count = std::min<std::int64_t>(c.n, std::llround(c.rate * double(c.n)));
  z.lanes = lp::patched::chunks_of(c.n) * lp::patched::lanes_for_bytes(int(bytes));
  z.type_bytes = bytes;
  z.dense = int(c.dense);
  z.plain = true;
  const double spread = c.rate > 0 ? 1024 * c.rate / (1 - std::pow(1 - c.rate, bits_of(c.type))) : 0;
  const bool clustered = (c.patches == "clustered" ? 1024.0 : spread) > ar::dense_threshold(z);
  const std::string want = ar::name(!ar::needs_look(z) ? ar::by_size(z) : clustered ? ar::clustered_plan(z) : ar::by_size(z));
  auto point = study.make_point(params_for(study, c), c.seed, true);
  try {
    point->prepare("auto");
    point->run("auto", nullptr);
    const cudaError_t e = cudaDeviceSynchronize();
    CHECK_MSG(e == cudaSuccess, what << ": " << cudaGetErrorString(e));
    const harness::Validation v = point->validate("auto");
    CHECK_MSG(v.status == harness::Validation::Status::Pass, what << ": " << v.detail);
    const Params m = point->metrics("auto");
    const std::string got = harness::as_str(m, "plan"), look = harness::as_str(m, "look");
    CHECK_MSG(got == want, what << ": plan " << got << ", the table says " << want);
    CHECK_MSG(look == (ar::needs_look(z) ? "device" : "none"), what << ": look " << look);
    std::printf("  auto %s: %s (look %s)\n", what.c_str(), got.c_str(), look.c_str());
  } catch (const std::exception& e) {
    CHECK_MSG(false, what << ": " << e.what());
  }
  point->release("auto");
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
  // Float columns: every kind at every size, one block size a warp and the largest for the widest
  // staging (f64 ALP-RD's right parts, ALP's 64-bit chunks).
  for (const std::string type : {"f32", "f64"})
    for (const std::string column : {"prices", "coordinates", "percentages", "integers", "random_walk", "uniform", "specials"}) {
      for (std::int64_t n : sizes) cases.push_back({n, type, 1, 0, "uniform", 0, 0, 1 + pick.below(1000), column});
      if (quick) continue;
      for (std::int64_t t : {32, 1024}) cases.push_back({(1 << 16) + 11, type, 1, 0, "uniform", t, 0, 31, column});
    }

  std::vector<TestCase> tests;
  for (const Case& c : cases)
    tests.push_back({params_for(*study, c), c.seed,
                     "n=" + std::to_string(c.n) + " " + c.type + (c.type[0] == 'f' ? " " + c.column : "") + " w=" + std::to_string(c.w) + " rate=" + harness::to_string(Value(c.rate)) + " " +
                         c.patches + " threads=" + std::to_string(c.threads) + " dense=" + std::to_string(c.dense) + " seed=" + std::to_string(c.seed)});
  if (!run_cases_in_two_orders(*study, tests)) return test_summary("test_gpu_patched");

  // auto where it looks: every type at the smallest column it looks at (a partial last chunk) and one
  // value below. Clustered at 1% (the peer for every type), 5% (u16 and u64: the peer; u8 and u32:
  // ours, no look), 10% (u16: fused's lane cursors), spread at 0.1% and 1 (the spread plans),
  // clustered at 10% with `dense` above a whole chunk (read as spread), no patches (the plain decode).
  namespace ar = lp::patched::auto_rule;
  std::vector<Case> autos;
  for (const std::string type : {"u8", "u16", "u32", "u64"}) {
    const std::int64_t n = ar::kLookMinBytes / (bits_of(type) / 8) + 517;
    const std::int64_t w = bits_of(type) / 2;
    autos.push_back({n, type, w, 0.01, "clustered", 0, 0, 21});
    autos.push_back({n - 518, type, w, 0.01, "clustered", 0, 0, 22});
    if (quick) continue;
    autos.push_back({n, type, w, 0, "uniform", 0, 0, 23});
    autos.push_back({n, type, w, 0.001, "uniform", 0, 0, 24});
    autos.push_back({n, type, w, 1, "uniform", 0, 0, 25});
    autos.push_back({n, type, w, 0.05, "clustered", 0, 0, 26});
    autos.push_back({n, type, w, 0.1, "clustered", 0, 0, 27});
    // (At 10%: at 1% the profile's 64 windows can meet no patched chunk of these columns and read
    // the patches as clustered, as the table states; at 10% they meet several.)
    autos.push_back({n, type, w, 0.1, "clustered", 0, 2048, 28});
  }
  for (const Case& c : autos)
    check_auto_plan(*study, c, "n=" + std::to_string(c.n) + " " + c.type + " rate=" + harness::to_string(Value(c.rate)) + " " + c.patches +
                                   " dense=" + std::to_string(c.dense));
  return test_summary("test_gpu_patched");
}
