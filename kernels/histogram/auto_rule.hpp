// The histogram's `auto` decision table (beyond the thesis): from the sample type, the bin count and
// what fits on chip, and where those do not settle it the input profile the device computes
// (kernels/common/input_profile.hpp), to the variant that runs. Plain C++, __host__ __device__: the
// profile pass evaluates it on the device, the CPU tests at every boundary. The thresholds are read
// off the fitting sweep (configs/regret/fit/histogram.json, results/h100/regret/fit/).
#pragma once
#include <cstdint>

#include "../common/hd.hpp"
#include "../common/input_profile.hpp"

namespace lp::histogram::auto_rule {

enum class Plan : unsigned { Block, Windows, Cluster, Cub, Count };
inline const char* name(Plan p) {
  constexpr const char* kNames[] = {"block_privatized", "multireduce_shared", "cluster_privatized", "cub_histogram_even"};
  return unsigned(p) < unsigned(Plan::Count) ? kNames[unsigned(p)] : "?";
}

// What the host knows: the sizes and which plans run here (their own support predicates).
// Laid out without padding: its bytes are part of the plan graph's key (plan_graph.cuh).
struct Sizes {
  std::int64_t n = 0;
  std::uint32_t bins = 0;
  bool u8 = true;
  bool block = false;    // a 32- or 16-bit copy of the bins fits a block (u8: always)
  bool block32 = false;  // ... a 32-bit copy
  bool windows = false;  // multireduce_shared runs (u32, up to 4 label windows)
  bool cluster = false;  // cluster_privatized runs (u32)
  bool cub = false;      // CUB's HistogramEven runs (its int counters hold)
  bool unused[6] = {};
};
static_assert(sizeof(Sizes) == 8 + 4 + 12, "Sizes has no padding");

// Below this many samples a look costs more than it could save: inside auto's graph it adds 11-18 us
// on the H100 (regret fitting draw), and what it can save is the windows' extra reads of the samples.
constexpr std::int64_t kLookMinN = std::int64_t(1) << 24;
// Where a 32-bit copy of more than kClusterFromBins bins (128 KiB) still fits a block, the cluster
// is faster over few samples: below kHalfBlockMinN samples it was 1-7.7 us faster at 32 K-62 K u32
// bins in the regret fitting draw (block_privatized 13-25 us); from 2^22 samples the block copy
// wins (46 M samples in runs over 43 K bins: 89 us against 218).
constexpr std::int64_t kHalfBlockMinN = std::int64_t(1) << 21;
constexpr std::uint32_t kClusterFromBins = 32768;
// Where only 16-bit counters fit a block (more than 58 K bins), the block copy from one sample per
// kHalfBinsPerSample bins: every block clears and folds a copy of all the bins, the cluster pays
// per sample. Since the block copies are merged over clusters of two and added to the output in
// pairs (modern.cuh, merge_halves), uniform and zipf samples cross over between 4096 and 16 384 at
// 60 001-116 000 bins and the block copy then takes 0.32-0.99x the cluster's time up to 2^22
// (H200, results/h200/histogram/probes/half_tiny.json, half_small.json); one bin everywhere
// stays 1.05-1.34x behind the cluster there, 0.8-3.5 us, which no look costing 11-18 us could win
// back. The rule before (the cluster below 2^21 samples, from the H100 regret sweep: 80 000-113 000
// bins, n up to 325 000, 11-12 us against 22-28, when every block added its whole copy to the
// output) left auto up to 1.79x behind the block copy. Judged on a draw of its own
// (configs/regret/histogram_half_bins.json): auto 1.00x the best (median), at most 1.30x and
// 3.2 us, where the rule before was up to 2.0x.
constexpr std::int64_t kHalfBinsPerSample = 8;

LP_HD Plan by_size(const Sizes& s) {
  if (!s.u8 && s.block && s.cluster && s.bins > kClusterFromBins &&
      (s.block32 ? s.n < kHalfBlockMinN : s.n * kHalfBinsPerSample < std::int64_t(s.bins)))
    return Plan::Cluster;
  if (s.u8 || s.block) return Plan::Block;
  if (s.windows) return Plan::Windows;
  if (s.cluster) return Plan::Cluster;
  return Plan::Cub;
}

// The profile decides between the windows and a cluster (samples of one bin everywhere).
LP_HD bool needs_look(const Sizes& s) { return s.n >= kLookMinN && by_size(s) == Plan::Windows && s.cluster; }

LP_HD Plan decide(const Sizes& s, const profile::Profile& p) {
  if (!needs_look(s)) return by_size(s);
  // One bin everywhere: the cluster's remote atomics are one a warp and it reads the samples once,
  // where the windows read them up to four times.
  return p.heavy >= 0.999 ? Plan::Cluster : Plan::Windows;
}

LP_HD bool possible(const Sizes& s, Plan q) {
  if (!needs_look(s)) return q == by_size(s);
  return q == Plan::Cluster || q == Plan::Windows;
}

struct Rule {
  Sizes sizes;
  LP_HD unsigned operator()(const profile::Profile& first, const profile::Profile&, double) const { return unsigned(decide(sizes, first)); }
};

}  // namespace lp::histogram::auto_rule
