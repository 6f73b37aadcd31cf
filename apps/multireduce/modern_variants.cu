// Beyond the thesis, for today's GPU: a variant per regime and `auto`, which picks among them.
#include "apps/harness/auto_record.cuh"
#include "kernels/multireduce/auto_rule.hpp"
#include "kernels/multireduce/cluster_privatized.cuh"
#include "kernels/multireduce/global_atomics.cuh"
#include "kernels/multireduce/last_position.cuh"
#include "kernels/multireduce/partitioned.cuh"
#include "kernels/multireduce/perbank.cuh"
#include "kernels/multireduce/shared_privatized.cuh"
#include "kernels/multireduce/sort_global.cuh"
#include "kernels/multireduce/sort_shared.cuh"
#include "kernels/multireduce/warp_ordered.cuh"
#include "variant.hpp"

namespace lp::multireduce_study {

namespace mr = lp::multireduce;

namespace {

namespace ar = mr::auto_rule;
using ar::Plan;

// What the host knows of this point for auto's decision table (auto_rule.hpp).
template <class Op>
ar::Sizes sizes_of(const Ctx<Op>& c) {
  using T = typename Op::value_type;
  ar::Sizes s;
  s.n = c.n;
  s.m = c.m;
  s.value_bytes = sizeof(T);
  s.commutative = Op::commutative;
  s.integral = std::is_integral_v<T>;
  s.add = std::is_same_v<Op, mr::Add<T>>;
  s.native_shared_atomic = mr::native_shared_atomic<Op>();
  s.int_counts = c.n <= (std::int64_t(1) << 31) - 1;
  s.l2_bytes = double(mr::l2_bytes());
  if constexpr (Op::commutative) {
    s.shared = mr::shared_privatized_plan<T>(c.n, c.m, c.tune).copies > 0;
    s.perbank = mr::perbank_unsupported(c.n, c.m, sizeof(T), c.tune).empty();
    const auto cp = mr::cluster_plan<T>(c.m, c.tune);
    s.cluster = cp.cluster > 0;
    s.cluster_one_pass = cp.cluster > 0 && cp.passes == 1;
  } else {
    s.warp_ordered = mr::warp_ordered_plan<Op>(c.n, c.m, c.tune).smem > 0;
    // sort_shared_transposed runs while its partial sets stay within the variant's own limit.
    const std::size_t partials = mr::sort_shared_partials_bytes<Op, true>(c.n, c.m, c.tune);
    s.sort_shared_bytes = partials <= mr::kSortSharedMaxPartialsBytes ? std::max(double(partials), 1.0) : 0.0;
    if constexpr (std::is_same_v<Op, mr::Last>) s.last_position = mr::last_position_unsupported(c.n, c.m, c.tune).empty();
  }
  return s;
}

template <class Op>
std::size_t plan_scratch(Plan r, const Ctx<Op>& c) {
  using T = typename Op::value_type;
  const std::int64_t n = c.n;
  const std::uint32_t m = c.m;
  const Tuning& t = c.tune;
  if constexpr (Op::commutative) {
    if (r == Plan::Shared) return mr::shared_privatized_scratch_bytes<T>(n, m, t);
    if (r == Plan::PerBank) return mr::perbank_scratch_bytes(n, m, t);
    if (r == Plan::Cluster) return mr::cluster_privatized_scratch_bytes<T>(m, mr::cluster_privatized_sets<Op>(m, t));
    if (r == Plan::Partitioned) return mr::partitioned_scratch_bytes<T>(n, m, t);
  } else {
    if (r == Plan::WarpOrdered) return mr::warp_ordered_scratch_bytes<Op>(n, m, t);
    if (r == Plan::SortShared) return mr::sort_shared_scratch_bytes<Op, true>(n, m, t);
  }
  if (r == Plan::LastPosition) return mr::last_position_scratch_bytes(n, m, t);
  if (r == Plan::Sort) return mr::sort_global_scratch_bytes<Op>(n, m, t);
  return 0;
}

// One plan on stream `s`, with `bytes` of the scratch (the slot after them is the profile's).
template <class Op>
void run_plan(Plan r, const Ctx<Op>& in, cudaStream_t s, std::size_t bytes) {
  Ctx<Op> c = in;
  c.stream = s;
  c.scratch_bytes = bytes;
  if constexpr (Op::commutative) {
    if (r == Plan::Shared) return mr::shared_privatized<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.tune, c.stream);
    if (r == Plan::PerBank) return mr::perbank<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
    if (r == Plan::Cluster) return mr::cluster_privatized<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
    if (r == Plan::GlobalAggregated) return mr::global_atomics<Op, true>(c.labels, c.values, c.n, c.m, c.out, c.stream);
    if (r == Plan::Partitioned)
      return mr::partitioned<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
  } else {
    if (r == Plan::WarpOrdered) return mr::warp_ordered<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.tune, c.stream);
    if (r == Plan::SortShared)
      return mr::sort_shared<Op, true>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
    if constexpr (std::is_same_v<Op, mr::Last>)
      if (r == Plan::LastPosition) return mr::last_position(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.tune, c.stream);
  }
  if (r == Plan::Sort) return mr::sort_global<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
  throw std::logic_error(std::string("multireduce auto: plan ") + ar::name(r) + " does not run op " + Op::name);
}

// auto: the plan by sizes where they settle it; else the profile pass decides on the device and runs
// the plan inside one graph (kernels/common/auto_launch.cuh).
template <class Op>
void run_auto(Ctx<Op>& c) {
  const std::string tag = std::string("multireduce/auto/") + Op::name + "/" + multireduce::TypeName<typename Op::value_type>::value;
  profile::run_auto(ar::Rule{sizes_of(c)}, plan_key(tag.c_str(), c.labels, c.values, c.out, c.tune),
                    profile::Columns<std::uint32_t>{c.labels, c.n, c.m}, c.scratch, c.scratch_bytes,
                    [&c](Plan p, cudaStream_t s, std::size_t bytes) { run_plan(p, c, s, bytes); }, c.stream);
}

}  // namespace

template <class Op>
harness::Params auto_metrics(const Ctx<Op>& c) {
  return harness::auto_record(ar::Rule{sizes_of(c)}, profile::Columns<std::uint32_t>{c.labels, c.n, c.m}, c.scratch, c.scratch_bytes);
}

template <class Op>
void add_modern_variants(Defs<Op>& d) {
  using harness::VariantKind;
  using T = typename Op::value_type;
  d.add({"auto", VariantKind::Ours,
         "ours: the plan by operator, value size and m where they settle it (shared_privatized, perbank for int64 add over 2..16 buckets "
         "and float32 add wherever its sets fit, warp_ordered, last_position, sort_shared_transposed, sort_global); beyond shared memory an input profile on the device picks "
         "aggregated global atomics, partitioned or cluster_privatized inside one CUDA graph, and where shared memory's updates are "
         "compare-and-swap loops a hot label sends 64-bit integers to cluster_privatized and floats to partitioned (auto_rule.hpp)",
         {false, Output::Buckets},
         [](const auto& c) {
           return c.n > (std::int64_t(1) << 31) - 1 && !Op::commutative ? std::string("sort_global counts in int") : std::string();
         },
         [](const auto& c) { return profile::auto_scratch_bytes(sizes_of(c), [&c](Plan p) { return plan_scratch(p, c); }); },
         [](Ctx<Op>& c) { run_auto<Op>(c); }});
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
  d.add({"global_atomics_aggregated", VariantKind::Ours, "ours: one global atomic per input, but one per warp where all 32 labels are equal and one per hot label's lanes in a warp step",
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

#define LP_X(Op) \
  template void add_modern_variants<Op>(Defs<Op>&); \
  template harness::Params auto_metrics<Op>(const Ctx<Op>&);
LP_MULTIREDUCE_FOR_EACH_OP(LP_X)

}  // namespace lp::multireduce_study
