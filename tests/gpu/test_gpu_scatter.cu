// Every registered scatter/gather GPU variant, through the study's own points (input generation,
// the CPU reference, the poisoned outputs and the exact or any-one-wins validation the benchmark
// uses): tiny and odd sizes (the wide kernels' 4-input groups and tails), m = 1 (every input in one
// bucket), every label distribution and value type, both operations, the knobs (sort_bits, passes,
// block shapes), several seeds, and the variants in forward and reverse order on one point (no
// variant may depend on what ran before it). Exit 77 without a GPU; LP_GPU_TEST_QUICK=1 (the
// sanitizer runs) takes a few small cases.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "apps/scatter/scatter_study.hpp"
#include "check.hpp"
#include "check_variant.hpp"
#include "gpu_test.hpp"

namespace lp::scatter_study {
const char* const kDefaultConfig = "{}";
}

using harness::Params;
using harness::Value;

namespace {

struct Case {
  std::int64_t n, m;
  std::string dist, type, op;
  std::map<std::string, Value> knobs;
};

Params params_for(const harness::Study& study, const Case& c) {
  Params p = default_params(study);
  p["n"] = c.n;
  p["m"] = c.m;
  p["distribution"] = c.dist;
  p["type"] = c.type;
  p["op"] = c.op;
  for (const auto& [k, v] : c.knobs) p[k] = v;
  return p;
}

Value I(std::int64_t v) { return Value(v); }

}  // namespace

int main() {
  if (no_gpu("test_gpu_scatter")) return kSkipped;
  const bool quick = quick_mode();
  auto study = lp::scatter_study::make_study();
  std::vector<Case> cases;
  const std::vector<std::string> dists = {"uniform", "sorted", "runs", "zipf", "degenerate"};
  const std::vector<std::string> types = {"int32", "int64", "float32"};
  std::vector<std::int64_t> sizes = {1, 2, 3, 4, 5, 7, 8, 9, 31, 33, 1000, 4099, 65537, (1 << 20) + 3};
  std::vector<std::int64_t> ms = {1, 2, 7, 256, 4097, 65536, (1 << 20) + 1};
  if (quick) {
    sizes = {1, 5, 9, 4099};
    ms = {1, 7, 4097};
  }
  harness::Rng pick(20141);
  for (int k = 0; k < (quick ? 1 : 6); ++k) sizes.push_back(1 + std::int64_t(pick.below(1 << 21)));
  for (const std::string op : {"scatter", "gather"})
    for (std::size_t si = 0; si < sizes.size(); ++si)
      for (std::size_t mi = 0; mi < ms.size(); ++mi) {
        // Every distribution and type over the grid without the full product: rotate through them.
        const std::size_t k = si * ms.size() + mi;
        cases.push_back({sizes[si], ms[mi], dists[k % dists.size()], types[(k / dists.size()) % types.size()], op, {}});
      }
  for (const std::string op : {"scatter", "gather"}) {
    for (const auto& t : types) cases.push_back({quick ? 4099 : 300007, quick ? 4099 : 300007, "permutation", t, op, {}});
    // The knobs: the sorted bits (1 .. more than there are), the passes, block shapes.
    for (std::int64_t b : {1, 3, 8, 40}) cases.push_back({quick ? 5003 : 200003, quick ? 4096 : 100003, "uniform", "int32", op, {{"sort_bits", I(b)}}});
    for (std::int64_t p : {1, 3, 7, 70}) cases.push_back({quick ? 5003 : 200003, 65, "zipf", "int64", op, {{"passes", I(p)}}});
    if (!quick) {
      for (std::int64_t t : {32, 96, 1024}) cases.push_back({123457, 4099, "runs", "float32", op, {{"threads", I(t)}}});
      cases.push_back({(1 << 22) + 1, 1 << 22, "uniform", "int32", op, {{"blocks_per_sm", I(1)}}});
      // Beyond the L2: auto sorts; the model picks several passes.
      cases.push_back({1 << 24, 1 << 24, "uniform", "int32", op, {}});
      cases.push_back({(1 << 23) + 3, (1 << 24) + 5, "uniform", "int64", op, {}});
    }
  }

  std::map<std::string, int> passed;
  const std::set<std::string> names = gpu_variants(*study);
  std::vector<std::string> order(names.begin(), names.end());
  std::uint64_t seed = 7;
  for (std::size_t ci = 0; ci < cases.size(); ++ci) {
    const Case& c = cases[ci];
    ++seed;
    Params p = params_for(*study, c);
    if (const std::string why = study->check_params(p); !why.empty()) {
      CHECK_MSG(false, "case " << ci << " refused: " << why);
      continue;
    }
    auto point = study->make_point(p, seed, true);
    std::string knob_text;
    for (const auto& [k, v] : c.knobs) knob_text += " " + k + "=" + harness::to_string(v);
    const std::string what = c.op + " n=" + std::to_string(c.n) + " m=" + std::to_string(c.m) + " " + c.dist + " " + c.type + knob_text +
                             " seed=" + std::to_string(seed);
    std::printf("case %zu/%zu: %s\n", ci + 1, cases.size(), what.c_str());
    std::fflush(stdout);
    // Every other case runs the variants in reverse order on the same point.
    if (ci % 2) std::reverse(order.begin(), order.end());
    for (const auto& name : order) {
      const VariantOutcome o = check_variant(*point, name, name + " " + what);
      if (o == VariantOutcome::ContextLost) return test_summary("test_gpu_scatter");
      if (o == VariantOutcome::Passed) ++passed[name];
    }
    if (ci % 2) std::reverse(order.begin(), order.end());
  }
  for (const auto& name : names) CHECK_MSG(passed[name] > 0, name << " never ran");
  for (const auto& [name, k] : passed) std::printf("  %s: %d cases passed\n", name.c_str(), k);
  return test_summary("test_gpu_scatter");
}
