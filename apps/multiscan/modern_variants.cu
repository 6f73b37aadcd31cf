// Beyond the thesis: the single-pass look-back multiscan for small and medium m, the sort-based
// path for large m, and `auto`, which picks by m.
#include "kernels/multiscan/single_pass.cuh"
#include "kernels/multiscan/sort_global.cuh"
#include "variant.hpp"

namespace lp::multiscan_study {

namespace ms = lp::multiscan;

namespace {

// single_pass while its warp bucket sets fit a block with 4 warps or more and the per-tile
// vectors stay small next to the tile (m <= 4096: 3.1 ms on the H100 against sort_shared's 3.3);
// beyond, the sort-based Alg 5.3.
template <class Op>
bool use_single_pass(std::int64_t n, std::uint32_t m, const Tuning& t) {
  using T = typename Op::value_type;
  return m <= 4096 && ms::single_pass_unsupported(n, m, sizeof(T), t).empty() &&
         ms::single_pass_detail::plan(n, m, sizeof(T), t).threads >= 128;
}

}  // namespace

template <class Op>
void add_modern_variants(Defs<Op>& d) {
  using harness::VariantKind;
  using T = typename Op::value_type;
  d.push_back({"auto", VariantKind::Ours, "ours: single_pass up to m = 4096 (where 4 warps' bucket sets fit), sort_global beyond",
               Output::Results, false,
               [](std::int64_t n, std::uint32_t m, const Tuning& t) {
                 return use_single_pass<Op>(n, m, t) ? std::string() : ms::sort_global_unsupported(n);
               },
               [](std::int64_t n, std::uint32_t m, const Tuning& t) {
                 return use_single_pass<Op>(n, m, t) ? ms::single_pass_scratch_bytes<T>(n, m, t) : ms::sort_global_scratch_bytes<Op>(n, m);
               },
               [](Ctx<Op>& c) {
                 if (use_single_pass<Op>(c.n, c.m, c.tune))
                   ms::single_pass<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, c.stream);
                 else
                   ms::sort_global<Op>(c.labels, c.values, c.n, c.m, c.inclusive, false, c.out, c.scratch, c.scratch_bytes, c.stream);
               }});
  d.push_back({"single_pass", VariantKind::Ours,
               "ours: tiles of threads x n_items scan locally (per-warp bucket sets in shared memory, equal labels of a step in lane order) "
               "and exchange m-vectors of bucket aggregates / inclusive prefixes through a decoupled look-back; one pass over the data",
               Output::Results, false,
               [](std::int64_t n, std::uint32_t m, const Tuning& t) { return ms::single_pass_unsupported(n, m, sizeof(T), t); },
               [](std::int64_t n, std::uint32_t m, const Tuning& t) { return ms::single_pass_scratch_bytes<T>(n, m, t); },
               [](Ctx<Op>& c) { ms::single_pass<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, c.stream); }});
}

#define LP_X(Op) template void add_modern_variants<Op>(Defs<Op>&);
LP_MULTISCAN_FOR_EACH_OP(LP_X)

}  // namespace lp::multiscan_study
