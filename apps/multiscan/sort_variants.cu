// The sort-based multiscan of the thesis (5.5): Alg 5.3 over the whole input (and its
// inclusive-only form scanning the pairs), and Alg 5.4 per block in shared memory (Fig 5.8).
#include "kernels/multiscan/sort_global.cuh"
#include "kernels/multiscan/sort_shared.cuh"
#include "variant.hpp"

namespace lp::multiscan_study {

namespace ms = lp::multiscan;

template <class Op>
void add_sort_variants(Defs<Op>& d) {
  using harness::VariantKind;
  auto limits = [](const auto& c) { return ms::sort_global_unsupported(c.n); };
  auto scratch = [](const auto& c) { return ms::sort_global_scratch_bytes<Op>(c.n, c.m); };
  d.add({"sort_global", VariantKind::Ours,
         "thesis Alg 5.3 (Fig 5.7): index-value pairs radix sorted by ceil(log2 m) label bits (CUB), segmented scan by the sorted "
         "labels (CUB scan-by-key), each result scattered to its index",
         {Output::Results, false}, limits, scratch,
         [](Ctx<Op>& c) { ms::sort_global<Op>(c.labels, c.values, c.n, c.m, c.inclusive, false, c.out, c.scratch, c.scratch_bytes, c.stream); }});
  d.add({"sort_global_pairs", VariantKind::Ours,
         "thesis 5.5 (inclusive only): Alg 5.3 with the segmented scan run on the index-value pairs themselves, then a scatter",
         {Output::Results, true}, limits, scratch,
         [](Ctx<Op>& c) { ms::sort_global<Op>(c.labels, c.values, c.n, c.m, true, true, c.out, c.scratch, c.scratch_bytes, c.stream); }});
  d.add({"sort_shared", VariantKind::Ours,
         "thesis Alg 5.4 (Fig 5.8): per tile of threads x n_items (default 256 x 12) Baxter-transposed loads, cub::BlockRadixSort of "
         "index-value pairs, three-phase segmented scan, results to their indices; blocks keep running bucket totals, then Alg 5.2",
         {Output::Results, false}, [](const auto& c) { return ms::sort_shared_unsupported<Op>(c.n, c.m, c.tune); },
         [](const auto& c) { return ms::sort_shared_scratch_bytes<Op>(c.n, c.m, c.tune); },
         [](Ctx<Op>& c) { ms::sort_shared<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, c.stream); }});
}

#define LP_X(Op) template void add_sort_variants<Op>(Defs<Op>&);
LP_MULTISCAN_FOR_EACH_OP(LP_X)

}  // namespace lp::multiscan_study
