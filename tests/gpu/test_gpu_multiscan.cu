// Every registered multiscan variant, through the study's own points (input generation, the CPU
// reference, the poisoned outputs and the validation the benchmark uses: integers and affine maps
// exactly, floats within the study's stated bound), on sizes that are not multiples of any tile,
// vector width or Sheffler segment (n = 1 included), m not a power of two, every distribution,
// every operator and type, all three modes, values mostly equal to the identity, several seeds and
// the variants' knobs. Then Sheffler's published kernel on a hand-made input, which it must get
// wrong (thesis 5.4), next to the corrected kernel, which must not.
// Exit 77 (CTest: skipped) without a GPU. LP_GPU_TEST_QUICK=1 (the sanitizer runs) takes fewer
// cases; LP_GPU_TEST_VARIANTS=a,b,c runs only the named variants.
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "apps/harness/device_buffer.hpp"
#include "apps/multiscan/multiscan_study.hpp"
#include "check.hpp"
#include "gpu_test.hpp"
#include "check_variant.hpp"
#include "cpu_reference/multiscan/cpu_multiscan.hpp"
#include "label_jobs.hpp"
#include "kernels/multiscan/cub_sort_scan.cuh"
#include "kernels/multiscan/scan_by_key.cuh"
#include "kernels/multiscan/sheffler.cuh"

namespace lp::multiscan_study {
const char* const kDefaultConfig = "{}";
}

using harness::Params;
using harness::Value;

namespace {


const std::vector<std::pair<std::string, std::string>> kOps = {
    {"add", "int32"}, {"add", "int64"}, {"add", "float32"}, {"min", "int32"}, {"max", "int32"}, {"affine", "uint32x2"}};

// Sheffler's flaw on the GPU: one label, side 3, values (5,0,0 | 0,0,0 | 0,0,1) under int32 add.
void check_sheffler_flaw() {
  using Op = lp::multireduce::Add<std::int32_t>;
  const std::vector<std::uint32_t> labels(9, 0);
  const std::vector<std::int32_t> values = {5, 0, 0, 0, 0, 0, 0, 0, 1}, want = {0, 5, 5, 5, 5, 5, 5, 5, 5};
  harness::DeviceBuffer<std::uint32_t> d_labels;
  harness::DeviceBuffer<std::int32_t> d_values, d_out;
  d_labels.upload(labels);
  d_values.upload(values);
  d_out.resize(9);
  lp::multiscan::Tuning t;
  t.side = 3;
  for (bool shared : {false, true}) {
    harness::DeviceBuffer<char> scratch(lp::multiscan::sheffler_scratch_bytes<std::int32_t>(9, 1, t, shared));
    lp::multiscan::sheffler<Op, false>(d_labels.get(), d_values.get(), 9, 1, false, shared, d_out.get(), scratch.get(), t, nullptr);
    CHECK_MSG(d_out.download() == want, "corrected Sheffler (shared=" << shared << ") on identity values");
    lp::multiscan::sheffler<Op, true>(d_labels.get(), d_values.get(), 9, 1, false, shared, d_out.get(), scratch.get(), t, nullptr);
    CHECK_MSG(d_out.download() != want, "published Sheffler (shared=" << shared << ") should fail on identity values (thesis 5.4)");
  }
}

// The checked scan-by-key on labels that are not 16-byte aligned (its check then reads one label a
// step), sorted and with one fall at either end or in the middle, and the aligned form beside it:
// every result equal to the sequential multiscan, whichever body the check chose.
void check_checked_scan_alignment() {
  using Op = lp::multireduce::Add<std::int32_t>;
  for (std::int64_t n : {1, 2, 7, 1000, 70001}) {
    std::vector<std::uint32_t> sorted(std::size_t(n) + 1);
    std::vector<std::int32_t> values(std::size_t(n) + 1);
    for (std::int64_t i = 0; i <= n; ++i) sorted[std::size_t(i)] = std::uint32_t(i / 3), values[std::size_t(i)] = std::int32_t(i * 7 % 11) - 5;
    std::vector<std::vector<std::uint32_t>> inputs = {sorted};
    if (n > 1)
      for (std::int64_t at : {std::int64_t(1), n / 2, n - 1}) {  // a fall between labels at - 1 and at (offset 1)
        auto v = sorted;
        std::swap(v[std::size_t(at)], v[std::size_t(at + 1)]);
        v[std::size_t(at)] += 1000;
        inputs.push_back(v);
      }
    const std::uint32_t m = std::uint32_t(n / 3 + 1001);
    for (const auto& labels : inputs)
      for (std::size_t offset : {std::size_t(0), std::size_t(1)}) {
        std::vector<std::int32_t> want(static_cast<std::size_t>(n)), buckets(m);
        lp::cpu::multiscan_sequential<Op>(labels.data() + offset, values.data() + offset, n, m, false, buckets.data(), want.data());
        harness::DeviceBuffer<std::uint32_t> d_labels;
        harness::DeviceBuffer<std::int32_t> d_values, d_out;
        d_labels.upload(labels);
        d_values.upload(values);
        d_out.resize(std::size_t(n));
        const std::size_t bytes = std::max(lp::multiscan::checked_scan_by_key_scratch_bytes<Op>(n), lp::multiscan::cub_sort_scan_scratch_bytes<Op>(n, m));
        harness::DeviceBuffer<char> scratch(bytes);
        const std::uint32_t* l = d_labels.get() + offset;
        const std::int32_t* v = d_values.get() + offset;
        lp::multiscan::checked_scan_by_key<Op>(l, v, n, m, false, d_out.get(), scratch.get(), bytes, nullptr);
        LP_CUDA(cudaDeviceSynchronize());
        CHECK_MSG(d_out.download() == want, "checked scan-by-key, n = " << n << ", offset " << offset << ", sorted " << (&labels == &inputs[0]));
      }
  }
}

}  // namespace

int main() {
  if (no_gpu("test_gpu_multiscan")) return kSkipped;
  const bool quick = quick_mode();
  auto study = lp::multiscan_study::make_study();
  const std::vector<LabelCase> cases = label_cases(quick);
  // Knobs beyond the defaults: Sheffler's side (odd, 1, beyond a warp), single_pass's items and
  // threads, the transposition schemes and both add-back forms of Alg 5.2.
  std::vector<std::map<std::string, Value>> knobs = {
      {{"side", Value(std::int64_t(3))}, {"n_items", Value(std::int64_t(8))}, {"partials_switch", Value(std::int64_t(0))}},
      {{"side", Value(std::int64_t(1))}, {"transpose", Value(std::string("baxter"))}, {"n_items", Value(std::int64_t(32))}},
      {{"side", Value(std::int64_t(33))}, {"threads", Value(std::int64_t(96))}, {"transpose", Value(std::string("segment"))},
       {"partials_switch", Value(std::int64_t(1) << 30)}},
      {{"threads", Value(std::int64_t(64))}, {"n_items", Value(std::int64_t(16))}, {"blocks_per_sm", Value(std::int64_t(1))}},
      {{"threads", Value(std::int64_t(128))}, {"n_items", Value(std::int64_t(32))}, {"blocks_per_sm", Value(std::int64_t(4))}},
      {{"threads", Value(std::int64_t(256))}, {"n_items", Value(std::int64_t(16))}, {"blocks_per_sm", Value(std::int64_t(3))}}};
  std::vector<std::pair<std::string, std::string>> ops = kOps;
  if (quick) {
    ops = {{"add", "int32"}, {"affine", "uint32x2"}};
  }
  std::vector<LabelJob> jobs;
  for (const auto& [op, type] : ops) {
    for (const auto& c : cases) {
      jobs.push_back({c, op, type, {}});
      jobs.push_back({c, op, type, {{"mode", Value(std::string("inclusive"))}}});
    }
    jobs.push_back({{12345, 256, "uniform"}, op, type, {{"mode", Value(std::string("multitag"))}}});
    jobs.push_back({{12345, 7, "uniform"}, op, type, {{"values", Value(std::string("mostly_identity"))}}});
    jobs.push_back({{4099, 2, "zipf"}, op, type, {{"values", Value(std::string("mostly_identity"))}, {"mode", Value(std::string("inclusive"))}}});
    if (!quick && (op == "affine" || (op == "add" && type == "int32")))
      for (const auto& k : knobs)
        for (const auto& c : kKnobCases) jobs.push_back({c, op, type, k});
    // perthread_scan's columns over several tiles in the quick form too (the sanitizers run it): m
    // not a power of two, the 4-byte limit, one past the 8-byte one, a partial last tile.
    for (const LabelCase& c : std::vector<LabelCase>{{(1 << 16) + 5, 17, "zipf"}, {3 * 4096 + 1, 2, "uniform"}, {(1 << 17) + 3, 64, "uniform"}, {5 * 4096 + 1, 33, "runs"}})
      jobs.push_back({c, op, type, {}});
    // One label of 8-byte values past auto's scan-by-key threshold (CUB's scan-by-key), both modes.
    if (type == "int64" || type == "uint32x2") {
      jobs.push_back({{(1 << 21) + 7, 1, "uniform"}, op, type, {}});
      jobs.push_back({{(1 << 21) + 7, 1, "uniform"}, op, type, {{"mode", Value(std::string("inclusive"))}}});
    }
    // auto's checked scan-by-key where the look runs: sorted labels beyond 2048 (n = 2^22), nearly
    // sorted ones (the check falls back to CUB's sort + scan-by-key), and up to 2048 (the plan by
    // sizes behind the check): 4-byte values at 1024 labels from 2^24, 8-byte ones from 2^25.
    if (!quick && op == "add" && (type == "int32" || type == "int64")) {
      for (const LabelCase& c : std::vector<LabelCase>{{(1 << 22) + 5, 3001, "sorted"}, {(1 << 22) + 9, 5000, "nearly_sorted"}, {(1 << 24) + 3, 1024, "sorted"},
                                                       {(1 << 24) + 7, 1500, "nearly_sorted"}})
        jobs.push_back({c, op, type, {{"mode", Value(std::string("inclusive"))}}});
      if (type == "int64")
        for (const LabelCase& c : std::vector<LabelCase>{{(1 << 25) + 1, 2, "sorted"}, {(1 << 25) + 3, 3, "nearly_sorted"}}) jobs.push_back({c, op, type, {}});
    }
    // Small m at sizes of many tiles (register_scan's 4096-input tiles: the last one partial or
    // whole), where the L2 lookahead (prefetch_l2) reaches past the end; single_pass capped at
    // one and three blocks per SM there.
    if (!quick) {
      for (const LabelCase& c : std::vector<LabelCase>{{(1 << 21) + 3, 16, "uniform"}, {(1 << 20) + 5, 5, "zipf"}, {(1 << 20) + 1, 1, "degenerate"}, {3 * 4096, 2, "uniform"}})
        jobs.push_back({c, op, type, {}});
      for (std::int64_t b : {1, 3}) jobs.push_back({{(1 << 20) + 5, 9, "zipf"}, op, type, {{"blocks_per_sm", Value(b)}, {"mode", Value(std::string("inclusive"))}}});
      // auto's look from m = 256: runs relabelled below 1024; single_pass up to 2048, partitioned
      // above (its partitions' tiles: a skewed partition of many tiles, runs longer than a tile,
      // m not a power of two, the last partition narrower than the others).
      for (const LabelCase& c : std::vector<LabelCase>{{(1 << 20) + 3, 300, "degenerate"}, {(1 << 20) + 9, 3000, "uniform"}, {(1 << 19) + 3, 4096, "uniform"},
                                                       {(1 << 20) + 11, 2049, "zipf"}, {(1 << 22) + 7, (1 << 20) + 3, "zipf"}, {(1 << 21) + 5, 3000, "sorted"},
                                                       {(1 << 20) + 1, (1 << 16) + 1, "uniform"}})
        jobs.push_back({c, op, type, {}});
      // partitioned's digit width as a knob (1 to 8 bits: the partitions' scan over 2^(bits - w) labels).
      for (std::int64_t w : {1, 3, 8}) jobs.push_back({{(1 << 20) + 5, 70001, "uniform"}, op, type, {{"sort_bits", Value(w)}}});
    }
  }
  if (!run_label_jobs(*study, jobs)) return test_summary("test_gpu_multiscan");  // the context is gone
  const std::set<std::string> names = gpu_variants(*study);
  if (names.count("sheffler_global") || names.count("sheffler_shared")) check_sheffler_flaw();
  if (names.count("checked_scan_by_key")) check_checked_scan_alignment();
  return test_summary("test_gpu_multiscan");
}
