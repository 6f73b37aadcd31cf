// The scatter and gather's `auto` decision table (beyond the thesis): from n, m, the word size and
// the L2 (the H100 sweeps' regimes: plain stores for few inputs, shared-memory bids, L2 bids, He et
// al.'s passes, a full sort), and over enough inputs the input profile the device computes
// (kernels/common/input_profile.hpp): labels in order, in runs or on one hot bucket make every
// reordering plan pay for nothing. Plain C++, __host__ __device__; thresholds from the H100 sweeps
// and the regret sweep's first run (results/h100/regret/).
#pragma once
#include <cstdint>

#include "../common/hd.hpp"
#include "../common/input_profile.hpp"

namespace lp::scatter::auto_rule {

enum class Plan : unsigned { Wide, Privatized, Bids, Passes, FullSort, Thrust, Count };
inline const char* name(Plan p) {
  constexpr const char* kNames[] = {"wide", "privatized", "naive_strict", "multipass", "cub_sort", "thrust"};
  return unsigned(p) < unsigned(Plan::Count) ? kNames[unsigned(p)] : "?";
}

// Laid out without padding: its bytes are part of the plan graph's key (plan_graph.cuh).
struct Sizes {
  double l2_bytes = 50.0 * (1 << 20);
  std::int64_t n = 0;
  std::uint32_t m = 0;
  std::uint32_t word_bytes = 4;
  bool gather = false;
  bool privatized = false;  // the shared-memory bids fit
  bool unused[6] = {};
};
static_assert(sizeof(Sizes) == 8 + 8 + 4 + 4 + 8, "Sizes has no padding");

constexpr std::int64_t kLookMinN = std::int64_t(1) << 16;
constexpr std::uint32_t kPrivatizedMaxM = 1u << 14;
// Few inputs: a plain sweep of stores (thrust::scatter, any one wins) is a few microseconds, where
// the bids first clear their m-word bid array and privatized a block's shared one (H100 regret
// sweep, n < 2^12: thrust 3.6-3.9 us, privatized 7.5-9, naive_strict 9-15 at m of millions). Also
// beyond: where the inputs are under a quarter of the buckets, the bids' clearing outweighs them.
constexpr std::int64_t kFewInputs = std::int64_t(1) << 12;
constexpr double kSparse = 0.25;
// Ordered labels: neighbours ascend, or a warp's 32 labels form few runs.
constexpr double kOrderedSorted = 0.97, kOrderedWarpRuns = 4.0;
// A hot bucket: bids (atomics) serialise on it and plain stores to one address do too (thrust's
// scatter of one label over 2^25 inputs: 1.26 ms against wide's 0.26 at m = 1.6 M).
constexpr double kHotShare = 0.05;

LP_HD Plan by_size(const Sizes& s) {
  const double buckets = double(s.m) * s.word_bytes;
  if (s.gather) {
    if (buckets > s.l2_bytes / 2 && buckets <= 2 * s.l2_bytes) return Plan::Passes;
    return s.n < kLookMinN ? Plan::Thrust : Plan::Wide;
  }
  if (s.n < kFewInputs || double(s.n) < kSparse * double(s.m)) return Plan::Thrust;
  if (s.m <= kPrivatizedMaxM && s.privatized) return Plan::Privatized;
  if (buckets <= s.l2_bytes / 2) return Plan::Bids;
  if (buckets <= 2 * s.l2_bytes) return Plan::Passes;
  return Plan::FullSort;
}

LP_HD bool needs_look(const Sizes& s) { return s.n >= kLookMinN; }

LP_HD bool ordered_or_hot(const profile::Profile& p) {
  return p.heavy >= kHotShare || p.sorted >= kOrderedSorted || p.warp_runs <= kOrderedWarpRuns;
}

// Labels in order, in runs or on a hot bucket: every reordering plan pays for nothing. A gather then
// reads neighbouring entries again (thrust's gather 15-20% ahead of wide on sorted, runs and one
// label); a scatter takes the shared-memory bids while m is small (one label at m = 34: 0.14 ms,
// wide 0.21, thrust 0.70), one pass keeping each run's last at m <= 2 (m = 1: cub_sort's no-bit
// "sort" 44 us, privatized 70), and wide's sweep of stores beyond (thrust's serialise on the hot
// address).
LP_HD Plan decide(const Sizes& s, const profile::Profile& p) {
  if (!needs_look(s) || !ordered_or_hot(p)) return by_size(s);
  if (s.gather) return by_size(s) == Plan::Passes ? Plan::Passes : Plan::Thrust;
  if (s.m <= 2) return Plan::FullSort;
  if (s.m <= kPrivatizedMaxM && s.privatized) return Plan::Privatized;
  return Plan::Wide;
}

LP_HD bool possible(const Sizes& s, Plan q) {
  if (q == by_size(s)) return true;
  if (!needs_look(s)) return false;
  if (s.gather) return q == Plan::Thrust;
  return q == Plan::FullSort ? s.m <= 2 : q == Plan::Privatized ? s.m <= kPrivatizedMaxM && s.privatized : q == Plan::Wide;
}

struct Rule {
  Sizes sizes;
  LP_HD unsigned operator()(const profile::Profile& first, const profile::Profile&, double) const { return unsigned(decide(sizes, first)); }
};

}  // namespace lp::scatter::auto_rule
