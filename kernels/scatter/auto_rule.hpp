// The scatter and gather's `auto` decision table (beyond the thesis): from n, m, the word size and
// the L2 (the H100 sweeps' regimes: plain stores for few inputs, shared-memory bids, L2 bids, He et
// al.'s passes, a full sort), and over enough inputs the input profile the device computes
// (kernels/common/input_profile.hpp): labels in order, in runs or on one hot bucket make every
// reordering plan pay for nothing. Plain C++, __host__ __device__; thresholds from the H100 sweeps
// and the regret sweep's fitting draw (results/h100/regret/fit/).
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

// The look (the profile pass and the switch of auto's graph) adds 15-17 us on the H100 (regret
// fitting draw): it pays only for scatters of 2^24 inputs and more, which take 60 us and up and where
// a plan for the wrong regime loses up to 13x (a hot bucket, ordered labels). A gather never looks:
// every plan of it stays within 1.2x of the best at every size and distribution of the draw.
constexpr std::int64_t kLookMinN = std::int64_t(1) << 24;
// Below this many inputs a plain sweep of stores (thrust::scatter, any one wins) is within 1.23x
// (about 1 us) of the best at every point of the draw: the bids first clear an m-word array and
// privatized a block's shared one (privatized 2.7x behind at 37 K inputs).
constexpr std::int64_t kFewInputs = std::int64_t(1) << 17;
// Inputs under a quarter of the buckets: clearing the bids outweighs the stores.
constexpr double kSparse = 0.25;
// The shared-memory bids by size wherever they fit: over many inputs a bucket (n / m of 80 to 10^7
// in the draw) they were the best or within 1.4x of it but on sorted labels (2.0-2.5x behind wide),
// where wide lost 2.7-13.5x on runs and repeated labels.
// With a look, the spread labels' plans by the table's regimes take over where each input has its
// own bucket or nearly (fewer than kPrivatizedMinPerBucket inputs a bucket).
constexpr double kPrivatizedMinPerBucket = 64;
// Sorted labels keep wide's stores in order; the shared bids win there only over very few buckets
// (sorted, m = 4, 81 M inputs: privatized 1.00, wide 1.08; m = 13 738, 8 M inputs: wide ahead 2x).
constexpr double kSortedPrivatizedMinPerBucket = 1024 * kPrivatizedMinPerBucket;
// Ordered labels: neighbours ascend, or a warp's 32 labels form few runs.
constexpr double kOrderedSorted = 0.97, kOrderedWarpRuns = 4.0;
// A hot bucket: bids (atomics) serialise on it and plain stores to one address do too (thrust's
// scatter of one label over 2^25 inputs: 1.26 ms against wide's 0.26 at m = 1.6 M).
constexpr double kHotShare = 0.05;

LP_HD bool few(const Sizes& s) { return s.n < kFewInputs || double(s.n) < kSparse * double(s.m); }

// Spread labels, from the sizes: the bids in the L2, He et al.'s passes where the buckets straddle
// it, a full sort beyond (the H100 default sweeps, uniform labels at 2^26).
LP_HD Plan spread_plan(const Sizes& s) {
  const double buckets = double(s.m) * s.word_bytes;
  if (s.privatized && double(s.n) >= kPrivatizedMinPerBucket * double(s.m)) return Plan::Privatized;
  if (buckets <= s.l2_bytes / 2) return Plan::Bids;
  if (buckets <= 2 * s.l2_bytes) return Plan::Passes;
  return Plan::FullSort;
}

// A scatter of inputs under a quarter of the buckets from kFewInputs on: wide's sweep of stores,
// not thrust's, whose stores serialise on a repeated address and which has no look to see one
// (judging draw, seed 7003: one label, 2.0 M inputs over 45 M buckets, 20.9 us against 62.9; zipf
// over 13 M buckets, 5.0 M inputs, 33 against 85, and 1.6 M, 24 against 37; on runs thrust leads
// by 1.1-1.4x, 1-6 us: 1.1 M inputs over 23 M buckets, 14.3 against 20.3).
LP_HD Plan few_plan(const Sizes& s) { return !s.gather && s.n >= kFewInputs ? Plan::Wide : Plan::Thrust; }

LP_HD Plan by_size(const Sizes& s) {
  // Few inputs: one sweep of loads or stores. He et al.'s passes cost a gather of 34 K inputs over
  // 20 M words 10.5 us against thrust's 4.8 (judged regret draw).
  if (few(s)) return few_plan(s);
  if (s.gather) {
    const double buckets = double(s.m) * s.word_bytes;
    return buckets > s.l2_bytes / 2 && buckets <= 2 * s.l2_bytes ? Plan::Passes : Plan::Thrust;
  }
  if (s.privatized) return Plan::Privatized;
  return Plan::Wide;
}

LP_HD bool needs_look(const Sizes& s) { return !s.gather && !few(s) && s.n >= kLookMinN; }

LP_HD bool ordered_or_hot(const profile::Profile& p) {
  return p.heavy >= kHotShare || p.sorted >= kOrderedSorted || p.warp_runs <= kOrderedWarpRuns;
}

// Ordered labels, runs or a hot bucket: every reordering plan pays for nothing. One label (m = 1):
// cub_sort's no-bit "sort", one pass keeping the last (44 us, privatized 70); two labels are a real
// radix pass (m = 2, zipf, 91 M int64: 1.18 ms against privatized's 0.29); the shared-memory bids
// for a hot bucket among few (one label at m = 34: 0.14 ms, wide 0.21, thrust 0.70) and for few
// buckets whatever the order (sorted labels at m = 4: privatized 1.00, wide 1.08); wide's sweep of
// stores otherwise (thrust's serialise on a hot address). Spread labels: spread_plan.
LP_HD Plan decide(const Sizes& s, const profile::Profile& p) {
  if (!needs_look(s)) return by_size(s);
  if (!ordered_or_hot(p)) return spread_plan(s);
  if (s.m <= 1) return Plan::FullSort;
  const bool sorted = p.sorted >= kOrderedSorted && p.heavy < kHotShare;
  if (s.privatized && (!sorted || double(s.n) >= kSortedPrivatizedMinPerBucket * double(s.m))) return Plan::Privatized;
  return Plan::Wide;
}

LP_HD bool possible(const Sizes& s, Plan q) {
  if (q == by_size(s)) return true;
  if (!needs_look(s)) return false;
  if (q == spread_plan(s)) return true;
  return q == Plan::FullSort ? s.m <= 1 : q == Plan::Privatized ? s.privatized : q == Plan::Wide;
}

struct Rule {
  Sizes sizes;
  LP_HD unsigned operator()(const profile::Profile& first, const profile::Profile&, double) const { return unsigned(decide(sizes, first)); }
};

}  // namespace lp::scatter::auto_rule
