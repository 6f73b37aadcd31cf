// Every registered multireduce variant, through the study's own points (input generation, the CPU
// reference, the poisoned outputs and the validation the benchmark uses), on sizes that are not
// multiples of any tile or vector width (n = 1 included), m not a power of two, every distribution
// (degenerate = all labels m-1), every operator and type, several seeds and the variants' knobs.
// Exit 77 (CTest: skipped) without a GPU. LP_GPU_TEST_QUICK=1 (the sanitizer runs) takes fewer cases.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "apps/multireduce/multireduce_study.hpp"
#include "check.hpp"
#include "gpu_test.hpp"
#include "check_variant.hpp"
#include "label_jobs.hpp"

namespace lp::multireduce_study {
const char* const kDefaultConfig = "{}";
}

using harness::Params;
using harness::Value;

namespace {


const std::vector<std::pair<std::string, std::string>> kOps = {
    {"add", "int32"}, {"add", "int64"}, {"add", "float32"}, {"min", "int32"}, {"max", "int32"}, {"affine", "uint32x2"}, {"last", "int32"}};

}  // namespace

int main() {
  if (no_gpu("test_gpu_multireduce")) return kSkipped;
  const bool quick = quick_mode();
  auto study = lp::multireduce_study::make_study();
  const std::vector<LabelCase> cases = label_cases(quick);
  // Knob settings beyond the defaults (the transposition schemes, bucket sets, partial sorting,
  // items per thread, block and cluster sizes), on a few cases of a commutative and a
  // non-commutative operator: the knobs change tiling, not the operator's code path.
  std::vector<std::map<std::string, Value>> knobs = {
      {{"transpose", Value(std::string("segment"))}, {"n_items", Value(std::int64_t(8))}},
      {{"transpose", Value(std::string("baxter"))}, {"n_items", Value(std::int64_t(3))}},
      {{"n_sets", Value(std::int64_t(1))}, {"sort_bits", Value(std::int64_t(3))}, {"threads", Value(std::int64_t(128))}},
      {{"n_sets", Value(std::int64_t(32))}, {"sort_bits", Value(std::int64_t(8))}, {"cluster", Value(std::int64_t(2))}},
      {{"threads", Value(std::int64_t(512))}, {"n_items", Value(std::int64_t(16))}, {"blocks_per_sm", Value(std::int64_t(1))}}};
  std::vector<std::pair<std::string, std::string>> ops = kOps;
  if (quick) {
    // Under the sanitizers: a commutative 4-byte and a non-commutative 8-byte operator, and last
    // (last_position's positions and gather).
    ops = {{"add", "int32"}, {"affine", "uint32x2"}, {"last", "int32"}};
  }
  std::vector<LabelJob> jobs;
  for (const auto& [op, type] : ops) {
    for (const auto& c : cases) jobs.push_back({c, op, type, {}});
    jobs.push_back({{12345, 256, "uniform"}, op, type, {{"values", Value(std::string("ones"))}}});
    // Streamed from pinned host memory in chunks: the sharded variants and h2d_stream.
    jobs.push_back({{100003, 300, "zipf"}, op, type, {{"source", Value(std::string("host"))}, {"chunk", Value(std::int64_t(4096))}}});
    // Under the sanitizers too: labels beyond one shared-memory window (partitioned's sort, cut
    // and empty partitions; the look of auto).
    if (quick && op == "add") jobs.push_back({{70001, (1 << 16) + 5, "zipf"}, op, type, {}});
    // Warps of one label past shared memory's four windows and within 2^18: auto's cluster.
    if (op == "add") jobs.push_back({{(1 << 20) + 7, 250000, "degenerate"}, op, type, {}});
    // Small shared-memory budgets (blocks_per_sm 16/32) make partitioned cut its window into 4
    // slices at test sizes, as it does at m = 2^23..2^24 with the default budget.
    if (op == "add" && (!quick || type == "int32")) {
      const Value tight(std::int64_t(quick ? 32 : 16));
      jobs.push_back({{quick ? 70001 : 300007, (1 << 19) + 5, "zipf"}, op, type, {{"blocks_per_sm", tight}}});
      if (!quick) jobs.push_back({{(1 << 20) + 7, (1 << 20) + 3, "uniform"}, op, type, {{"blocks_per_sm", Value(std::int64_t(32))}}});
    }
    // Compare-and-swap updates (float32 and int64 add) and last's positions at small m over many
    // blocks, hot labels included, at the default size, 128 threads and one block per SM.
    if ((op == "add" && type != "int32") || op == "last") {
      const std::vector<LabelCase> small_m = {{(1 << 20) + 7, 16, "zipf"}, {(1 << 21) + 3, 7, "uniform"}, {300007, 2, "degenerate"}};
      for (const auto& c : small_m) {
        jobs.push_back({c, op, type, {}});
        if (quick) break;
        jobs.push_back({c, op, type, {{"threads", Value(std::int64_t(128))}}});
        jobs.push_back({c, op, type, {{"blocks_per_sm", Value(std::int64_t(1))}}});
      }
    }
    if (!quick && (op == "affine" || (op == "add" && type == "int32")))
      for (const auto& k : knobs)
        for (const auto& c : kKnobCases) jobs.push_back({c, op, type, k});
  }
  run_label_jobs(*study, jobs);  // false (the context lost) ends the test here too
  return test_summary("test_gpu_multireduce");
}
