// Thesis 5.1 (an ordinary scan over m-vectors) and the partitioning scheme (Alg 5.2) around the
// sequential multiscan per thread (5.3, Appendix B: bucket sets in global or shared memory).
#include "kernels/multiscan/seq_global.cuh"
#include "kernels/multiscan/seq_shared.cuh"
#include "kernels/multiscan/vector_scan.cuh"
#include "variant.hpp"

namespace lp::multiscan_study {

namespace ms = lp::multiscan;

template <class Op>
void add_partition_variants(Defs<Op>& d) {
  using harness::VariantKind;
  using T = typename Op::value_type;
  d.add({"vector_scan", VariantKind::Ours,
         "thesis 5.1: CUB's device scan over one-hot m-vectors (8 or 32 components), each result read at its label; m <= 32",
         {Output::Results, false}, [](const auto& c) { return ms::vector_scan_unsupported(c.n, c.m); },
         [](const auto& c) { return ms::vector_scan_scratch_bytes<Op>(c.n, c.m); },
         [](Ctx<Op>& c) { ms::vector_scan<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.scratch_bytes, c.stream); }});
  d.add({"seq_global", VariantKind::Ours,
         "thesis 5.3 / Fig B.1: Alg 2.3 per thread over a contiguous segment (transposed loads and stores, Alg 4.7/4.6/4.5), "
         "per-thread bucket sets in global memory, then Alg 5.2's scan of the partials and add-back",
         {Output::Results, false},
         [](const auto& c) { return ms::seq_global_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) { return ms::seq_global_scratch_bytes<T>(c.n, c.m, c.tune); },
         [](Ctx<Op>& c) { ms::seq_global<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, c.stream); }});
  d.add({"seq_shared", VariantKind::Ours,
         "thesis 5.3 / Fig B.2: as seq_global with the per-thread bucket sets in shared memory (bucket b of thread t at b * nThreads + t)",
         {Output::Results, false},
         [](const auto& c) { return ms::seq_shared_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) { return ms::seq_shared_scratch_bytes<T>(c.n, c.m, c.tune); },
         [](Ctx<Op>& c) { ms::seq_shared<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, c.stream); }});
}

#define LP_X(Op) template void add_partition_variants<Op>(Defs<Op>&);
LP_MULTISCAN_FOR_EACH_OP(LP_X)

}  // namespace lp::multiscan_study
