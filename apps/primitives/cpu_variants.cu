// The CPU baselines, one thread each, one per primitive (cpu_reference/primitives/primitives.hpp):
// every point has its CPU time beside the GPU's.
#include "cpu_reference/primitives/primitives.hpp"
#include "variant.hpp"

namespace lp::primitives_study {

namespace cp = lp::cpu::primitives;
using harness::VariantKind;

void add_cpu_variants(Defs& d) {
  d.add({"cpu_map", VariantKind::Cpu, "map on one CPU thread: a loop of hash(key) % fanout", {}, [](const Ctx& c) { return only(c, Op::Map); },
         {}, [](Ctx& c) { cp::map_partitions(c.host.keys, c.n, c.fanout, c.host_out.words); }});
  d.add({"cpu_scatter", VariantKind::Cpu, "scatter on one CPU thread: out[loc[i]] = tuple[i]", {},
         [](const Ctx& c) { return only(c, Op::Scatter); }, {},
         [](Ctx& c) { cp::scatter(c.host.tuples, c.host.loc, c.n, c.host_out.tuples); }});
  d.add({"cpu_gather", VariantKind::Cpu, "gather on one CPU thread: out[i] = tuple[loc[i]]", {}, [](const Ctx& c) { return only(c, Op::Gather); },
         {}, [](Ctx& c) { cp::gather(c.host.tuples, c.host.loc, c.n, c.host_out.tuples); }});
  d.add({"cpu_scan", VariantKind::Cpu, "prefix scan on one CPU thread: std::exclusive_scan", {}, [](const Ctx& c) { return only(c, Op::Scan); },
         {}, [](Ctx& c) { cp::exclusive_scan(c.host.counts, c.n, c.host_out.words); }});
  d.add({"cpu_split", VariantKind::Cpu,
         "split on one CPU thread (Algorithm 1 with one thread): the histogram of partition ids, its exclusive scan, each tuple to its "
         "partition's cursor (stable)",
         {}, [](const Ctx& c) { return only(c, Op::Split); }, {},
         [](Ctx& c) { cp::split(c.host.tuples, c.n, c.fanout, c.host_out.tuples, *c.host_scratch); }});
  d.add({"cpu_sort", VariantKind::Cpu, "sort on one CPU thread: std::sort of the (key, rid) words, unpacked into key and rid columns", {},
         [](const Ctx& c) { return only(c, Op::Sort); }, {},
         [](Ctx& c) { cp::sort(c.host.keys, c.host.rids, c.n, c.host_out.words, c.host_out.rids, *c.host_scratch); }});
}

}  // namespace lp::primitives_study
