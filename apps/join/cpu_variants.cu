// The CPU baselines of He et al. 2008 (cpu_reference/join/join.hpp): the blocked nested loop on
// small points (equi or band), the sort-merge join and the radix-partitioned hash join, each on one
// thread and on every core.
#include "variant.hpp"

namespace lp::join_study {

namespace cj = lp::cpu::join;
using harness::VariantKind;

namespace {

// The nested loop compares every pair: a small point only.
constexpr double kNestedLoopPairs = double(std::int64_t(1) << 30);

std::string nested_loop_unsupported(const Ctx& c) {
  if (double(c.nr) * double(c.ns) > kNestedLoopPairs) return "|R| |S| > 2^30: the nested loop is for small points";
  return {};
}

// The CPU hash joins' partition bits at this point: the knob, else their own choice.
int cpu_hj_bits(const Ctx& c) { return int(cj::hash_join_bits(std::size_t(c.nr), c.radix_bits)); }

}  // namespace

void add_cpu_variants(Defs& d) {
  d.add({"cpu_nlj", VariantKind::Cpu,
         "NINLJ (He et al. 4.1) on one thread: S in L1-sized blocks, R streamed past each; equi or band predicate", {},
         nested_loop_unsupported, {}, [](Ctx& c) {
           on_host(c, [&](const auto* r, std::size_t nr, const auto* s, std::size_t ns, auto*) { cj::nested_loop(r, nr, s, ns, c.band, *c.host_out); });
         }});
  d.add({"cpu_smj", VariantKind::Cpu, "SMJ (He et al. 4.3) on one thread: std::sort both relations by key, merge", {}, equi_only, {},
         [](Ctx& c) {
           on_host(c, [&](const auto* r, std::size_t nr, const auto* s, std::size_t ns, auto* ws) { cj::sort_merge(r, nr, s, ns, *c.host_out, ws); });
         }});
  d.add({"cpu_smj_mt", VariantKind::Cpu,
         "SMJ on every core (`threads`): both relations range-partitioned on the key's top bits, each partition pair sorted and merged",
         {}, equi_only, {}, [](Ctx& c) {
           on_host(c, [&](const auto* r, std::size_t nr, const auto* s, std::size_t ns, auto* ws) {
             cj::sort_merge_mt(r, nr, s, ns, c.threads, *c.host_out, ws);
           });
         }});
  d.add({"cpu_hj", VariantKind::Cpu,
         "HJ (He et al. 4.4) on one thread: radix-partitioned on a hash of the key into L2-sized partitions, then a bucket-chained "
         "table per partition, built on R, probed with S",
         Props{{}, cpu_hj_bits}, equi_only, {}, [](Ctx& c) {
           on_host(c, [&](const auto* r, std::size_t nr, const auto* s, std::size_t ns, auto* ws) {
             cj::hash_join(r, nr, s, ns, 1, c.radix_bits, *c.host_out, ws);
           });
         }});
  d.add({"cpu_hj_mt", VariantKind::Cpu, "the radix hash join on every core (`threads`): partitioning and the partitions' joins in parallel",
         Props{{}, cpu_hj_bits}, equi_only, {}, [](Ctx& c) {
           on_host(c, [&](const auto* r, std::size_t nr, const auto* s, std::size_t ns, auto* ws) {
             cj::hash_join(r, nr, s, ns, c.threads, c.radix_bits, *c.host_out, ws);
           });
         }});
}

}  // namespace lp::join_study
