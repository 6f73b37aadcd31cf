// Beyond the thesis (block- and cluster-private histograms, `auto`), the peer a user would call
// instead (cub::DeviceHistogram::HistogramEven), and the CPU baseline, all in the same run.
#include "apps/harness/auto_record.cuh"
#include "cpu_reference/histogram/cpu_histogram.hpp"
#include "kernels/histogram/auto_rule.hpp"
#include "kernels/histogram/cub_histogram_even.cuh"
#include "kernels/histogram/modern.cuh"
#include "variant.hpp"

namespace lp::histogram_study {

namespace h = lp::histogram;
using harness::VariantKind;

namespace {

namespace ar = h::auto_rule;
using ar::Plan;

ar::Sizes sizes_of(const Ctx& c) {
  ar::Sizes s;
  s.n = c.n;
  s.bins = c.bins;
  s.u8 = c.u8;
  s.block = c.u8 ? h::block_privatized_unsupported<std::uint8_t>(c.bins, c.tune).empty()
                 : h::block_privatized_unsupported<std::uint32_t>(c.bins, c.tune).empty();
  s.block32 = !c.u8 && h::block_width(c.bins) == h::modern_detail::Width::Full;
  s.windows = h::multireduce_shared_unsupported(c.u8, c.n, c.bins, c.tune).empty();
  s.cluster = h::cluster_privatized_unsupported(c.u8, c.bins, c.tune).empty();
  // CUB's support is a host query of its temporary storage (microseconds inside auto's timed call):
  // asked only where no plan of ours holds the bins.
  if (!s.block && !s.windows && !s.cluster)
    s.cub = c.u8 ? h::cub_histogram_even_unsupported<std::uint8_t, unsigned>(c.n, c.bins).empty()
                 : h::cub_histogram_even_unsupported<std::uint32_t, unsigned>(c.n, c.bins).empty();
  return s;
}

std::size_t plan_scratch(Plan p, const Ctx& c) {
  if (p == Plan::Windows) return h::multireduce_shared_scratch_bytes(c.n, c.bins, c.tune);
  if (p == Plan::Cub)
    return c.u8 ? h::cub_histogram_even_bytes<std::uint8_t, unsigned>(c.n, c.bins) : h::cub_histogram_even_bytes<std::uint32_t, unsigned>(c.n, c.bins);
  return 0;
}

void run_plan(Plan p, const Ctx& c, cudaStream_t s, std::size_t bytes) {
  switch (p) {
    case Plan::Block:
      if (c.u8) return h::block_privatized(c.s8, c.n, c.bins, c.out, c.tune, s);
      return h::block_privatized(c.s32, c.n, c.bins, c.out, c.tune, s);
    case Plan::Windows: return h::multireduce_shared(c.s32, c.n, c.bins, c.out, c.scratch, c.tune, s);
    case Plan::Cluster: return h::cluster_privatized(c.s32, c.n, c.bins, c.out, c.tune, s);
    case Plan::Cub:
      if (c.u8) return h::cub_histogram_even(c.s8, c.n, c.bins, reinterpret_cast<unsigned*>(c.out), c.scratch, bytes, s);
      return h::cub_histogram_even(c.s32, c.n, c.bins, reinterpret_cast<unsigned*>(c.out), c.scratch, bytes, s);
    default: throw std::logic_error("histogram auto: no plan");
  }
}

// auto: the plan by sizes where they settle it; else the profile pass decides on the device and runs
// the plan inside one graph (kernels/common/auto_launch.cuh). Looks happen on u32 samples only.
void run_auto(Ctx& c) {
  profile::run_auto(ar::Rule{sizes_of(c)}, plan_key("histogram/auto", c.s8, c.s32, c.out, c.tune), profile::Columns<std::uint32_t>{c.s32, c.n, c.bins},
                    c.scratch, c.scratch_bytes, [&c](Plan p, cudaStream_t s, std::size_t bytes) { run_plan(p, c, s, bytes); }, c.stream);
}

}  // namespace

harness::Params auto_metrics(const Ctx& c) {
  return harness::auto_record(ar::Rule{sizes_of(c)}, profile::Columns<std::uint32_t>{c.s32, c.n, c.bins}, c.scratch, c.scratch_bytes);
}

void add_modern_variants(Defs& d) {
  d.add({"block_privatized", VariantKind::Ours,
         "ours: block-private shared histograms, 32-bit counters (16-bit, two per word, moved to the output in phases before they can overflow, where a 32-bit copy "
         "does not fit a block), up to 32 copies (one per bank: 256 bins get 32), 16-byte loads; "
         "u8: words and vectors of equal bytes as one update; u32: equal samples bundled, warps on one bin combined", {},
         [](const auto& c) {
           return c.u8 ? h::block_privatized_unsupported<std::uint8_t>(c.bins, c.tune) : h::block_privatized_unsupported<std::uint32_t>(c.bins, c.tune);
         },
         {},
         [](Ctx& c) {
           if (c.u8) h::block_privatized(c.s8, c.n, c.bins, c.out, c.tune, c.stream);
           else h::block_privatized(c.s32, c.n, c.bins, c.out, c.tune, c.stream);
         }});

  d.add({"cluster_privatized", VariantKind::Ours,
         "ours (Hopper): one 32-bit histogram per thread-block cluster (2..16 blocks, axis cluster) in distributed shared memory, "
         "16-byte loads, equal samples bundled; u32 samples, up to 4 passes beyond 16 blocks' shared memory", {},
         [](const auto& c) { return h::cluster_privatized_unsupported(c.u8, c.bins, c.tune); },
         {},
         [](Ctx& c) { h::cluster_privatized(c.s32, c.n, c.bins, c.out, c.tune, c.stream); }});

  d.add({"multireduce_shared", VariantKind::Ours,
         "ours: the multireduce study's shared_privatized kernel on the samples as labels with a count of one (up to 4 label "
         "windows of a block's shared memory, re-read from L2); u32 samples", {},
         [](const auto& c) { return h::multireduce_shared_unsupported(c.u8, c.n, c.bins, c.tune); },
         [](const auto& c) { return c.u8 ? std::size_t(0) : h::multireduce_shared_scratch_bytes(c.n, c.bins, c.tune); },
         [](Ctx& c) { h::multireduce_shared(c.s32, c.n, c.bins, c.out, c.scratch, c.tune, c.stream); }});

  d.add({"auto", VariantKind::Ours,
         "ours: block_privatized while one copy of the bins fits a block (32-bit, then 16-bit counters), multireduce_shared up to 4 "
         "label windows, cluster_privatized above; where the windows serve, an input profile on the device sends samples of one "
         "bin everywhere to the cluster, inside one CUDA graph (auto_rule.hpp)", {},
         [](const auto& c) {
           const auto z = sizes_of(c);
           return z.block || z.windows || z.cluster || z.cub ? std::string() : std::string("no plan holds these bins");
         },
         [](const auto& c) { return profile::auto_scratch_bytes(sizes_of(c), [&c](Plan p) { return plan_scratch(p, c); }); },
         [](Ctx& c) { run_auto(c); }});

  d.add({"cub_histogram_even", VariantKind::Peer,
         "cub::DeviceHistogram::HistogramEven on the samples (u8 or u32), bins + 1 even levels over [0, bins)", {},
         [](const auto& c) {
           return c.u8 ? h::cub_histogram_even_unsupported<std::uint8_t, unsigned>(c.n, c.bins)
                     : h::cub_histogram_even_unsupported<std::uint32_t, unsigned>(c.n, c.bins);
         },
         [](const auto& c) {
           return c.u8 ? h::cub_histogram_even_bytes<std::uint8_t, unsigned>(c.n, c.bins) : h::cub_histogram_even_bytes<std::uint32_t, unsigned>(c.n, c.bins);
         },
         [](Ctx& c) {
           unsigned* out = reinterpret_cast<unsigned*>(c.out);
           if (c.u8) h::cub_histogram_even(c.s8, c.n, c.bins, out, c.scratch, c.scratch_bytes, c.stream);
           else h::cub_histogram_even(c.s32, c.n, c.bins, out, c.scratch, c.scratch_bytes, c.stream);
         }});

  d.add({"cpu_sequential", VariantKind::Cpu, "the sequential count on one core (also the reference)", {}, {}, {},
         [](Ctx& c) {
           if (c.u8) cpu::histogram_sequential(c.host_s8, c.n, c.bins, c.host_out);
           else cpu::histogram_sequential(c.host_s32, c.n, c.bins, c.host_out);
         }});
}

}  // namespace lp::histogram_study
