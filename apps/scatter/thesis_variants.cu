// The thesis's scatter and gather algorithms: the sequential and sorted CPU algorithms (Alg 2.1,
// 2.4 applied to the scatter, 2.6), the simple GPU gather (Alg 3.3) and its scatter mirror (Table
// 4.3), the strict naive scatter (1.2's first definition), He et al.'s multi-pass scheme (3.2.2)
// and the scatter with sorting (4.5.1).
#include "cpu_reference/cpu_memory/scatter_gather.hpp"
#include "kernels/scatter/multipass.cuh"
#include "kernels/scatter/naive.cuh"
#include "kernels/scatter/naive_strict.cuh"
#include "kernels/scatter/sorted.cuh"
#include "variant.hpp"

namespace lp::scatter_study {

namespace sc = lp::scatter;
using harness::VariantKind;

template <class W>
void add_thesis_variants(Defs<W>& d) {
  d.add({"cpu", VariantKind::Cpu, "Alg 2.1 (scatter, last one wins) / the gather of 1.2, one CPU thread", {}, {}, {},
         [](Ctx<W>& c) {
           if (c.gather) cpu::gather_sequential<W>(c.host_labels, c.host_values, c.n, c.host_out);
           else cpu::scatter_into<W>(c.host_labels, c.host_values, c.n, c.host_out);
         }});
  d.add({"cpu_sorted", VariantKind::Cpu,
         "Alg 2.4 applied to the scatter (stable partial sort by sort_bits top label bits, then Alg 2.1) / Alg 2.6 gather, one CPU thread",
         {}, {}, {},
         [](Ctx<W>& c) {
           if (c.gather) cpu::gather_sorted<W>(c.host_labels, c.host_values, c.n, c.m, c.tune.sort_bits, c.host_out, c.host_sort_scratch);
           else cpu::scatter_sorted<W>(c.host_labels, c.host_values, c.n, c.m, c.tune.sort_bits, c.host_out, c.host_sort_scratch);
         }});
  d.add({"naive", VariantKind::Ours,
         "Alg 3.3 gather and its scatter mirror (Table 4.3): blocks own contiguous segments, threads stride, plain stores (any one wins)",
         {false}, {}, {},
         [](Ctx<W>& c) {
           if (c.gather) sc::naive_gather<W>(c.labels, c.values, c.n, c.out, c.tune, c.stream);
           else sc::naive_scatter<W>(c.labels, c.values, c.n, c.out, c.tune, c.stream);
         }});
  d.add({"naive_strict", VariantKind::Ours,
         "thesis 1.2's strict scatter (last one wins) on the naive scheme: atomicMax of the position per label, then each bucket takes its "
         "winner's value",
         {true}, [](const auto& c) { return scatter_only(c); }, [](const auto& c) { return sc::naive_strict_scratch_bytes(c.m); },
         [](Ctx<W>& c) { sc::naive_strict_scatter<W>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.tune, c.stream); }});
  d.add({"multipass", VariantKind::Ours,
         "He et al. (3.2.2): passes traversals, pass k touching only its slice of the labels (axis passes; 0: their cost model's count "
         "for half the L2); any one wins",
         {false}, {}, {}, [](Ctx<W>& c) { sc::multipass<W>(c.gather, c.labels, c.values, c.n, c.m, c.out, c.tune, c.stream); }});
  d.add({"sorted", VariantKind::Ours,
         "4.5.1: partial radix sort by sort_bits top label bits (0: as many as leave 2^18 buckets a segment, <= 8), then a common-front "
         "sweep (the thesis's strided variant); scatter: any one wins; gather: results put back in input order",
         {false}, {},
         [](const auto& c) { return sc::sorted_scratch_bytes<W>(c.gather, c.n, c.m, sc::sorted_bits(c.m, c.tune)); },
         [](Ctx<W>& c) {
           sc::sorted<W>(c.gather, false, sc::sorted_bits(c.m, c.tune), c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes,
                         c.tune, c.stream);
         }});
}

template void add_thesis_variants<std::uint32_t>(Defs<std::uint32_t>&);
template void add_thesis_variants<std::uint64_t>(Defs<std::uint64_t>&);

}  // namespace lp::scatter_study
