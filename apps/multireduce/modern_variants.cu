// Beyond the thesis, for today's GPU: a variant per regime and `auto`, which picks among them.
#include "kernels/multireduce/cluster_privatized.cuh"
#include "kernels/multireduce/global_atomics.cuh"
#include "kernels/multireduce/label_look.cuh"
#include "kernels/multireduce/last_position.cuh"
#include "kernels/multireduce/partitioned.cuh"
#include "kernels/multireduce/perbank.cuh"
#include "kernels/multireduce/shared_privatized.cuh"
#include "kernels/multireduce/sort_global.cuh"
#include "kernels/multireduce/warp_ordered.cuh"
#include "variant.hpp"

namespace lp::multireduce_study {

namespace mr = lp::multireduce;

namespace {

// The regimes `auto` chooses between, by operator, value size, m and, where no bucket set fits on
// chip, a cheap look at the labels (label_look.cuh). Below that, the kernels look at the labels
// themselves at no extra pass: a warp of equal labels (or a thread's run of them) is reduced
// before its one update, so degenerate, sorted and skewed inputs take the cheap path.
enum class Regime { Shared, PerBank, Cluster, GlobalAggregated, Partitioned, Sort, WarpOrdered, LastPosition, Look };

// The thresholds come from the H100 measurements (results/h100/multireduce_notes.md and
// issue15/README.md): shared memory (up to 4 label windows) wins wherever it fits; beyond it,
// aggregated global atomics win for runs of equal labels and ascending labels (neighbouring lanes
// update neighbouring buckets) at any m, and for spread labels while the buckets stay in L2; where
// labels repeat (hot labels would pile up on L2 atomics) or the buckets leave L2, one radix pass by
// the high label bits and a reduce in shared-memory windows (partitioned) beats the cluster and a
// full sort, except for 8-byte integers at m <= 2^18, whose cluster atomics are native (int64 zipf
// 2^18: 1.06 ms against partitioned's 1.41, issue15/session3).
// Adding 8-byte integers to 2..16 buckets, the thesis's per-bank sets (Alg 4.10, `perbank`) beat
// shared_privatized, whose 64-bit shared atomics slow down there: n = 2^26 on the H100
// (results/h100/issue15/session5/probe_int64_perbank_df5df16.json) perbank 0.28-0.29 ms at every
// m and distribution, shared_privatized 0.47/0.54 (uniform/zipf) at m = 2, 0.34/0.43 at 4,
// 0.28/0.36 at 8, 0.28/0.32 at 16, and 0.27 where labels are all equal (m = 1, degenerate: 3-4%
// ahead of perbank's 0.28). From m = 32 the two are within 3.5%.
constexpr std::uint32_t kPerBankInt64MinM = 2, kPerBankInt64MaxM = 16;

template <class Op>
Regime choose(std::int64_t n, std::uint32_t m, const Tuning& t) {
  using T = typename Op::value_type;
  if constexpr (Op::commutative) {
    if (std::is_same_v<Op, mr::Add<T>> && std::is_integral_v<T> && sizeof(T) == 8 && m >= kPerBankInt64MinM && m <= kPerBankInt64MaxM &&
        mr::perbank_unsupported(n, m, sizeof(T), t).empty())
      return Regime::PerBank;
    if (mr::shared_privatized_plan<T>(n, m, t).copies > 0) return Regime::Shared;
    return Regime::Look;
  } else {
    // "last" is a max of positions (last_position.cuh): commutative, so shared_privatized's speed
    // where its position set fits. n = 2^26 on the H100 (issue15/session6): 0.192-0.194 ms at
    // m = 16 and 256 against warp_ordered's 0.23-0.39, 0.20-0.21 against 0.73-1.03 at m = 4096.
    if constexpr (std::is_same_v<Op, mr::Last>)
      if (mr::last_position_unsupported(n, m, t).empty()) return Regime::LastPosition;
    if (m <= 4096 && mr::warp_ordered_plan<Op>(n, m, t).smem > 0) return Regime::WarpOrdered;
    return Regime::Sort;
  }
}

constexpr std::uint32_t kClusterOneLabelMaxM = 1u << 18;

template <class Op>
Regime after_look(const mr::LabelLook& look, std::uint32_t m, const Tuning& t) {
  using T = typename Op::value_type;
  // Where L2 atomics slow down as the buckets crowd L2 and partitioned's radix pass (which moves the
  // pairs: 8 or 12 bytes each) costs less: int32 2^23 atomics 1.49 ms, partitioned 1.02; int64 2^22
  // atomics 1.71, partitioned 1.95 (issue15/session3).
  const bool beyond_l2 = double(m) * sizeof(T) > (sizeof(T) <= 4 ? 0.5 : 0.75) * double(mr::l2_bytes());
  // One label in every sampled warp (degenerate input): every update is a warp's one atomic on one
  // bucket, which a cluster's distributed shared memory answers faster than L2 while one pass of it
  // holds the buckets (n = 2^26 int32, m = 2^18: 0.208-0.215 ms against aggregated global atomics'
  // 0.219-0.220; at 2^20 0.46 against 0.22). Runs of sorted labels, also one label a warp, stay on
  // global atomics: they walk the cluster's slices one owner block at a time (sorted 2^18: cluster
  // 0.95-0.97 ms, aggregated 0.27; issue15/session6/auto_large_m_4a79844.json, where auto took the
  // cluster on all_equal alone).
  if (look.one_label && m <= kClusterOneLabelMaxM && mr::native_shared_atomic<Op>()) {
    const auto p = mr::cluster_plan<T>(m, t);
    if (p.cluster > 0 && p.passes == 1) return Regime::Cluster;
  }
  if (look.all_equal >= 0.5 || look.ascending >= 0.5) return Regime::GlobalAggregated;
  if (look.repeats(m)) {
    const bool int64_cluster = std::is_integral_v<T> && sizeof(T) == 8 && m <= (1u << 18) && mr::cluster_plan<T>(m, t).cluster > 0;
    return int64_cluster ? Regime::Cluster : Regime::Partitioned;
  }
  return beyond_l2 ? Regime::Partitioned : Regime::GlobalAggregated;
}

template <class Op>
std::size_t scratch_for(Regime r, std::int64_t n, std::uint32_t m, const Tuning& t) {
  using T = typename Op::value_type;
  if constexpr (Op::commutative) {
    if (r == Regime::Shared) return mr::shared_privatized_scratch_bytes<T>(n, m, t);
    if (r == Regime::PerBank) return mr::perbank_scratch_bytes(n, m, t);
    if (r == Regime::Cluster) return mr::cluster_privatized_scratch_bytes<T>(m, mr::cluster_privatized_sets<Op>(m, t));
    if (r == Regime::Partitioned) return mr::partitioned_scratch_bytes<T>(n, m, t);
  } else {
    if (r == Regime::WarpOrdered) return mr::warp_ordered_scratch_bytes<Op>(n, m, t);
  }
  if (r == Regime::LastPosition) return mr::last_position_scratch_bytes(n, m, t);
  if (r == Regime::Sort) return mr::sort_global_scratch_bytes<Op>(n, m, t);
  if (r == Regime::Look) {  // any of the regimes the look may pick (commutative operators only look)
    if constexpr (Op::commutative) {
      std::size_t bytes = mr::partitioned_scratch_bytes<T>(n, m, t);
      if (mr::cluster_plan<T>(m, t).cluster > 0) bytes = std::max(bytes, scratch_for<Op>(Regime::Cluster, n, m, t));
      return bytes;
    }
  }
  return 0;
}

template <class Op>
void run_regime(Regime r, Ctx<Op>& c) {
  if (r == Regime::Look) r = after_look<Op>(mr::look_at_labels(c.labels, c.n, c.stream), c.m, c.tune);
  if constexpr (Op::commutative) {
    if (r == Regime::Shared) return mr::shared_privatized<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.tune, c.stream);
    if (r == Regime::PerBank) return mr::perbank<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
    if (r == Regime::Cluster) return mr::cluster_privatized<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
    if (r == Regime::GlobalAggregated) return mr::global_atomics<Op, true>(c.labels, c.values, c.n, c.m, c.out, c.stream);
    if (r == Regime::Partitioned)
      return mr::partitioned<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
  } else {
    if (r == Regime::WarpOrdered) return mr::warp_ordered<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.tune, c.stream);
    if constexpr (std::is_same_v<Op, mr::Last>)
      if (r == Regime::LastPosition) return mr::last_position(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.tune, c.stream);
  }
  if (r == Regime::Sort) return mr::sort_global<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
  throw std::logic_error("multireduce auto: no regime");
}

}  // namespace

template <class Op>
void add_modern_variants(Defs<Op>& d) {
  using harness::VariantKind;
  using T = typename Op::value_type;
  d.add({"auto", VariantKind::Ours,
         "ours: picks by operator, value size, m and (beyond shared memory) a look at 8 K labels among shared_privatized, perbank (int64 add, m = 2..16), aggregated global atomics, partitioned, cluster_privatized (int64 to 2^18; one label everywhere to 2^18), sort_global, warp_ordered and last_position (op last)",
         {false, Output::Buckets},
         [](const auto& c) {
           return c.n > (std::int64_t(1) << 31) - 1 ? std::string("sort_global counts in int") : std::string();
         },
         [](const auto& c) { return scratch_for<Op>(choose<Op>(c.n, c.m, c.tune), c.n, c.m, c.tune); },
         [](Ctx<Op>& c) { run_regime<Op>(choose<Op>(c.n, c.m, c.tune), c); }});
  d.add({"shared_privatized", VariantKind::Ours,
         "ours: per-block bucket sets in shared memory, replicated up to 32 ways (per bank), 16-byte loads, run and warp aggregation of equal labels; up to 4 label windows read the same inputs beyond one block",
         {true, Output::Buckets},
         [](const auto& c) {
           return mr::shared_privatized_plan<T>(c.n, c.m, c.tune).copies ? std::string() : std::string("a quarter of the bucket set exceeds a block's shared memory");
         },
         [](const auto& c) { return mr::shared_privatized_scratch_bytes<T>(c.n, c.m, c.tune); },
         commutative_only<Op>([](auto& c) { mr::shared_privatized<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.tune, c.stream); })});
  d.add({"cluster_privatized", VariantKind::Ours,
         "ours (Hopper): one bucket set per thread-block cluster in distributed shared memory, atomics on the owner block's slice",
         {true, Output::Buckets},
         [](const auto& c) {
           return mr::cluster_plan<T>(c.m, c.tune).cluster ? std::string() : std::string("the bucket set exceeds 16 blocks' shared memory");
         },
         [](const auto& c) {
           if constexpr (Op::commutative) return mr::cluster_privatized_scratch_bytes<T>(c.m, mr::cluster_privatized_sets<Op>(c.m, c.tune));
           else return std::size_t(0);
         },
         commutative_only<Op>([](auto& c) { mr::cluster_privatized<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); })});
  d.add({"partitioned", VariantKind::Ours,
         "ours: CUB's radix sort by the label bits above a shared-memory window (one pass up to 2^22 int32 buckets), then one block per piece of a partition reduces it in the window and stores it (adds it where a partition is cut)",
         {true, Output::Buckets},
         [](const auto& c) {
           return c.n > (std::int64_t(1) << 31) - 1 ? std::string("CUB's radix sort is called with int counts") : std::string();
         },
         [](const auto& c) {
           if constexpr (Op::commutative) return mr::partitioned_scratch_bytes<T>(c.n, c.m, c.tune);
           else return std::size_t(0);
         },
         commutative_only<Op>([](auto& c) { mr::partitioned<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); })});
  d.add({"global_atomics_aggregated", VariantKind::Ours, "ours: one global atomic per input, but one per warp where all 32 labels are equal",
         {true, Output::Buckets}, {}, {},
         commutative_only<Op>([](auto& c) { mr::global_atomics<Op, true>(c.labels, c.values, c.n, c.m, c.out, c.stream); })});
  d.add({"warp_ordered", VariantKind::Ours,
         "ours, any operator: per-warp bucket sets in shared memory over contiguous chunks; equal labels in a step combine in lane order (match.any + pointer jumping)",
         {false, Output::Buckets},
         [](const auto& c) {
           return mr::warp_ordered_plan<Op>(c.n, c.m, c.tune).smem ? std::string() : std::string("the per-warp bucket sets exceed shared memory (fewer threads allow more m)");
         },
         [](const auto& c) { return mr::warp_ordered_scratch_bytes<Op>(c.n, c.m, c.tune); },
         [](Ctx<Op>& c) { mr::warp_ordered<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.tune, c.stream); }});
  d.add({"last_position", VariantKind::Ours,
         "ours, op last only: the last writer of a bucket is its highest position, so a commutative max of positions (shared_privatized's kernel) and one gather per bucket",
         {false, Output::Buckets},
         [](const auto& c) {
           if constexpr (std::is_same_v<Op, mr::Last>) return mr::last_position_unsupported(c.n, c.m, c.tune);
           else return std::string("op 'last' only (a max of positions answers no other operator)");
         },
         [](const auto& c) {
           if constexpr (std::is_same_v<Op, mr::Last>) return mr::last_position_scratch_bytes(c.n, c.m, c.tune);
           else return std::size_t(0);
         },
         []() -> RunFn<Op> {  // instantiated for "last" alone, as commutative_only does for its variants
           if constexpr (std::is_same_v<Op, mr::Last>)
             return [](Ctx<Op>& c) { mr::last_position(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.tune, c.stream); };
           else return nullptr;
         }()});
}

#define LP_X(Op) template void add_modern_variants<Op>(Defs<Op>&);
LP_MULTIREDUCE_FOR_EACH_OP(LP_X)

}  // namespace lp::multireduce_study
