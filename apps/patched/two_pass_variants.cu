// Decode, then apply the patches in a second pass: the baseline a user writes (thrust::scatter of
// the plain exception list), the seed's lane-parallel apply, and one thread per chunk (the skew case).
#include <type_traits>

#include "kernels/patched/chunk_apply.cuh"
#include "kernels/patched/lane_apply.cuh"
#include "kernels/patched/thrust_scatter.cuh"
#include "variant.hpp"

namespace lp::patched_study {

namespace pk = lp::patched;
using harness::VariantKind;

void add_two_pass_variants(Defs& d) {
  d.add({"decode_thrust_scatter", VariantKind::Peer,
         "the FastLanes decode kernel (fused.cuh, no patches), then thrust::scatter of the patch values to their global positions "
         "(u32, ascending): what a user writes without the lane layout", {}, {}, {},
         [](Ctx& c) {
           on_device(c, [&](const auto& a, auto* out) {
             using T = std::remove_pointer_t<decltype(out)>;
             pk::decode_thrust_scatter(a, c.positions, static_cast<const T*>(c.plain_values), c.count, out, c.tune, c.stream);
           });
         }});

  d.add({"decode_lane_apply", VariantKind::Ours,
         "the seed's lane-parallel apply as a second kernel: decode, then one thread per (chunk, lane) walks the lane's patches "
         "through lane_offsets", {}, {}, {},
         [](Ctx& c) { on_device(c, [&](const auto& a, auto* out) { pk::decode_lane_apply(a, out, c.tune, c.stream); }); }});

  d.add({"decode_chunk_apply", VariantKind::Ours,
         "naive: decode, then one thread per 1024-element chunk walks all of its patches (clustered patches serialise)", {}, {}, {},
         [](Ctx& c) { on_device(c, [&](const auto& a, auto* out) { pk::decode_chunk_apply(a, out, c.tune, c.stream); }); }});
}

}  // namespace lp::patched_study
