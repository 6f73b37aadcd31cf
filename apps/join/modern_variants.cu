// Beyond He et al.: one global hash table of R (kernels/join/global_hash.cuh), SMJ on inputs that
// arrive sorted (its merge step alone), and `auto`, which runs one of the joins by the decision
// table of kernels/join/auto_rule.hpp: from the sizes, and for two large relations from a look at
// both key columns on the device (kernels/common/auto_launch.cuh).
#include "apps/harness/auto_record.cuh"
#include "kernels/common/auto_launch.cuh"
#include "kernels/join/auto_rule.hpp"
#include "kernels/join/global_hash.cuh"
#include "kernels/join/partitioned_hash.cuh"
#include "kernels/join/sort_merge.cuh"
#include "variant.hpp"

namespace lp::join_study {

using harness::VariantKind;
namespace jk = lp::join;

namespace {

std::string global_hash_limits(const Ctx& c) {
  const std::string e = equi_only(c);
  return e.empty() ? jk::global_hash_unsupported(c.nr) : e;
}

std::size_t global_hash_scratch(const Ctx& c) {
  return for_key<std::size_t>(c.key_bytes, [&](auto k) { return jk::global_hash_scratch_bytes<decltype(k)>(c.nr); });
}

void global_hash_run(Ctx& c) {
  on_device(c, [&](const auto* r, std::int64_t nr, const auto* s, std::int64_t ns) {
    jk::global_hash_join(r, nr, s, ns, c.d_out, c.capacity, c.scratch, c.stream);
  });
}

// The partitioned hash join's partition bits at this point: the radix_bits knob, else its own.
int phj_bits(const Ctx& c) {
  return for_key<int>(c.key_bytes, [&](auto k) { return jk::partitioned_hash_bits<decltype(k)>(c.nr, c.radix_bits); });
}

std::string phj_limits(const Ctx& c) {
  const std::string e = equi_only(c);
  return e.empty() ? jk::partitioned_hash_unsupported(c.nr, c.ns) : e;
}

std::string smj_limits(const Ctx& c) {
  const std::string e = equi_only(c);
  return e.empty() ? jk::sort_merge_unsupported(c.nr, c.ns, c.pairs) : e;
}

std::size_t smj_scratch(const Ctx& c) {
  return for_key<std::size_t>(c.key_bytes, [&](auto k) { return jk::sort_merge_scratch_bytes<decltype(k)>(c.nr, c.ns); });
}

namespace ar = lp::join::auto_rule;

// A plan of auto is the variant of its name.
const Def& plan_variant(ar::Plan p) { return table().at(ar::name(p)); }

std::string plan_limits(ar::Plan p, const Ctx& c) {
  const Def& v = plan_variant(p);
  return v.unsupported ? v.unsupported(c) : std::string();
}

// What the host knows at this point, each plan's flag from its own variant's limits.
ar::Sizes sizes_of(const Ctx& c) {
  ar::Sizes z;
  z.nr = c.nr;
  z.ns = c.ns;
  z.band = c.band;
  z.l2_bytes = double(lp::l2_bytes());
  z.key_bytes = std::uint16_t(c.key_bytes);
  z.nlj = plan_limits(ar::Plan::Nlj, c).empty();
  z.inlj_css = plan_limits(ar::Plan::InljCss, c).empty();
  z.inlj_bs = plan_limits(ar::Plan::InljBs, c).empty();
  z.smj = plan_limits(ar::Plan::Smj, c).empty();
  z.hj = plan_limits(ar::Plan::Hj, c).empty();
  z.global_hash = plan_limits(ar::Plan::GlobalHash, c).empty();
  z.phj = plan_limits(ar::Plan::Phj, c).empty();
  return z;
}

// The key columns the profile reads: R's keys first (the build side), S's second (the probe side).
template <class K>
profile::Columns<K> columns_of(const Ctx& c) {
  return {static_cast<const K*>(c.d_r), c.nr, 0, static_cast<const K*>(c.d_s), c.ns, 0};
}

// auto's launcher. Every plan's launcher is capture-safe (memsets, kernels, CUB's sorts and scans
// on the stream it is given; scratch carved from what it is handed; no synchronisation, no
// allocation, no host read of device data), so each can be a body of the plan graph. Every plan
// writes into d_out with the same capacity (the reference's count, allocated outside the timed
// region); the graph's key names what the launches read beyond the columns, the sizes and the
// scratch: the output, its capacity and hj's radix_bits knob.
void auto_run(Ctx& c) {
  with_key(c.key_bytes, [&](auto k) {
    using K = decltype(k);
    profile::run_auto(ar::Rule{sizes_of(c)}, plan_key("join/auto", c.d_out, c.capacity, c.radix_bits), columns_of<K>(c), c.scratch,
                      c.scratch_bytes,
                      [&c](ar::Plan p, cudaStream_t s, std::size_t bytes) {
                        Ctx plan = c;
                        plan.stream = s;
                        plan.scratch_bytes = bytes;
                        plan_variant(p).run(plan);
                      },
                      c.stream);
  });
}

// What `bench list` says of auto, its thresholds read from the table so that the two stay in step.
std::string auto_description() {
  const auto n = [](double v) { return std::to_string(std::int64_t(v)); };
  return "the join for the point (metrics.plan; kernels/join/auto_rule.hpp): nlj for a band predicate or |S| <= " + n(double(ar::kNljMaxS32)) +
         " (int64 keys: " + n(double(ar::kNljMaxS64)) + "); global_hash while R's table is tiny; for |S| > " + n(ar::kSDominates) +
         " |R| and a small table inlj_bs from |S| = " + n(double(ar::kIndexMinS)) + " (global_hash below it, and from |S| = " +
         n(double(ar::kIndexLookMinS)) + " where a look finds a hot S key); phj where R's table holds " + n(ar::kPhjMinTableBytes / (1 << 20)) +
         " MiB or more and lies beyond the L2 or both sides hold " + n(ar::kPhjMinTuples) +
         " tuples or more; global_hash while R's table fits the L2; beyond it hj for int64 keys, inlj_css where |R| >= " + n(ar::kRDominates) +
         " |S|, else smj. With both sides of " + n(double(ar::kLookMinSide)) +
         " tuples or more it first looks at both key columns on the device: nothing matching takes inlj_bs, a hot R key inlj_css or "
         "smj instead of a hash table or phj, a hot or sorted S inlj_css instead of SMJ's or HJ's sort of both, a sorted S "
         "inlj_css instead of phj";
}

}  // namespace

void add_modern_variants(Defs& d) {
  d.add({"global_hash", VariantKind::Ours,
         "ours: one open-addressing hash table of R in global memory (2^k >= 2|R| slots, linear probing), built in one pass, probed "
         "in one pass over S; the pairs out through one warp-aggregated counter (no partitioning, no sort, no count pass)",
         {}, global_hash_limits, global_hash_scratch, global_hash_run});
  d.add({"phj", VariantKind::Ours,
         "ours: the radix-partitioned hash join with each key replaced by a bijective hash of itself, so that the split is CUB's "
         "radix sort of (hash, rid) on the hash's top bits only (up to 2^16 partitions in two passes), R partitions of a quarter "
         "of a shared-memory table (1024 int32 / 512 int64 tuples); a block builds one and probes it with up to 16 K S tuples in "
         "rounds of 1024 held in registers, each round's pairs out in one pass with one atomic (radix_bits: the knob)",
         Props{{}, phj_bits}, phj_limits,
         [](const Ctx& c) {
           return for_key<std::size_t>(c.key_bytes,
                                       [&](auto k) { return jk::partitioned_hash_scratch_bytes<decltype(k)>(c.nr, c.ns, phj_bits(c)); });
         },
         [](Ctx& c) {
           on_device(c, [&](const auto* r, std::int64_t nr, const auto* s, std::int64_t ns) {
             jk::partitioned_hash_join(r, nr, s, ns, phj_bits(c), c.d_out, c.capacity, c.scratch, c.scratch_bytes, c.stream);
           });
         }});
  d.add({"smj_presorted", VariantKind::Ours,
         "SMJ on relations that arrive sorted (the sort done untimed before the runs): the merge step alone, two sorted searches, "
         "the scan and the expansion; its throughput against the copy ceiling is the merge step's",
         Props{[](Ctx& c) {
                 on_device(c, [&](const auto* r, std::int64_t nr, const auto* s, std::int64_t ns) {
                   jk::sort_merge_sort(r, nr, s, ns, c.scratch, c.scratch_bytes, c.stream);
                 });
               },
               {}},
         smj_limits, smj_scratch, [](Ctx& c) {
           with_key(c.key_bytes, [&](auto k) {
             jk::sort_merge_merge<decltype(k)>(c.nr, c.ns, c.d_out, c.capacity, c.scratch, c.scratch_bytes, c.stream);
           });
         }});
  d.add({"auto", VariantKind::Ours, auto_description(), {}, [](const Ctx& c) { return plan_limits(ar::by_size(sizes_of(c)), c); },
         [](const Ctx& c) {
           return profile::auto_scratch_bytes(sizes_of(c), [&c](ar::Plan p) {
             const Def& v = plan_variant(p);
             return v.scratch ? v.scratch(c) : std::size_t(0);
           });
         },
         auto_run});
}

harness::Params auto_metrics(const Ctx& c) {
  harness::Params out;
  with_key(c.key_bytes, [&](auto k) {
    out = harness::auto_record(ar::Rule{sizes_of(c)}, columns_of<decltype(k)>(c), c.scratch, c.scratch_bytes);
  });
  return out;
}

}  // namespace lp::join_study
