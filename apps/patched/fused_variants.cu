// Decode and patch in one kernel (kernels/patched/fused.cuh): G-ALP's per-lane cursors, the warp's
// cooperative apply of its chunk, and `auto` choosing a plan per column (auto.cuh).
#include "kernels/patched/auto.cuh"
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
         "ours: per column (metrics.plan): the plain decode without patches; fused_warp_apply for u8, and for u16 unless "
         "clustered (more than `dense` patches per patched chunk, default 256); fused (lane cursors) for u32/u64 and clustered u16", {}, {}, {},
         [](Ctx& c) { on_device(c, [&](const auto& a, auto* out) { pk::patched_auto(a, c.patched_chunks, out, c.tune, c.stream); }); }});
}

}  // namespace lp::patched_study
