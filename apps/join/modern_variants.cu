// Beyond He et al.: one global hash table of R (kernels/join/global_hash.cuh), SMJ on inputs that
// arrive sorted (its merge step alone), and `auto`, choosing among all the joins by predicate, key
// type and sizes.
#include "kernels/join/global_hash.cuh"
#include "kernels/join/index_nested_loop.cuh"
#include "kernels/join/nested_loop.cuh"
#include "kernels/join/radix_hash.cuh"
#include "kernels/join/sort_merge.cuh"
#include "variant.hpp"

namespace lp::join_study {

using harness::VariantKind;
namespace jk = lp::join;

namespace {

std::string global_hash_limits(const Ctx& c) {
  const std::string e = equi_only(c);
  return e.empty() ? jk::global_hash_unsupported(c.nr) : e;
}

std::size_t global_hash_scratch(const Ctx& c) {
  return for_key<std::size_t>(c.key_bytes, [&](auto k) { return jk::global_hash_scratch_bytes<decltype(k)>(c.nr); });
}

void global_hash_run(Ctx& c) {
  on_device(c, [&](const auto* r, std::int64_t nr, const auto* s, std::int64_t ns) {
    jk::global_hash_join(r, nr, s, ns, c.d_out, c.capacity, c.scratch, c.stream);
  });
}

std::string smj_limits(const Ctx& c) {
  const std::string e = equi_only(c);
  return e.empty() ? jk::sort_merge_unsupported(c.nr, c.ns, c.pairs) : e;
}

std::size_t smj_scratch(const Ctx& c) {
  return for_key<std::size_t>(c.key_bytes, [&](auto k) { return jk::sort_merge_scratch_bytes<decltype(k)>(c.nr, c.ns); });
}

// auto's rule, from the H100's measurements (results/h100/join/README.md): a band predicate has
// only the nested loop. An equi-join takes the global hash table while R's table (2 |R| slots of 8
// or 16 bytes) fits the L2 and S is at most 64 times R (every probe an L2 hit, one pass over S:
// fastest at |R| <= 2^20); INLJ on the CSS-tree when S is larger still (R's sorted index stays in
// L2 and the probes' writes stream; the table's probe loop then costs more); and, with R and S both
// large, SMJ (its sorts stream where the table's build and probes go to HBM at random), or the
// radix HJ for int64 keys (its shared-memory tables beat the 64-bit sort's eight passes).
std::string auto_choice(const Ctx& c) {
  if (c.band > 0) return "nlj";
  const double table = 2.0 * double(c.nr) * (c.key_bytes == 4 ? 8.0 : 16.0);
  const bool fits_l2 = table <= double(lp::l2_bytes());
  const bool s_dominates = double(c.ns) > 64.0 * double(c.nr);
  if (fits_l2 && !s_dominates && global_hash_limits(c).empty()) return "global_hash";
  if (s_dominates && jk::index_nested_loop_unsupported(c.nr, c.pairs).empty()) return "inlj_css";
  if (c.key_bytes == 8 && jk::radix_hash_unsupported(c.nr, c.ns).empty()) return "hj";
  return smj_limits(c).empty() ? "smj" : "global_hash";
}

}  // namespace

void add_modern_variants(Defs& d) {
  d.add({"global_hash", VariantKind::Ours,
         "ours: one open-addressing hash table of R in global memory (2^k >= 2|R| slots, linear probing), built in one pass, probed "
         "in one pass over S; the pairs out through one warp-aggregated counter (no partitioning, no sort, no count pass)",
         {}, global_hash_limits, global_hash_scratch, global_hash_run});
  d.add({"smj_presorted", VariantKind::Ours,
         "SMJ on relations that arrive sorted (the sort done untimed before the runs): the merge step alone, two sorted searches, "
         "the scan and the expansion; its throughput against the copy ceiling is the merge step's",
         Props{[](Ctx& c) {
                 on_device(c, [&](const auto* r, std::int64_t nr, const auto* s, std::int64_t ns) {
                   jk::sort_merge_sort(r, nr, s, ns, c.scratch, c.scratch_bytes, c.stream);
                 });
               },
               {}, {}},
         smj_limits, smj_scratch, [](Ctx& c) {
           with_key(c.key_bytes, [&](auto k) {
             jk::sort_merge_merge<decltype(k)>(c.nr, c.ns, c.d_out, c.capacity, c.scratch, c.scratch_bytes, c.stream);
           });
         }});
  d.add({"auto", VariantKind::Ours,
         "the join for the point: nlj for a band predicate; global_hash while R's table fits the L2 and |S| <= 64 |R|; inlj_css "
         "for larger S; else smj (hj for int64 keys); the choice is reported as the metric `chose`",
         Props{{}, {}, auto_choice},
         [](const Ctx& c) {
           const std::string pick = auto_choice(c);
           return pick == "nlj" ? jk::nested_loop_unsupported(c.nr, c.ns) : pick == "global_hash" ? global_hash_limits(c) : std::string();
         },
         [](const Ctx& c) {
           const std::string pick = auto_choice(c);
           return for_key<std::size_t>(c.key_bytes, [&](auto k) -> std::size_t {
             using K = decltype(k);
             if (pick == "nlj") return jk::nested_loop_scratch_bytes();
             if (pick == "global_hash") return jk::global_hash_scratch_bytes<K>(c.nr);
             if (pick == "inlj_css") return jk::index_nested_loop_scratch_bytes<K>(c.nr, c.ns);
             if (pick == "hj") return jk::radix_hash_scratch_bytes<K>(c.nr, c.ns, hj_bits(c));
             return jk::sort_merge_scratch_bytes<K>(c.nr, c.ns);
           });
         },
         [](Ctx& c) {
           const std::string pick = auto_choice(c);
           on_device(c, [&](const auto* r, std::int64_t nr, const auto* s, std::int64_t ns) {
             if (pick == "nlj") jk::nested_loop_join(r, nr, s, ns, c.band, c.d_out, c.capacity, c.scratch, c.stream);
             else if (pick == "global_hash") jk::global_hash_join(r, nr, s, ns, c.d_out, c.capacity, c.scratch, c.stream);
             else if (pick == "inlj_css")
               jk::index_nested_loop_join<jk::InljIndex::CssTree>(r, nr, s, ns, c.d_out, c.capacity, c.scratch, c.scratch_bytes, c.stream);
             else if (pick == "hj") jk::radix_hash_join(r, nr, s, ns, hj_bits(c), c.d_out, c.capacity, c.scratch, c.scratch_bytes, c.stream);
             else jk::sort_merge_join(r, nr, s, ns, c.d_out, c.capacity, c.scratch, c.scratch_bytes, c.stream);
           });
         }});
}

}  // namespace lp::join_study
