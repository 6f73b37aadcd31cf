// Decode and patch in one kernel (kernels/patched/fused.cuh): G-ALP's per-lane cursors, the warp's
// cooperative apply of its chunk, and `auto`, which picks a plan per column from a profile of the
// layout's lane_offsets computed on the device (auto.cuh, auto_rule.hpp).
#include <type_traits>

#include "apps/harness/auto_record.cuh"
#include "kernels/patched/auto.cuh"
#include "kernels/patched/fused.cuh"
#include "variant.hpp"

namespace lp::patched_study {

namespace pk = lp::patched;
using harness::VariantKind;

namespace {
template <class T>
pk::PlainPatches<T> plain_of(const Ctx& c) {
  return {c.positions, static_cast<const T*>(c.plain_values)};
}
// The column auto sees: the float column's ALP form where it has one (its sizes say so).
template <class T>
pk::auto_rule::Sizes sizes_of(const Ctx& c) {
  return with_column<T>(c, [&](const auto& a) { return pk::auto_sizes(a, plain_of<T>(c), c.tune); });
}
}  // namespace

harness::Params auto_metrics(const Ctx& c) {
  harness::Params out;
  with_type(c.bytes, [&](auto t) {
    using T = decltype(t);
    out = harness::auto_record(pk::auto_rule::Rule{sizes_of<T>(c)}, pk::auto_columns(device<T>(c)), c.scratch, c.scratch_bytes);
  });
  return out;
}

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
         "ours, per column (metrics.plan, auto_rule.hpp): the plain decode without patches; decode + thrust::scatter from half the "
         "values patched; under 256 MiB fused (u64: the peer from 4096 values); above it by the type, fused_warp_apply (u8, u16) or "
         "fused (u32, u64), and where clustering changes the answer, a look on the device at "
         "lane_offsets first (the fraction of lanes holding a patch): patches clustered beyond `dense` per patched lane (x a chunk's "
         "lanes, default 256) take decode_thrust_scatter below a rate per type, else the best of ours there; float columns (ALP) by "
         "their exception rate, no look: decode_thrust_scatter below 1%, then fused_warp_apply (f32, to 15%) or fused",
         {},
         {},
         [](const Ctx& c) {
           std::size_t bytes = 0;
           with_type(c.bytes, [&](auto t) { bytes = pk::auto_scratch_bytes(sizes_of<decltype(t)>(c)); });
           return bytes;
         },
         [](Ctx& c) {
           on_device(c, [&](const auto& a, auto* out) {
             using T = std::remove_pointer_t<decltype(out)>;
             pk::patched_auto(a, plain_of<T>(c), out, c.scratch, c.scratch_bytes, c.tune, c.stream);
           });
         }});
}

}  // namespace lp::patched_study
