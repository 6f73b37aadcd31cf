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
// Where only 16-bit counters fit a block, the blocks clear and fold copies of up to 116 K bins:
// over few samples the cluster, which clears one set per cluster, is twice as fast (H100 regret
// sweep, 80 000-113 000 u32 bins, n up to 325 000: 11-12 us against 22-28). Over many samples the
// block copy wins on one-bin inputs (2^26 samples of 2^15 bins: 1.7 ps a sample against 6.3).
constexpr std::int64_t kHalfBlockMinN = std::int64_t(1) << 21;
// The same holds where a 32-bit copy of more than this many bins (128 KiB) still fits a block:
// below kHalfBlockMinN samples the cluster was 1-7.7 us faster at 32 K-62 K u32 bins in the regret
// fitting draw (block_privatized 13-25 us); from 2^22 samples the block copy wins (46 M samples in
// runs over 43 K bins: 89 us against 218).
constexpr std::uint32_t kClusterFromBins = 32768;

LP_HD Plan by_size(const Sizes& s) {
  if (!s.u8 && s.block && (!s.block32 || s.bins > kClusterFromBins) && s.cluster && s.n < kHalfBlockMinN) return Plan::Cluster;
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
