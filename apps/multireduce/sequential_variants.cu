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

  d.push_back({"vector_reduce", VariantKind::Ours,
               "thesis 4.1: ordinary tree reduce over m-vectors (one-hot inputs, ordered warp butterflies, O(n m) work), then the "
               "ordered fold of the block vectors; m <= 64",
               false, Output::Buckets,
               [](std::int64_t n, std::uint32_t m, const Tuning& t) { return mr::vector_reduce_unsupported(n, m, t); },
               [](std::int64_t n, std::uint32_t m, const Tuning& t) { return mr::vector_reduce_scratch_bytes<T>(n, m, t); },
               [](Ctx<Op>& c) { mr::vector_reduce<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  d.push_back({"minimal", VariantKind::Ours,
               "thesis Alg 4.4: coalesced tile fetch to shared memory, one thread per block folds it sequentially into the block's "
               "bucket set in global memory, Fig 4.2 ordered reduction of the block sets",
               false, Output::Buckets,
               [](std::int64_t n, std::uint32_t m, const Tuning& t) { return mr::minimal_unsupported(n, m, sizeof(T), t); },
               [](std::int64_t n, std::uint32_t m, const Tuning& t) { return mr::minimal_scratch_bytes<T>(n, m, t); },
               [](Ctx<Op>& c) { mr::minimal<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  d.push_back({"global_noncomm", VariantKind::Ours,
               "thesis Alg 4.8 in Alg 4.7 (Fig 4.7): each thread folds its contiguous segment, transposed through shared memory "
               "(transpose: padded/segment/baxter), into its own bucket set in global memory; ordered reduction of the sets",
               false, Output::Buckets,
               [](std::int64_t n, std::uint32_t m, const Tuning& t) { return mr::global_noncomm_unsupported(n, m, sizeof(T), t); },
               [](std::int64_t n, std::uint32_t m, const Tuning& t) { return mr::global_noncomm_scratch_bytes<T>(n, m, t); },
               [](Ctx<Op>& c) {
                 mr::global_noncomm<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
               }});

  d.push_back({"global_noncomm_sorted", VariantKind::Ours,
               "thesis Fig 4.9: stable cub::DeviceRadixSort of the pairs by the label bits (top sort_bits only if set), then "
               "global_noncomm on the sorted pairs",
               false, Output::Buckets,
               [](std::int64_t n, std::uint32_t m, const Tuning& t) { return mr::global_noncomm_sorted_unsupported(n, m, sizeof(T), t); },
               [](std::int64_t n, std::uint32_t m, const Tuning& t) { return mr::global_noncomm_sorted_scratch_bytes<T>(n, m, t); },
               [](Ctx<Op>& c) {
                 mr::global_noncomm_sorted<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
               }});

  d.push_back({"shared_perthread_noncomm", VariantKind::Ours,
               "thesis 4.3.6 (Fig 4.12, 4.13): per-thread bucket sets in shared memory (bucket b of thread t at b*nThreads+t), each "
               "thread folds its contiguous segment via transposed loads (n_items, default 8); ordered reduction of the sets",
               false, Output::Buckets,
               [](std::int64_t n, std::uint32_t m, const Tuning& t) { return mr::shared_perthread_noncomm_unsupported(n, m, sizeof(T), t); },
               [](std::int64_t n, std::uint32_t m, const Tuning& t) { return mr::shared_perthread_noncomm_scratch_bytes<T>(n, m, t); },
               [](Ctx<Op>& c) {
                 mr::shared_perthread_noncomm<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
               }});

  d.push_back({"shared_perthread_comm", VariantKind::Ours,
               "thesis 4.3.6 commutative simple implementation: per-thread bucket sets in shared memory (Fig 4.12 layout), batched "
               "register loads (TRISH), no transposition, per-block bucket folds applied atomically to the output",
               true, Output::Buckets,
               [](std::int64_t n, std::uint32_t m, const Tuning& t) { return mr::shared_perthread_comm_unsupported(n, m, sizeof(T), t); },
               [](std::int64_t n, std::uint32_t m, const Tuning& t) { return mr::shared_perthread_comm_scratch_bytes(n, m, t); },
               commutative_only<Op>([](auto& c) {
                 mr::shared_perthread_comm<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
               })});
}

#define LP_X(Op) template void add_sequential_variants<Op>(Defs<Op>&);
LP_MULTIREDUCE_FOR_EACH_OP(LP_X)

}  // namespace lp::multireduce_study
