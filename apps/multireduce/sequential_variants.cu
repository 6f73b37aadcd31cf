// Adaptations of ordinary reduce and of the sequential algorithm (thesis 4.1, 4.3.2, 4.3.5,
// 4.3.6 per-thread sets): the vector reduce, the minimal kernel, per-thread bucket sets in global
// memory (unsorted and sorted, Fig 4.7-4.9) and in shared memory (Fig 4.12, 4.13).
#include "kernels/multireduce/global_noncomm.cuh"
#include "kernels/multireduce/minimal.cuh"
#include "kernels/multireduce/shared_perthread.cuh"
#include "kernels/multireduce/vector_reduce.cuh"
#include "variant.hpp"

namespace lp::multireduce_study {

namespace mr = lp::multireduce;

template <class Op>
void add_sequential_variants(Defs<Op>& d) {
  using harness::VariantKind;
  using T = typename Op::value_type;

  d.add({"vector_reduce", VariantKind::Ours,
         "thesis 4.1: ordinary tree reduce over m-vectors (one-hot inputs, ordered warp butterflies, O(n m) work), then the "
         "ordered fold of the block vectors; m <= 64",
         {false, Output::Buckets},
         [](const auto& c) { return mr::vector_reduce_unsupported(c.n, c.m, c.tune); },
         [](const auto& c) { return mr::vector_reduce_scratch_bytes<T>(c.n, c.m, c.tune); },
         [](Ctx<Op>& c) { mr::vector_reduce<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  d.add({"minimal", VariantKind::Ours,
         "thesis Alg 4.4: coalesced tile fetch to shared memory, one thread per block folds it sequentially into the block's "
         "bucket set in global memory, Fig 4.2 ordered reduction of the block sets",
         {false, Output::Buckets},
         [](const auto& c) { return mr::minimal_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) { return mr::minimal_scratch_bytes<T>(c.n, c.m, c.tune); },
         [](Ctx<Op>& c) { mr::minimal<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  d.add({"global_noncomm", VariantKind::Ours,
         "thesis Alg 4.8 in Alg 4.7 (Fig 4.7): each thread folds its contiguous segment, transposed through shared memory "
         "(transpose: padded/segment/baxter), into its own bucket set in global memory; ordered reduction of the sets",
         {false, Output::Buckets},
         [](const auto& c) { return mr::global_noncomm_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) { return mr::global_noncomm_scratch_bytes<T>(c.n, c.m, c.tune); },
         [](Ctx<Op>& c) {
           mr::global_noncomm<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
         }});

  d.add({"global_noncomm_sorted", VariantKind::Ours,
         "thesis Fig 4.9: stable cub::DeviceRadixSort of the pairs by the label bits (top sort_bits only if set), then "
         "global_noncomm on the sorted pairs",
         {false, Output::Buckets},
         [](const auto& c) { return mr::global_noncomm_sorted_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) { return mr::global_noncomm_sorted_scratch_bytes<T>(c.n, c.m, c.tune); },
         [](Ctx<Op>& c) {
           mr::global_noncomm_sorted<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
         }});

  d.add({"shared_perthread_noncomm", VariantKind::Ours,
         "thesis 4.3.6 (Fig 4.12, 4.13): per-thread bucket sets in shared memory (bucket b of thread t at b*nThreads+t), each "
         "thread folds its contiguous segment via transposed loads (n_items, default 8); ordered reduction of the sets",
         {false, Output::Buckets},
         [](const auto& c) { return mr::shared_perthread_noncomm_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) { return mr::shared_perthread_noncomm_scratch_bytes<T>(c.n, c.m, c.tune); },
         [](Ctx<Op>& c) {
           mr::shared_perthread_noncomm<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
         }});

  d.add({"shared_perthread_comm", VariantKind::Ours,
         "thesis 4.3.6 commutative simple implementation: per-thread bucket sets in shared memory (Fig 4.12 layout), batched "
         "register loads (TRISH), no transposition, per-block bucket folds applied atomically to the output",
         {true, Output::Buckets},
         [](const auto& c) { return mr::shared_perthread_comm_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) { return mr::shared_perthread_comm_scratch_bytes(c.n, c.m, c.tune); },
         commutative_only<Op>([](auto& c) {
           mr::shared_perthread_comm<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
         })});
}

#define LP_X(Op) template void add_sequential_variants<Op>(Defs<Op>&);
LP_MULTIREDUCE_FOR_EACH_OP(LP_X)

}  // namespace lp::multireduce_study
