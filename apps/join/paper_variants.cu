// He et al. 2008's GPU joins (docs/references.md, section 4):
// the blocked NINLJ (kernels/join/nested_loop.cuh; equi or band), INLJ over a CSS-tree and over a
// plain binary search (index_nested_loop.cuh), SMJ on CUB's radix sort and our vectorized sorted
// search (sort_merge.cuh), and the radix-partitioned hash join (radix_hash.cuh).
#include "kernels/join/index_nested_loop.cuh"
#include "kernels/join/nested_loop.cuh"
#include "kernels/join/radix_hash.cuh"
#include "kernels/join/sort_merge.cuh"
#include "variant.hpp"

namespace lp::join_study {

using harness::VariantKind;
namespace jk = lp::join;

namespace {

// The equi-joins' supported-when: the equi predicate, then the algorithm's own limits.
template <class F>
std::function<std::string(const Ctx&)> equi_and(F limits) {
  return [limits](const Ctx& c) {
    const std::string e = equi_only(c);
    return e.empty() ? limits(c) : e;
  };
}

template <jk::InljIndex Index>
Def inlj(const char* name, const char* description) {
  return {name, VariantKind::Ours, description, {},
          equi_and([](const Ctx& c) { return jk::index_nested_loop_unsupported(c.nr, c.pairs); }),
          [](const Ctx& c) {
            return for_key<std::size_t>(c.key_bytes, [&](auto k) { return jk::index_nested_loop_scratch_bytes<decltype(k)>(c.nr, c.ns); });
          },
          [](Ctx& c) {
            on_device(c, [&](const auto* r, std::int64_t nr, const auto* s, std::int64_t ns) {
              jk::index_nested_loop_join<Index>(r, nr, s, ns, c.d_out, c.capacity, c.scratch, c.scratch_bytes, c.stream);
            });
          }};
}

}  // namespace

int hj_bits(const Ctx& c) { return jk::radix_hash_bits(c.nr, c.radix_bits); }

void add_paper_variants(Defs& d) {
  d.add({"nlj", VariantKind::Ours,
         "NINLJ (He et al. 4.1), blocked: a block stages 2048 S keys in shared memory and streams R past them; equi or band "
         "predicate (|R| |S| <= 2^40)",
         {}, [](const Ctx& c) { return jk::nested_loop_unsupported(c.nr, c.ns); }, [](const Ctx&) { return jk::nested_loop_scratch_bytes(); },
         [](Ctx& c) {
           on_device(c, [&](const auto* r, std::int64_t nr, const auto* s, std::int64_t ns) {
             jk::nested_loop_join(r, nr, s, ns, c.band, c.d_out, c.capacity, c.scratch, c.stream);
           });
         }});
  d.add(inlj<jk::InljIndex::CssTree>(
      "inlj_css",
      "INLJ (He et al. 4.2): R sorted (CUB radix sort) under a CSS-tree built on the GPU (128-byte nodes, fanout 33 int32 / 17 "
      "int64), each S tuple searches it, then count, scan, write; the index built inside the timed run"));
  d.add(inlj<jk::InljIndex::BinarySearch>(
      "inlj_bs", "INLJ's baseline index: the same sorted R searched by plain binary search per S tuple, then count, scan, write"));
  d.add({"smj", VariantKind::Ours,
         "SMJ (He et al. 4.3): CUB radix sort of both relations (rids carried), ModernGPU's sorted search for each S key's range of "
         "equal R keys (lower bound, SortedEqualityCount), a scan of the counts, then each S tuple writes its pairs",
         {}, equi_and([](const Ctx& c) { return jk::sort_merge_unsupported(c.nr, c.ns, c.pairs); }),
         [](const Ctx& c) {
           return for_key<std::size_t>(c.key_bytes, [&](auto k) { return jk::sort_merge_scratch_bytes<decltype(k)>(c.nr, c.ns); });
         },
         [](Ctx& c) {
           on_device(c, [&](const auto* r, std::int64_t nr, const auto* s, std::int64_t ns) {
             jk::sort_merge_join(r, nr, s, ns, c.d_out, c.capacity, c.scratch, c.scratch_bytes, c.stream);
           });
         }});
  d.add({"hj", VariantKind::Ours,
         "HJ (He et al. 4.4): both relations split by the top bits of the key hash (CUB's stable radix sort on the partition ids: "
         "the paper's multi-pass split) into R partitions of ~1024 tuples, then per (partition, 2048-tuple S chunk) a block builds "
         "the R partition's hash table in shared memory and probes it; count, scan, write (radix_bits: the knob)",
         Props{{}, hj_bits},
         equi_and([](const Ctx& c) { return jk::radix_hash_unsupported(c.nr, c.ns); }),
         [](const Ctx& c) {
           return for_key<std::size_t>(c.key_bytes, [&](auto k) { return jk::radix_hash_scratch_bytes<decltype(k)>(c.nr, c.ns, hj_bits(c)); });
         },
         [](Ctx& c) {
           on_device(c, [&](const auto* r, std::int64_t nr, const auto* s, std::int64_t ns) {
             jk::radix_hash_join(r, nr, s, ns, hj_bits(c), c.d_out, c.capacity, c.scratch, c.scratch_bytes, c.stream);
           });
         }});
}

}  // namespace lp::join_study
