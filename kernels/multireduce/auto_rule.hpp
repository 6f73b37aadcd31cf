// The multireduce's `auto` decision table (beyond the thesis): from what the host knows (sizes, the
// operator, what fits on chip) and, where that does not settle it, the input profile
// (kernels/common/input_profile.hpp) the device computes, to the variant that runs. Plain C++,
// __host__ __device__: the profile pass evaluates it on the device, the CPU tests at every boundary.
// The thresholds are read off the fitting sweep's measurements (configs/regret/fit/multireduce.json,
// results/h100/regret/fit/); docs/auto.md says how.
#pragma once
#include <cstdint>

#include "../common/hd.hpp"
#include "../common/input_profile.hpp"

namespace lp::multireduce::auto_rule {

// The plans, named after the variants they run.
enum class Plan : unsigned { Shared, PerBank, Cluster, GlobalAggregated, Partitioned, Sort, WarpOrdered, LastPosition, SortShared, Count };
inline const char* name(Plan p) {
  constexpr const char* kNames[] = {"shared_privatized",  "perbank",      "cluster_privatized", "global_atomics_aggregated",
                                    "partitioned",        "sort_global",  "warp_ordered",       "last_position",
                                    "sort_shared_transposed"};
  return unsigned(p) < unsigned(Plan::Count) ? kNames[unsigned(p)] : "?";
}

// What the host knows before any look: the sizes, the operator and value, and which plans can run
// here (each launcher's own support predicate, evaluated on the host).
// Laid out without padding: its bytes are part of the plan graph's key (plan_graph.cuh).
struct Sizes {
  double l2_bytes = 50.0 * (1 << 20);
  std::int64_t n = 0;
  double sort_shared_bytes = 0;  // sort_shared_transposed's partial bucket sets (0: it does not run)
  std::uint32_t m = 0;
  std::uint32_t value_bytes = 4;
  bool commutative = true;
  bool integral = true;
  bool add = true;               // the operator is addition
  bool native_shared_atomic = true;  // the operator has a native shared-memory atomic (no CAS loop)
  bool shared = false;           // shared_privatized's bucket sets fit (up to 4 label windows)
  bool perbank = false;          // perbank runs here
  bool cluster = false;          // a cluster holds the buckets (any number of passes)
  bool cluster_one_pass = false;  // ... in one pass
  bool warp_ordered = false;     // warp_ordered's per-warp sets fit
  bool last_position = false;    // op last and last_position runs here
  bool int_counts = true;        // n fits CUB's int counts (partitioned, sort_global, CUB)
  bool unused[5] = {};
};
static_assert(sizeof(Sizes) == 8 + 8 + 8 + 4 + 4 + 16, "Sizes has no padding");

// Below this many inputs a look costs more than any choice it could improve: inside auto's graph it
// adds 15-18 us on the H100 (regret fitting draw), and a multireduce of 2^23 inputs takes 50 us and
// more; below, the plan by sizes is within 1.4x of the best at the draw's points.
constexpr std::int64_t kLookMinN = std::int64_t(1) << 23;
// Shared-memory sets pay for clearing and merging m buckets per block: below this many inputs a
// bucket one aggregated global atomic an input wins (n = m: 7 us against 17; n = 952 over 86 K
// buckets: 7 against 14). From kSharedLookMinM buckets ordered or repeated labels make the
// aggregated atomics win over many inputs a bucket too (sorted, n = 14.9 M over 49 K: 73 us
// against 149; one label over 41 K: 32 against 42), so a look decides there.
constexpr double kSharedMinPerBucket = 16;
constexpr std::uint32_t kSharedLookMinM = 1u << 14;
// 8-byte integer sums over 2..16 buckets: the thesis's per-bank sets (Alg 4.10) beat 64-bit
// shared atomics, which serialise on so few addresses. Float32 sums too, whose shared-memory
// addition is a compare-and-swap loop that a hot label makes retry, and at any m where perbank's 32
// sets fit: its 32 copies spread a hot label over the banks. H200, float32 add
// (results/h200/multireduce/probes/probe_float32_wide_m.json, probe_float32_large_m.json): over
// 32..1536 buckets and 2^20..2^26 inputs, zipf(2..3) 0.35-0.80x shared_privatized's time, zipf(1)
// 0.67-0.93x, uniform level to 0.71x (1.05-1.16x at 2^20 and m = 32..64, 0.5-1.7 us).
constexpr std::uint32_t kPerBankMinM = 2, kPerBankMaxM = 16;
// One label is perbank's one loss there: from 256 buckets (one set of 32 a block's shared memory,
// few blocks) all warps retry on one bank's address, 1.08-1.21x shared_privatized's time at 2^23
// inputs, 1.27-1.31x at 2^24, 1.30-1.40x from 2^25 (level up to 128 buckets, ahead at 2^20). A look
// that sent one label to shared_privatized from 2^25 inputs cost its 15-18 us everywhere else (1.08-
// 1.11x over perbank from 2^26), and on a draw of float sums (configs/regret/recheck/
// multireduce_float_sums_7011.json, results/h200/regret/float_sums_look/) it left auto's p95 at 1.17
// where the best takes 50 us or more; perbank by size there 1.11 (max 1.30: one label at 3 x 10^7
// inputs). So no look: one label over many buckets is the regime this rule gives up. Judged on a
// fresh draw (configs/regret/multireduce_float_sums.json, seed 7012, results/h200/regret/
// judged_float_sums/): p95 1.014, max 1.015 from 50 us, the rule before 2.00 and 2.09 there.
// One label everywhere: a cluster's distributed shared memory answers a warp's one atomic faster
// than L2 while one pass of it holds the buckets.
constexpr std::uint32_t kClusterOneLabelMaxM = 1u << 18;
// Labels come in order or in runs where a warp holds few distinct labels or neighbours ascend:
// aggregated global atomics then update neighbouring buckets once per warp.
constexpr double kOrderedWarpRuns = 2.0, kOrderedSorted = 0.97;
// A label is hot where it takes this share of the inputs: L2 atomics on it serialise, and a
// partition pass (which moves the pairs once) or a cluster's slice beats them.
constexpr double kHotShare = 0.02;
// Where a block's bucket set holds the labels but the update is a compare-and-swap loop, a hot label
// makes shared memory's loops retry (the two fold rounds catch the two hottest labels of a warp
// step, the next ones still collide): 64-bit integer sums take the cluster's distributed sets, whose
// warps fold every repeated label (probe configs/regret/probes/multireduce_hot_cas.json, n = 2^25,
// zipf 1.0-2.6 over 2^14-2^16 buckets: 0.22-0.42 ms against shared_privatized's 0.64-1.90), float
// sums from kHotCasFloatShare the partition pass (0.24-0.69 against 0.64-1.30; at zipf 1.0, a 9%
// label, shared_privatized stays ahead at 22 K buckets, 0.53 against 0.68; the judging draw, 7003:
// float sums over 22 K buckets, zipf 1.6, 91 M inputs, 1.41 against 2.41).
constexpr double kHotCasFloatShare = 0.15;
// Beyond shared memory, with no hot label: labels whose neighbours mostly ascend (runs of consecutive
// labels, short runs of equal ones) keep the aggregated atomics' neighbouring updates in few L2 lines,
// where the partition pass moves every pair (judging draw, seed 7004: runs over 37 M buckets, 23 M
// int64 inputs, sorted share 0.97: 0.44 ms against partitioned's 0.98; runs of 2 over 6.7 M, share
// 0.77: 0.79 against 1.19; the fitting draws: equal runs, share 0.97, 0.19-0.31 against 0.57; runs of
// 4, share 0.88, 0.16 against 0.43); spread labels (share 0.5) stay with the partition pass (34 M
// buckets: 1.05 against 2.52).
constexpr double kAscendingSorted = 0.7;

// Non-commutative operators beyond warp_ordered: the thesis's sort in shared memory with Baxter's
// transposition (Alg 4.13, Fig 4.22) rather than the device-wide sort, from two tiles of inputs and
// while its blocks' partial bucket sets (blocks x m values, cleared and reduced in full) stay
// within kSortSharedMaxBytes or within the inputs' own bytes. Regret draws, uint32x2 affine over m
// > 4096 (results/h100/regret/fit/, results/h200/regret/fit/fifth_rules/): from 3 547 to 277 076
// inputs over 4-186 K labels, sets of at most 91 tiles (30 MB at the largest), 0.49-0.81x
// sort_global's time at 7 of 7 points (9 727 over 6 844 labels: 20 us against 41); 6 M over 5 295
// and 69 M over 193 K, one wave of blocks, 0.63-0.65x; 0.33-9.9 M inputs over 122-439 K labels,
// sets of 106 blocks or more, at least 3.9 times the inputs' bytes, 2.8-3.6x; one tile (n < 2 048
// over 9-325 K labels) 1.4-3.4x, its one set's clear and reduce over m buckets being the whole
// time.
constexpr std::int64_t kSortSharedMinN = 2048;
constexpr double kSortSharedMaxBytes = 32.0 * (1 << 20);

LP_HD bool sort_shared_fits(const Sizes& s) {
  if (s.sort_shared_bytes <= 0 || s.n < kSortSharedMinN) return false;
  return s.sort_shared_bytes <= kSortSharedMaxBytes || s.sort_shared_bytes <= double(s.n) * (4.0 + s.value_bytes);
}

LP_HD bool beyond_l2(const Sizes& s) {
  return double(s.m) * s.value_bytes > (s.value_bytes <= 4 ? 0.5 : 0.75) * s.l2_bytes;
}

// Sums perbank serves: 8-byte integers and float32 (64-bit or CAS updates in shared memory).
LP_HD bool perbank_sum(const Sizes& s) { return s.add && (s.integral ? s.value_bytes == 8 : s.value_bytes == 4); }

// The plan from the sizes alone, wherever they settle it.
LP_HD Plan by_size(const Sizes& s) {
  if (s.commutative) {
    if (perbank_sum(s) && s.perbank && s.m >= kPerBankMinM) {
      if (s.m <= kPerBankMaxM) return Plan::PerBank;
      // Float sums beyond: as shared_privatized, from 16 inputs a bucket (below, the aggregated
      // atomics: 6-8 us against perbank's 8-11 on the judging draw).
      if (!s.integral && double(s.n) >= kSharedMinPerBucket * double(s.m)) return Plan::PerBank;
    }
    if (s.shared && double(s.n) >= kSharedMinPerBucket * double(s.m)) return Plan::Shared;
    // Few inputs over many buckets: one atomic per input beats any pass that orders them.
    return Plan::GlobalAggregated;
  }
  if (s.last_position) return Plan::LastPosition;
  if (s.m <= 4096 && s.warp_ordered) return Plan::WarpOrdered;
  if (sort_shared_fits(s)) return Plan::SortShared;
  return Plan::Sort;
}

// Whether the profile decides: a commutative operator whose buckets fit no block, over enough inputs.
LP_HD bool needs_look(const Sizes& s) {
  if (!s.commutative || s.n < kLookMinN) return false;
  const Plan p = by_size(s);
  return p != Plan::PerBank && (p != Plan::Shared || s.m >= kSharedLookMinM);
}

LP_HD bool ordered(const profile::Profile& p) { return p.warp_runs <= kOrderedWarpRuns || p.sorted >= kOrderedSorted; }

LP_HD Plan decide(const Sizes& s, const profile::Profile& p) {
  if (!needs_look(s)) return by_size(s);
  const bool one_label = p.heavy >= 0.999;
  if (by_size(s) == Plan::Shared) {
    if (ordered(p) || one_label) return Plan::GlobalAggregated;
    if (!s.native_shared_atomic && p.heavy >= kHotShare) {
      if (s.integral && s.value_bytes == 8 && s.cluster) return Plan::Cluster;
      if (!s.integral && p.heavy >= kHotCasFloatShare && s.int_counts) return Plan::Partitioned;
    }
    return Plan::Shared;
  }
  if (one_label && s.m <= kClusterOneLabelMaxM && s.native_shared_atomic && s.cluster_one_pass) return Plan::Cluster;
  if (ordered(p)) return Plan::GlobalAggregated;
  if (p.heavy >= kHotShare && s.int_counts) {
    const bool int64_cluster = s.integral && s.value_bytes == 8 && s.m <= (1u << 18) && s.cluster;
    return int64_cluster ? Plan::Cluster : Plan::Partitioned;
  }
  if (p.sorted >= kAscendingSorted) return Plan::GlobalAggregated;
  return beyond_l2(s) && s.int_counts ? Plan::Partitioned : Plan::GlobalAggregated;
}

// Every plan decide() can answer for these sizes (the graph captures only these).
LP_HD bool possible(const Sizes& s, Plan q) {
  if (!needs_look(s)) return q == by_size(s);
  if (by_size(s) == Plan::Shared)
    return q == Plan::Shared || q == Plan::GlobalAggregated || (!s.native_shared_atomic && ((q == Plan::Cluster && s.cluster) ||
                                                                                            (q == Plan::Partitioned && s.int_counts)));
  switch (q) {
    case Plan::Cluster: return s.cluster;
    case Plan::GlobalAggregated: return true;
    case Plan::Partitioned: return s.int_counts;
    default: return false;
  }
}

// The table as the profile pass calls it on the device.
struct Rule {
  Sizes sizes;
  LP_HD unsigned operator()(const profile::Profile& first, const profile::Profile&, double) const { return unsigned(decide(sizes, first)); }
};

}  // namespace lp::multireduce::auto_rule
