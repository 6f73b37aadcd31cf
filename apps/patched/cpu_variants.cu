// The CPU baselines: decode each chunk and apply its lanes' patches while it is in cache
// (cpu_reference/patched/apply.hpp; a float column: ALP's decode, alp_layout.hpp), on one thread and
// on every core.
#include "cpu_reference/patched/apply.hpp"
#include "variant.hpp"

namespace lp::patched_study {

using harness::VariantKind;

void add_cpu_variants(Defs& d) {
  d.add({"cpu_apply", VariantKind::Cpu, "the CPU apply on one thread: chunk by chunk, decode (vectorisable rows; ALP: multiplied back), then its patches", {}, {}, {},
         [](Ctx& c) {
           if (c.host_alp) {
             with_float(c.bytes, [&](auto f) {
               using F = decltype(f);
               cpu::patched::decode_alp_chunks(host_alp<F>(c), 0, host_alp<F>(c).chunks, static_cast<F*>(c.host_out));
             });
             return;
           }
           with_type(c.bytes, [&](auto t) {
             using T = decltype(t);
             cpu::patched::apply(host_packed<T>(c), host_patches<T>(c), static_cast<T*>(c.host_out));
           });
         }});
  d.add({"cpu_apply_mt", VariantKind::Cpu, "the CPU apply on every core (std::thread, chunks split evenly)", {}, {}, {},
         [](Ctx& c) {
           if (c.host_alp) {
             with_float(c.bytes, [&](auto f) {
               using F = decltype(f);
               cpu::patched::decode_alp_mt(host_alp<F>(c), static_cast<F*>(c.host_out));
             });
             return;
           }
           with_type(c.bytes, [&](auto t) {
             using T = decltype(t);
             cpu::patched::apply_mt(host_packed<T>(c), host_patches<T>(c), static_cast<T*>(c.host_out));
           });
         }});
}

}  // namespace lp::patched_study
