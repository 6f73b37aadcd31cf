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

// auto's rule: a band predicate has only the nested loop. An equi-join takes the global hash table
// where it is cheap: R small enough that its table (2 |R| slots of 8 or 16 bytes) stays in L2, or
// S at least 16 times larger than R, so that the table's build and its random accesses are a
// small part of one streaming pass over S. Elsewhere (|R| and |S| alike and large, the table in
// HBM) it takes SMJ, whose sorts stream: on the H100 before the packed-slot table, SMJ was the
// fastest at |R| = |S| >= 2^24 and the table's random build and probe cost it 2-4x there
// (results/h100/join/README.md has the measured crossover).
bool hash_table_pays(const Ctx& c) {
  const double table = 2.0 * double(c.nr) * (c.key_bytes == 4 ? 8.0 : 16.0);
  return table <= 0.5 * double(lp::l2_bytes()) || double(c.ns) >= 16.0 * double(c.nr);
}

std::string auto_choice(const Ctx& c) {
  if (c.band > 0) return "nlj";
  if (global_hash_limits(c).empty() && hash_table_pays(c)) return "global_hash";
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
         "the join for the point: nlj for a band predicate; global_hash where R's table fits half the L2 or |S| >= 16 |R|; "
         "else smj; the choice is reported as the metric `chose`",
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
