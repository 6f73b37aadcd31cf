// The sort-based multireduce of the thesis (4.4): sort the pairs by label, then a segmented reduce,
// either over the whole input (4.4.1) or per block in shared memory (Alg 4.13, Fig 4.22).
#include "kernels/multireduce/sort_global.cuh"
#include "kernels/multireduce/sort_shared.cuh"
#include "variant.hpp"

namespace lp::multireduce_study {

namespace mr = lp::multireduce;

template <class Op>
void add_sort_variants(Defs<Op>& d) {
  using harness::VariantKind;
  d.add({"sort_global", VariantKind::Ours,
         "thesis 4.4.1 (Alg 4.12, no partitioning): cub::DeviceRadixSort::SortPairs by ceil(log2 m) bits, then our "
         "reduce-by-key comparing adjacent labels on the fly, runs written to their buckets (tile carries fixed up in order)",
         {false, Output::Buckets},
         [](const auto& c) {
           return c.n > (std::int64_t(1) << 31) - 1 ? std::string("CUB's radix sort is called with int counts") : std::string();
         },
         [](const auto& c) { return mr::sort_global_scratch_bytes<Op>(c.n, c.m, c.tune); },
         [](Ctx<Op>& c) { mr::sort_global<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  // Both shared-memory variants keep n_sets x m partial buckets, refused beyond
  // mr::kSortSharedMaxPartialsBytes.
  auto partials_limit = [](auto transposed) {
    return [](const auto& c) {
      const std::size_t bytes = mr::sort_shared_partials_bytes<Op, decltype(transposed)::value>(c.n, c.m, c.tune);
      return bytes > mr::kSortSharedMaxPartialsBytes ? "partial bucket sets need " + std::to_string(bytes) + " bytes (> 4 GiB)"
                                                     : std::string();
    };
  };
  // The striped kernel is instantiated for commutative operators only (its limits too).
  Def<Op> plain{"sort_shared", VariantKind::Ours,
                "thesis Alg 4.13 (4.4.3): per tile of threads x n_items (default 256 x 12) striped loads, cub::BlockRadixSort, "
                "three-phase segmented reduce into per-block bucket sets, then their reduce (striped loads reorder: commutative only)",
                {true, Output::Buckets}, {}, {}, nullptr};
  if constexpr (Op::commutative) {
    plain.unsupported = partials_limit(std::false_type{});
    plain.scratch = [](const auto& c) { return mr::sort_shared_scratch_bytes<Op, false>(c.n, c.m, c.tune); };
    plain.run = commutative_only<Op>([](auto& c) {
      mr::sort_shared<Op, false>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
    });
  }
  d.add(std::move(plain));
  d.add({"sort_shared_transposed", VariantKind::Ours,
         "thesis Fig 4.22 (Alg 4.13 with Baxter's transposition, Alg 4.5): blocked loads through shared memory keep input "
         "order, so non-commutative operators are exact; default 256 threads x 12 items",
         {false, Output::Buckets}, partials_limit(std::true_type{}),
         [](const auto& c) { return mr::sort_shared_scratch_bytes<Op, true>(c.n, c.m, c.tune); },
         [](Ctx<Op>& c) {
           mr::sort_shared<Op, true>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream);
         }});
}

#define LP_X(Op) template void add_sort_variants<Op>(Defs<Op>&);
LP_MULTIREDUCE_FOR_EACH_OP(LP_X)

}  // namespace lp::multireduce_study
