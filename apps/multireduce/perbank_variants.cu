// Commutative adaptations of the sequential algorithm (thesis 4.3.5, 4.3.6): atomic bucket sets in
// global memory (Alg 4.9), per-bank bucket sets in shared memory (Alg 4.10) and its two extensions
// beyond 256 buckets, multi-pass and sort-based (Alg 4.11, Fig 4.16).
#include "kernels/multireduce/global_comm.cuh"
#include "kernels/multireduce/perbank.cuh"
#include "kernels/multireduce/perbank_multipass.cuh"
#include "kernels/multireduce/perbank_sort_extension.cuh"
#include "variant.hpp"

namespace lp::multireduce_study {

namespace mr = lp::multireduce;

template <class Op>
void add_perbank_variants(Defs<Op>& d) {
  using harness::VariantKind;
  using T = typename Op::value_type;

  d.add({"global_comm", VariantKind::Ours,
         "thesis Alg 4.9 (Table 4.1/4.2): n_sets (default 8) atomic bucket sets in global memory, set = thread mod n_sets, "
         "optional sort by the top sort_bits label bits first, per-bucket fold of the sets",
         {true, Output::Buckets},
         [](const auto& c) { return mr::global_comm_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) -> std::size_t {
           if constexpr (Op::commutative) return mr::global_comm_scratch_bytes<T>(c.n, c.m, c.tune);
           else return 0;  // never run: keeps CUB from being instantiated for these values
         },
         commutative_only<Op>([](auto& c) {
           mr::global_comm<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
         })});

  d.add({"perbank", VariantKind::Ours,
         "thesis Alg 4.10: one bucket set per shared-memory bank (thread t uses set t mod 32), atomic shared updates with pair "
         "aggregation, per-bucket fold of the 32 sets applied atomically to global memory; m up to what 32 sets fit in shared memory",
         {true, Output::Buckets},
         [](const auto& c) { return mr::perbank_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) { return mr::perbank_scratch_bytes(c.n, c.m, c.tune); },
         commutative_only<Op>([](auto& c) {
           mr::perbank<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
         })});

  d.add({"perbank_multipass", VariantKind::Ours,
         "thesis 4.3.6 multi-pass extension (Fig 4.16): Alg 4.10 once per 256-label range, each pass reading all inputs and "
         "keeping only its range; at most 64 passes",
         {true, Output::Buckets},
         [](const auto& c) { return mr::perbank_multipass_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) { return mr::perbank_multipass_scratch_bytes(c.n, c.m, c.tune); },
         commutative_only<Op>([](auto& c) {
           mr::perbank_multipass<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
         })});

  d.add({"perbank_sort_extension", VariantKind::Ours,
         "thesis Alg 4.11 (Fig 4.16): CUB radix sort by the label bits above the low 8, offsets of each 256-label segment, "
         "Alg 4.10 per segment with a flush and reset of the shared buckets at each segment end",
         {true, Output::Buckets},
         [](const auto& c) { return mr::perbank_sort_extension_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) -> std::size_t {
           if constexpr (Op::commutative) return mr::perbank_sort_extension_scratch_bytes<T>(c.n, c.m, c.tune);
           else return 0;  // never run: keeps CUB from being instantiated for these values
         },
         commutative_only<Op>([](auto& c) {
           mr::perbank_sort_extension<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
         })});
}

#define LP_X(Op) template void add_perbank_variants<Op>(Defs<Op>&);
LP_MULTIREDUCE_FOR_EACH_OP(LP_X)

}  // namespace lp::multireduce_study
