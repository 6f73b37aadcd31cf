// The libraries a user would call instead: thrust::scatter / thrust::gather, and CUB's radix sort
// by every label bit followed by a scatter of each label's last input (strict) or a gather put back
// in input order.
#include "kernels/scatter/sorted.cuh"
#include "kernels/scatter/thrust_peer.cuh"
#include "variant.hpp"

namespace lp::scatter_study {

namespace sc = lp::scatter;
using harness::VariantKind;

template <class W>
void add_peer_variants(Defs<W>& d) {
  d.add({"thrust", VariantKind::Peer, "thrust::scatter (equal labels: any one wins) / thrust::gather", {false}, {}, {},
         [](Ctx<W>& c) { sc::thrust_scatter_gather<W>(c.gather, c.labels, c.values, c.n, c.out, c.stream); }});
  d.add({"cub_sort", VariantKind::Peer,
         "cub::DeviceRadixSort::SortPairs by every label bit, then each label's last input (scatter: last one wins) / a gather put back "
         "in input order",
         {true}, {}, [](const auto& c) { return sc::sorted_scratch_bytes<W>(c.gather, c.n, c.m, lp::label_bits(c.m)); },
         [](Ctx<W>& c) {
           sc::sorted<W>(c.gather, true, lp::label_bits(c.m), c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.tune,
                         c.stream);
         }});
}

template void add_peer_variants<std::uint32_t>(Defs<std::uint32_t>&);
template void add_peer_variants<std::uint64_t>(Defs<std::uint64_t>&);

}  // namespace lp::scatter_study
