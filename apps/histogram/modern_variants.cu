// Beyond the thesis (block- and cluster-private histograms, `auto`), the peer a user would call
// instead (cub::DeviceHistogram::HistogramEven), and the CPU baseline, all in the same run.
#include <cub/device/device_histogram.cuh>

#include "cpu_reference/histogram/cpu_histogram.hpp"
#include "kernels/histogram/modern.cuh"
#include "variant.hpp"

namespace lp::histogram_study {

namespace h = lp::histogram;
using harness::VariantKind;

namespace {

// CUB's temporary storage for (sample type, n, bins); asked in prepare(), outside the timed region.
template <class T>
std::size_t cub_temp_bytes(std::int64_t n, std::uint32_t bins) {
  std::size_t bytes = 0;
  LP_CUDA(cub::DeviceHistogram::HistogramEven(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<unsigned*>(nullptr),
                                              int(bins) + 1, 0, int(bins), int(n)));
  return bytes;
}

template <class T>
void cub_run(const T* samples, Ctx& c) {
  std::size_t bytes = c.scratch_bytes;
  // Levels are int: 256 bins of byte samples need an upper level of 256, which a byte cannot hold.
  LP_CUDA(cub::DeviceHistogram::HistogramEven(c.scratch, bytes, samples, reinterpret_cast<unsigned*>(c.out), int(c.bins) + 1, 0,
                                              int(c.bins), int(c.n), c.stream));
}

}  // namespace

void add_modern_variants(Defs& d) {
  d.push_back({"block_privatized", VariantKind::Ours,
               "ours: block-private shared histograms, 32-bit counters, up to 32 copies (one per bank: 256 bins get 32), 16-byte loads; "
               "u8: words and vectors of equal bytes as one update; u32: equal samples bundled, warps on one bin combined",
               [](bool u8, std::int64_t, std::uint32_t bins, const Tuning& t) {
                 return u8 ? h::block_privatized_unsupported<std::uint8_t>(bins, t) : h::block_privatized_unsupported<std::uint32_t>(bins, t);
               },
               {},
               [](Ctx& c) {
                 if (c.u8) h::block_privatized(c.s8, c.n, c.bins, c.out, c.tune, c.stream);
                 else h::block_privatized(c.s32, c.n, c.bins, c.out, c.tune, c.stream);
               }});

  d.push_back({"cluster_privatized", VariantKind::Ours,
               "ours (Hopper): one 32-bit histogram per thread-block cluster (2..16 blocks, axis cluster) in distributed shared memory, "
               "16-byte loads, equal samples bundled; u32 samples, up to 4 passes beyond 16 blocks' shared memory",
               [](bool u8, std::int64_t, std::uint32_t bins, const Tuning& t) { return h::cluster_privatized_unsupported(u8, bins, t); },
               {},
               [](Ctx& c) { h::cluster_privatized(c.s32, c.n, c.bins, c.out, c.tune, c.stream); }});

  d.push_back({"auto", VariantKind::Ours,
               "ours: block_privatized for byte samples and for u32 histograms of which two copies fit a block, cluster_privatized above",
               [](bool u8, std::int64_t, std::uint32_t bins, const Tuning& t) {
                 if (h::auto_uses_cluster(u8, bins)) return h::cluster_privatized_unsupported(u8, bins, t);
                 return u8 ? h::block_privatized_unsupported<std::uint8_t>(bins, t) : h::block_privatized_unsupported<std::uint32_t>(bins, t);
               },
               {},
               [](Ctx& c) {
                 if (c.u8) h::histogram_auto(c.s8, c.n, c.bins, c.out, c.tune, c.stream);
                 else h::histogram_auto(c.s32, c.n, c.bins, c.out, c.tune, c.stream);
               }});

  d.push_back({"cub_histogram_even", VariantKind::Peer,
               "cub::DeviceHistogram::HistogramEven on the samples (u8 or u32), bins + 1 even levels over [0, bins)",
               [](bool, std::int64_t n, std::uint32_t, const Tuning&) {
                 return n > (std::int64_t(1) << 31) - 1 ? std::string("CUB counts samples in int here") : std::string();
               },
               [](bool u8, std::int64_t n, std::uint32_t bins, const Tuning&) {
                 return u8 ? cub_temp_bytes<std::uint8_t>(n, bins) : cub_temp_bytes<std::uint32_t>(n, bins);
               },
               [](Ctx& c) {
                 if (c.u8) cub_run(c.s8, c);
                 else cub_run(c.s32, c);
               }});

  d.push_back({"cpu_sequential", VariantKind::Cpu, "the sequential count on one core (also the reference)", {}, {},
               [](Ctx& c) {
                 if (c.u8) cpu::histogram_sequential(c.host_s8, c.n, c.bins, c.host_out);
                 else cpu::histogram_sequential(c.host_s32, c.n, c.bins, c.host_out);
               }});
}

}  // namespace lp::histogram_study
