// Every registered GPU variant of the primitives study through the study's own points (the
// generator, the host reference, the poisoned outputs, the validation the benchmark uses): every
// primitive at odd sizes (one tuple, under a warp, partial blocks and chunks, past 2^20), map and
// split at fanouts from 2 to 4096 (powers of two and not) and split_staged at each of its tiles,
// several seeds; then the cases again in a shuffled order, so no outcome depends on what ran before.
// Exit 77 (CTest: skipped) without a GPU; LP_GPU_TEST_QUICK=1 (the sanitizer runs) takes fewer,
// smaller cases.
#include <cuda_runtime.h>

#include <cstdio>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "apps/primitives/primitives_study.hpp"
#include "check.hpp"
#include "check_variant.hpp"
#include "gpu_test.hpp"

namespace lp::primitives_study {
const char* const kDefaultConfig = "{}";
}

using harness::Params;

int main() {
  if (no_gpu("test_gpu_primitives")) return kSkipped;
  const bool quick = quick_mode();
  auto study = lp::primitives_study::make_study();
  std::vector<std::int64_t> sizes = {1, 31, 4099, 65537, (1 << 20) + 3};
  std::vector<std::int64_t> fanouts = {2, 3, 16, 255, 2048, 4096};
  if (quick) sizes = {1, 31, 4099}, fanouts = {2, 255, 4096};
  harness::Rng pick(2008);

  std::vector<TestCase> tests;
  auto add = [&](const std::string& op, std::int64_t n, std::int64_t fanout, std::uint64_t seed) {
    Params p = default_params(*study);
    p["op"] = op;
    p["n"] = n;
    p["fanout"] = fanout;
    tests.push_back({p, seed, op + " n=" + std::to_string(n) + " fanout=" + std::to_string(fanout) + " seed=" + std::to_string(seed)});
  };
  for (const std::string op : {"scatter", "gather", "scan", "sort"})
    for (std::int64_t n : sizes) add(op, n, 256, 1 + pick.below(1000));
  // Map and split: every fanout at every size but the largest, which takes the least, 255 and the most.
  for (const std::string op : {"map", "split"})
    for (std::size_t si = 0; si < sizes.size(); ++si)
      for (std::size_t fi = 0; fi < fanouts.size(); ++fi)
        if (si + 1 == sizes.size() ? fi == 0 || fi + 1 == fanouts.size() || fi == 3 : true) add(op, sizes[si], fanouts[fi], 1 + pick.below(1000));
  // split_staged at each tile: one partial tile, one whole 16384-tuple tile (both halves of its
  // stage) and a partial one, one partition a tile (ranks past 4096), and thousands of tiles, the
  // last partial (2^25 + 7 tuples: rows of the matrix past a band of the column scan's).
  for (const std::int64_t tile : {4096, 8192, 16384})
    for (const std::int64_t n : quick ? std::vector<std::int64_t>{4099, 16389} : std::vector<std::int64_t>{4099, 16389, (1 << 20) + 3, (1 << 25) + 7})
      for (const std::int64_t fanout : {2, 1000, 2048, 4096}) {
        add("split", n, fanout, 1 + pick.below(1000));
        tests.back().params["split_tile"] = tile;
        tests.back().what += " split_tile=" + std::to_string(tile);
      }
  // Random sizes, for the partial chunks the fixed ones miss.
  for (int k = 0; k < (quick ? 2 : 6); ++k) {
    const std::string op = std::vector<std::string>{"map", "scatter", "gather", "scan", "split", "sort"}[std::size_t(k % 6)];
    add(op, 1 + std::int64_t(pick.below(quick ? 1 << 14 : 1 << 21)), 2 + std::int64_t(pick.below(4095)), pick.next());
  }
  run_cases_in_two_orders(*study, tests);
  return test_summary("test_gpu_primitives");
}
