// Beyond He et al.: the best equi-join we can build for today's GPU (one global hash table of R,
// kernels/join/global_hash.cuh), SMJ on inputs that arrive sorted (its merge step alone), and
// `auto`, choosing among the joins by predicate and size.
#include "kernels/join/global_hash.cuh"
#include "kernels/join/nested_loop.cuh"
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

// auto's rule: a band predicate has only the nested loop; an equi-join takes the global hash table
// (one pass over each relation; fastest at every measured size, skew and key type on the H100:
// results/h100/join/README.md), or SMJ where |R| is beyond the table's 32-bit tags.
std::string auto_choice(const Ctx& c) {
  if (c.band > 0) return "nlj";
  if (global_hash_limits(c).empty()) return "global_hash";
  return "smj";
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
         "the join for the point: nlj for a band predicate, else global_hash (smj where |R| >= 2^32 - 1); the choice is "
         "reported as the metric `chose`",
         Props{{}, {}, auto_choice},
         [](const Ctx& c) {
           const std::string pick = auto_choice(c);
           if (pick == "nlj") return jk::nested_loop_unsupported(c.nr, c.ns);
           return pick == "smj" ? smj_limits(c) : std::string();
         },
         [](const Ctx& c) {
           const std::string pick = auto_choice(c);
           return pick == "nlj" ? jk::nested_loop_scratch_bytes() : pick == "smj" ? smj_scratch(c) : global_hash_scratch(c);
         },
         [](Ctx& c) {
           const std::string pick = auto_choice(c);
           if (pick == "global_hash") return global_hash_run(c);
           on_device(c, [&](const auto* r, std::int64_t nr, const auto* s, std::int64_t ns) {
             if (pick == "nlj") jk::nested_loop_join(r, nr, s, ns, c.band, c.d_out, c.capacity, c.scratch, c.stream);
             else jk::sort_merge_join(r, nr, s, ns, c.d_out, c.capacity, c.scratch, c.scratch_bytes, c.stream);
           });
         }});
}

}  // namespace lp::join_study
