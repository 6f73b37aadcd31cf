// Decode and patch in one kernel (kernels/patched/fused.cuh): G-ALP's per-lane cursors, the warp's
// cooperative apply of its chunk, and `auto` choosing between them per warp.
#include "kernels/patched/fused.cuh"
#include "variant.hpp"

namespace lp::patched_study {

namespace pk = lp::patched;
using harness::VariantKind;

void add_fused_variants(Defs& d) {
  d.add({"fused", VariantKind::Ours,
         "G-ALP (DaMoN 2025): FastLanes unpacking with each lane's patches swapped in as its rows come out, one pending patch per "
         "lane in registers (lane_offsets seek); patched values never make a second trip through memory", {}, {}, {},
         [](Ctx& c) { on_device(c, [&](const auto& a, auto* out) { pk::fused(a, out, c.tune, c.stream); }); }});

  d.add({"fused_warp_apply", VariantKind::Ours,
         "ours: FastLanes unpacking, then in the same kernel the warp applies its chunk's patches together (coalesced reads of the "
         "chunk's range, independent of how patches fall on lanes)", {}, {}, {},
         [](Ctx& c) { on_device(c, [&](const auto& a, auto* out) { pk::fused_warp_apply(a, out, c.tune, c.stream); }); }});

  d.add({"auto", VariantKind::Ours,
         "ours: fused (lane cursors) for warps whose chunks hold at most `dense` patches (default 128), the warp's cooperative apply "
         "for denser ones (clustered patches)", {}, {}, {},
         [](Ctx& c) { on_device(c, [&](const auto& a, auto* out) { pk::fused_auto(a, out, c.tune, c.stream); }); }});
}

}  // namespace lp::patched_study
