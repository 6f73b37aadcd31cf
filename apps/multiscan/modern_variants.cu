// Beyond the thesis: the single-pass look-back multiscan for small and medium m, and `auto`, which
// picks by m among it and the thesis's sort-based variants.
#include "kernels/multiscan/single_pass.cuh"
#include "kernels/multiscan/sort_shared.cuh"
#include "kernels/multiscan/sort_global.cuh"
#include "variant.hpp"

namespace lp::multiscan_study {

namespace ms = lp::multiscan;

namespace {

// auto's regimes, from the H100 targets run (results/h100/multiscan_targets.json, n = 2^26):
// single_pass up to m = 1024 (0.55-1.12 ms; sort_shared 1.5-2.7); sort_shared from 2048 to 2^16
// (m = 4096: 1.56-3.30 ms against single_pass's 2.9-3.1, whose m-vectors per tile grow with m;
// 2^16: 2.3-7.4 against sort_global's 2.1-7.1, better on zipf by 1.7x); sort_global beyond, where
// sort_shared's per-block bucket sets outgrow it (2^18: 4.3-11.3 against 2.7-7.8).
enum class Regime { SinglePass, SortShared, SortGlobal };

template <class Op>
Regime regime(std::int64_t n, std::uint32_t m, const Tuning& t) {
  using T = typename Op::value_type;
  if (m <= 1024 && ms::single_pass_unsupported(n, m, sizeof(T), t).empty()) return Regime::SinglePass;
  if (m <= (1u << 16) && ms::sort_shared_unsupported<Op>(n, m, t).empty()) return Regime::SortShared;
  return Regime::SortGlobal;
}

}  // namespace

template <class Op>
void add_modern_variants(Defs<Op>& d) {
  using harness::VariantKind;
  using T = typename Op::value_type;
  d.add({"auto", VariantKind::Ours, "ours: single_pass up to m = 1024, sort_shared up to 2^16, sort_global beyond (by m)",
         {Output::Results, false},
         [](const auto& c) {
           return regime<Op>(c.n, c.m, c.tune) == Regime::SortGlobal ? ms::sort_global_unsupported(c.n) : std::string();
         },
         [](const auto& c) {
           switch (regime<Op>(c.n, c.m, c.tune)) {
             case Regime::SinglePass: return ms::single_pass_scratch_bytes<T>(c.n, c.m, c.tune);
             case Regime::SortShared: return ms::sort_shared_scratch_bytes<Op>(c.n, c.m, c.tune);
             default: return ms::sort_global_scratch_bytes<Op>(c.n, c.m);
           }
         },
         [](Ctx<Op>& c) {
           switch (regime<Op>(c.n, c.m, c.tune)) {
             case Regime::SinglePass:
               return ms::single_pass<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, c.stream);
             case Regime::SortShared:
               return ms::sort_shared<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, c.stream);
             default:
               return ms::sort_global<Op>(c.labels, c.values, c.n, c.m, c.inclusive, false, c.out, c.scratch, c.scratch_bytes, c.stream);
           }
         }});
  d.add({"single_pass", VariantKind::Ours,
         "ours: tiles of threads x n_items scan locally (per-warp bucket sets in shared memory, equal labels of a step in lane order) "
         "and exchange m-vectors of bucket aggregates / inclusive prefixes through a decoupled look-back; one pass over the data",
         {Output::Results, false},
         [](const auto& c) { return ms::single_pass_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) { return ms::single_pass_scratch_bytes<T>(c.n, c.m, c.tune); },
         [](Ctx<Op>& c) { ms::single_pass<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, c.stream); }});
}

#define LP_X(Op) template void add_modern_variants<Op>(Defs<Op>&);
LP_MULTISCAN_FOR_EACH_OP(LP_X)

}  // namespace lp::multiscan_study
