// CPU baselines of the multireduce study, run on the host in the same run as the GPU variants.
#include "cpu_reference/multireduce/cpu_multireduce.hpp"
#include "variant.hpp"

namespace lp::multireduce_study {

template <class Op>
void add_cpu_variants(Defs<Op>& d) {
  using harness::VariantKind;
  // Alg 2.2
  d.add({"cpu_sequential", VariantKind::Cpu, "thesis Alg 2.2: the sequential multireduce on one core", {false, Output::Buckets}, {}, {},
         [](Ctx<Op>& c) { cpu::multireduce_sequential<Op>(c.host_labels, c.host_values, c.n, c.m, c.host_out); }});
  // Alg 2.4
  d.add({"cpu_sorted", VariantKind::Cpu, "thesis Alg 2.4: partial radix sort by the top sort_bits label bits, then Alg 2.2 (one core)", {false, Output::Buckets}, {}, {},
         [](Ctx<Op>& c) { cpu::multireduce_sorted<Op>(c.host_labels, c.host_values, c.n, c.m, c.tune.sort_bits, c.host_out, c.host_sort_scratch); }});
}

#define LP_X(Op) template void add_cpu_variants<Op>(Defs<Op>&);
LP_MULTIREDUCE_FOR_EACH_OP(LP_X)

}  // namespace lp::multireduce_study
