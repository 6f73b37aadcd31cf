// Beyond the thesis: the scatter and gather swept with a common front and wide accesses, `auto`, and
// the random-access probe that is this study's limit.
#include "apps/harness/auto_record.cuh"
#include "kernels/scatter/auto.cuh"
#include "kernels/scatter/privatized.cuh"
#include "kernels/scatter/probe.cuh"
#include "kernels/scatter/wide.cuh"
#include "variant.hpp"

namespace lp::scatter_study {

namespace sc = lp::scatter;
using harness::VariantKind;

namespace {
template <class W>
sc::auto_rule::Sizes sizes_of(const Ctx<W>& c) {
  return sc::auto_sizes(c.gather, c.n, c.m, sizeof(W));
}
}  // namespace

template <class W>
harness::Params auto_metrics(const Ctx<W>& c) {
  return harness::auto_record(sc::auto_rule::Rule{sizes_of(c)}, profile::Columns<std::uint32_t>{c.labels, c.n, c.m}, c.scratch, c.scratch_bytes);
}

template <class W>
void add_modern_variants(Defs<W>& d) {
  d.add({"wide", VariantKind::Ours,
         "all blocks sweep one front (grid stride), 16-byte label and vector value loads, 8 random accesses in flight per thread; any one wins",
         {false}, {}, {}, [](Ctx<W>& c) { sc::wide<W>(c.gather, c.labels, c.values, c.n, c.out, c.tune, c.stream); }});
  d.add({"privatized", VariantKind::Ours,
         "strict scatter (last one wins) reading labels only: each block keeps 1 + the last position per bucket in shared memory, bids "
         "once per touched bucket in global memory, then each bucket takes its winner's value (m <= shared memory / 4)",
         {true},
         [](const auto& c) {
           const std::string why = scatter_only(c);
           return why.empty() ? sc::privatized_unsupported(c.m) : why;
         },
         [](const auto& c) { return sc::naive_strict_scratch_bytes(c.m); },
         [](Ctx<W>& c) { sc::privatized_strict_scatter<W>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.tune, c.stream); }});
  d.add({"auto", VariantKind::Ours,
         "by n, m, the word and the L2 (metrics.plan): gather: multipass (L2/2 < buckets <= 2 L2), thrust's elsewhere, no look; "
         "scatter: thrust under 2^17 inputs, wide for inputs under a quarter of the buckets, privatized where its shared bids fit, wide elsewhere; from 2^24 inputs an input profile on "
         "the device sends spread labels to the table's regimes (privatized over 64 inputs a bucket, naive_strict in the L2, multipass, "
         "cub_sort's full sort) and labels in order, in runs or on a hot bucket to wide, privatized or one pass at m <= 2 "
         "(auto_rule.hpp). Any one wins",
         {false}, {},
         [](const auto& c) {
           return profile::auto_scratch_bytes(sizes_of(c), [&c](sc::auto_rule::Plan p) { return sc::auto_plan_scratch<W>(p, c.gather, c.n, c.m); });
         },
         [](Ctx<W>& c) {
           profile::run_auto(sc::auto_rule::Rule{sizes_of(c)}, plan_key("scatter/auto", sizeof(W), c.gather, c.labels, c.values, c.out, c.tune),
                             profile::Columns<std::uint32_t>{c.labels, c.n, c.m}, c.scratch, c.scratch_bytes,
                             [&c](sc::auto_rule::Plan p, cudaStream_t s, std::size_t bytes) {
                               sc::auto_run_plan<W>(p, c.gather, c.labels, c.values, c.n, c.m, c.out, c.scratch, bytes, c.tune, s);
                             },
                             c.stream);
         }});
  d.add({"probe", VariantKind::Probe,
         "the limit: n random one-word writes (scatter) or reads (gather) over the m-word array at computed positions, no labels or values read",
         {false}, {}, {},
         [](Ctx<W>& c) { sc::random_access_probe<W>(c.gather, c.values, c.n, c.m, c.salt, c.out, c.tune, c.stream); }});
}

template void add_modern_variants<std::uint32_t>(Defs<std::uint32_t>&);
template void add_modern_variants<std::uint64_t>(Defs<std::uint64_t>&);
template harness::Params auto_metrics<std::uint32_t>(const Ctx<std::uint32_t>&);
template harness::Params auto_metrics<std::uint64_t>(const Ctx<std::uint64_t>&);

}  // namespace lp::scatter_study
