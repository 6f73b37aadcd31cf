// Ours: the map (our coalesced grid-stride kernel, kernels/join/split.cuh), He et al.'s multi-pass
// scatter and gather (reused from the scatter study, kernels/scatter/multipass.cuh), and their split
// (Algorithm 1, kernels/join/split.cuh) and ours staged by partition (kernels/join/split_staged.cuh).
#include "kernels/join/split.cuh"
#include "kernels/join/split_staged.cuh"
#include "kernels/scatter/multipass.cuh"
#include "variant.hpp"

namespace lp::primitives_study {

using harness::VariantKind;
namespace jk = lp::join;

void add_ours_variants(Defs& d) {
  d.add({"map", VariantKind::Ours,
         "map (He et al. 3.1.1): each key's partition id, hash(key) % fanout; a coalesced grid-stride kernel, 16-byte loads, two in flight per thread",
         {}, [](const Ctx& c) { return only(c, Op::Map); }, {},
         [](Ctx& c) { jk::map_partitions(c.dev.keys, c.n, c.fanout, c.dev_out.words, c.stream); }});
  d.add({"multipass", VariantKind::Ours,
         "scatter / gather (He et al. 3.1.2), their multi-pass scheme from the scatter study: passes of the 8-byte tuples, pass k "
         "writing (reading) only its slice of the n locations, the passes from their cost model for half the L2",
         {}, scatter_or_gather, {},
         [](Ctx& c) {
           lp::scatter::multipass<std::uint64_t>(c.op == Op::Gather, c.dev.loc, c.dev.tuples, c.n, std::uint32_t(c.n), c.dev_out.tuples,
                                                 lp::scatter::Tuning{}, c.stream);
         }});
  // Both splits: the split op only, at the sizes the kernels' 32-bit offsets and shared histogram allow.
  const auto split_sizes = [](const Ctx& c) {
    const std::string why = only(c, Op::Split);
    return why.empty() ? jk::split_unsupported(c.n, c.fanout) : why;
  };
  d.add({"split", VariantKind::Ours,
         "split (He et al. 3.1.4, Algorithm 1): per-block shared-memory histograms of the partition ids over contiguous chunks, the "
         "[fanout x blocks] matrix exclusive-scanned (CUB), then each block scatters its chunk through shared-memory atomic cursors",
         {},
         split_sizes,
         [](const Ctx& c) { return jk::split_scratch_bytes(c.n, c.fanout); },
         [](Ctx& c) { jk::split(c.dev.tuples, c.n, c.fanout, c.dev_out.tuples, c.scratch, c.scratch_bytes, c.stream); }});
  d.add({"split_staged", VariantKind::Ours,
         "ours: Algorithm 1 with each partition id computed once (the count pass writes them), one thread block a tile (8192 tuples "
         "up to fanout 256, 16384 beyond; the split_tile axis), each tile grouped by partition in shared memory before it is written, "
         "so that a partition's tuples leave as one run of consecutive addresses; the count matrix written and read a tile's row "
         "at a time, scanned by column",
         {},
         [split_sizes](const Ctx& c) {
           const std::string why = split_sizes(c);
           return why.empty() ? jk::split_staged_unsupported(c.n, c.fanout, c.split_tile) : why;
         },
         [](const Ctx& c) { return jk::split_staged_scratch_bytes(c.n, c.fanout, c.split_tile); },
         [](Ctx& c) { jk::split_staged(c.dev.tuples, c.n, c.fanout, c.dev_out.tuples, c.scratch, c.scratch_bytes, c.stream, c.split_tile); }});
}

}  // namespace lp::primitives_study
