// The CPU baselines, run on the host in the same run as the GPU variants: the query in row order on
// one core and on every core (the CPU multireduce), the sums in __int128 (or double for the float
// query), with the same CheckOverflow as the reference.
#include "variant.hpp"

namespace lp::decimal_study {

void add_cpu_variants(Defs& d) {
  using harness::VariantKind;
  d.add({"cpu_sequential", VariantKind::Cpu, "one core, rows in order, the totals in __int128 (double for the float query)", {}, {}, {},
         [](Ctx& c) {
           if (c.type == Type::Double) return cd::group_sum_double(c.rows, c.host_total_f->data());
           *c.host_failed = cd::group_sum_sequential(c.rows, c.lim, c.host_total->data(), c.host_null->data());
         }});
  d.add({"cpu_mt", VariantKind::Cpu,
         "every core: per-thread totals for m <= 2^16, else a radix partition by the top product-id bits (the CPU multireduce), in __int128",
         {}, {},
         [](const Ctx& c) {
           return c.type == Type::Double ? cd::group_sum_double_mt_scratch_bytes(c.n, c.m, c.threads) : cd::group_sum_mt_scratch_bytes(c.n, c.m, c.threads);
         },
         [](Ctx& c) {
           if (c.type == Type::Double) return cd::group_sum_double_mt(c.rows, c.threads, c.host_scratch, c.host_total_f->data());
           *c.host_failed = cd::group_sum_mt(c.rows, c.lim, c.threads, c.host_scratch, c.host_total->data(), c.host_null->data());
         }});
}

}  // namespace lp::decimal_study
