// The CPU baselines: decode each chunk and apply its lanes' patches while it is in cache
// (cpu_reference/patched/apply.hpp), on one thread and on every core.
#include "cpu_reference/patched/apply.hpp"
#include "variant.hpp"

namespace lp::patched_study {

using harness::VariantKind;

void add_cpu_variants(Defs& d) {
  d.add({"cpu_apply", VariantKind::Cpu, "the CPU apply on one thread: chunk by chunk, decode (vectorisable rows), then its patches", {}, {}, {},
         [](Ctx& c) {
           with_type(c.bytes, [&](auto t) {
             using T = decltype(t);
             cpu::patched::apply(host_packed<T>(c), host_patches<T>(c), static_cast<T*>(c.host_out));
           });
         }});
  d.add({"cpu_apply_mt", VariantKind::Cpu, "the CPU apply on every core (std::thread, chunks split evenly)", {}, {}, {},
         [](Ctx& c) {
           with_type(c.bytes, [&](auto t) {
             using T = decltype(t);
             cpu::patched::apply_mt(host_packed<T>(c), host_patches<T>(c), static_cast<T*>(c.host_out));
           });
         }});
}

}  // namespace lp::patched_study
