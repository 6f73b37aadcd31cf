// The GPU joins: He et al.'s blocked NINLJ (kernels/join/nested_loop.cuh; equi or band), SMJ on
// CUB's radix sort and our vectorized sorted search (kernels/join/sort_merge.cuh), and ours, one
// global hash table of R probed once by S (kernels/join/global_hash.cuh).
#include "kernels/join/global_hash.cuh"
#include "kernels/join/nested_loop.cuh"
#include "kernels/join/sort_merge.cuh"
#include "variant.hpp"

namespace lp::join_study {

using harness::VariantKind;
namespace jk = lp::join;

void add_gpu_variants(Defs& d) {
  d.add({"nlj", VariantKind::Ours,
         "NINLJ (He et al. 4.1), blocked: a block stages 2048 S keys in shared memory and streams R past them; equi or band "
         "predicate (|R| |S| <= 2^40)",
         {}, [](const Ctx& c) { return jk::nested_loop_unsupported(c.nr, c.ns); }, [](const Ctx&) { return jk::nested_loop_scratch_bytes(); },
         [](Ctx& c) {
           on_device(c, [&](const auto* r, std::int64_t nr, const auto* s, std::int64_t ns) {
             jk::nested_loop_join(r, nr, s, ns, c.band, c.d_out, c.capacity, c.scratch, c.stream);
           });
         }});
  d.add({"smj", VariantKind::Ours,
         "SMJ (He et al. 4.3): CUB radix sort of both relations (rids carried), ModernGPU's sorted search for each S key's range of "
         "equal R keys (lower bound, SortedEqualityCount), a scan of the counts, then each S tuple writes its pairs",
         {},
         [](const Ctx& c) {
           const std::string e = equi_only(c);
           return e.empty() ? jk::sort_merge_unsupported(c.nr, c.ns, c.pairs) : e;
         },
         [](const Ctx& c) {
           return for_key<std::size_t>(c.key_bytes, [&](auto k) { return jk::sort_merge_scratch_bytes<decltype(k)>(c.nr, c.ns); });
         },
         [](Ctx& c) {
           on_device(c, [&](const auto* r, std::int64_t nr, const auto* s, std::int64_t ns) {
             jk::sort_merge_join(r, nr, s, ns, c.d_out, c.capacity, c.scratch, c.scratch_bytes, c.stream);
           });
         }});
  d.add({"global_hash", VariantKind::Ours,
         "ours: one open-addressing hash table of R in global memory (2^k >= 2|R| slots, linear probing), built in one pass, probed "
         "in one pass over S; the pairs out through one warp-aggregated counter (no partitioning, no sort, no count pass)",
         {},
         [](const Ctx& c) {
           const std::string e = equi_only(c);
           return e.empty() ? jk::global_hash_unsupported(c.nr) : e;
         },
         [](const Ctx& c) {
           return for_key<std::size_t>(c.key_bytes, [&](auto k) { return jk::global_hash_scratch_bytes<decltype(k)>(c.nr); });
         },
         [](Ctx& c) {
           on_device(c, [&](const auto* r, std::int64_t nr, const auto* s, std::int64_t ns) {
             jk::global_hash_join(r, nr, s, ns, c.d_out, c.capacity, c.scratch, c.stream);
           });
         }});
}

}  // namespace lp::join_study
