// CPU baselines of the multiscan study, run on the host in the same run as the GPU variants.
#include "variant.hpp"

namespace lp::multiscan_study {

template <class Op>
void add_cpu_variants(Defs<Op>& d) {
  using harness::VariantKind;
  d.add({"cpu_sequential", VariantKind::Cpu, "thesis Alg 2.3: the sequential multiscan on one core", {Output::Results, false}, {}, {},
         [](Ctx<Op>& c) { cpu::multiscan_sequential<Op>(c.host_labels, c.host_values, c.n, c.m, c.inclusive, c.host_buckets, c.host_out); }});
  d.add({"cpu_sorted", VariantKind::Cpu, "thesis Alg 2.5: partial radix sort by the top sort_bits label bits (with indices), Alg 2.3, results back to their inputs (one core)",
         {Output::Results, false}, {}, {},
         [](Ctx<Op>& c) {
           cpu::multiscan_sorted<Op>(c.host_labels, c.host_values, c.n, c.m, c.tune.sort_bits, c.inclusive, c.host_buckets, c.host_out,
                                     c.host_sort_scratch);
         }});
}

#define LP_X(Op) template void add_cpu_variants<Op>(Defs<Op>&);
LP_MULTISCAN_FOR_EACH_OP(LP_X)

}  // namespace lp::multiscan_study
