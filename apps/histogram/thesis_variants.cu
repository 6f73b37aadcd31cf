// The thesis's histogram algorithms (4.3.1: Podlozhnyuk, Nugteren Alg 4.2, TRISH Alg 4.3; 4.5.2:
// BankTRISH) and the per-bank multireduce (Alg 4.10) counting with values fixed at 1.
#include "kernels/histogram/banktrish.cuh"
#include "kernels/histogram/nugteren.cuh"
#include "kernels/histogram/podlozhnyuk256.cuh"
#include "kernels/histogram/podlozhnyuk64.cuh"
#include "kernels/histogram/trish.cuh"
#include "kernels/multireduce/perbank.cuh"
#include "variant.hpp"

namespace lp::histogram_study {

namespace h = lp::histogram;
namespace mr = lp::multireduce;
using harness::VariantKind;

void add_thesis_variants(Defs& d) {
  d.push_back({"podlozhnyuk64", VariantKind::Ours,
               "thesis 4.3.1, Podlozhnyuk's 64-bin histogram: per-thread 8-bit sub-histograms (192 threads), each on one bank, "
               "63 words per thread, per-block partials merged (bins <= 64)",
               [](bool u8, std::int64_t, std::uint32_t bins, const Tuning& t) { return h::podlozhnyuk64_unsupported(u8, bins, t); },
               [](bool, std::int64_t n, std::uint32_t, const Tuning& t) { return h::podlozhnyuk64_scratch_bytes(n, t); },
               [](Ctx& c) { h::podlozhnyuk64(c.s8, c.n, c.bins, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  d.push_back({"podlozhnyuk256", VariantKind::Ours,
               "thesis 4.3.1, Podlozhnyuk's 256-bin histogram: per-warp sub-histograms with his software tagging update "
               "(lane id in the top 5 bits, retry until the own write survives)",
               [](bool u8, std::int64_t, std::uint32_t bins, const Tuning& t) { return h::podlozhnyuk256_unsupported(u8, bins, t); },
               [](bool, std::int64_t n, std::uint32_t, const Tuning& t) { return h::podlozhnyuk256_scratch_bytes<true>(n, t); },
               [](Ctx& c) { h::podlozhnyuk256<true>(c.s8, c.n, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  d.push_back({"podlozhnyuk256_atomic", VariantKind::Ours,
               "thesis 4.3.1, Podlozhnyuk's 256-bin per-warp sub-histograms with shared-memory atomics (Nugteren et al.'s suggestion)",
               [](bool u8, std::int64_t, std::uint32_t bins, const Tuning& t) { return h::podlozhnyuk256_unsupported(u8, bins, t); },
               [](bool, std::int64_t n, std::uint32_t, const Tuning& t) { return h::podlozhnyuk256_scratch_bytes<false>(n, t); },
               [](Ctx& c) { h::podlozhnyuk256<false>(c.s8, c.n, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  d.push_back({"nugteren", VariantKind::Ours,
               "thesis Alg 4.2 (Fig 4.3): one warp per block, per-thread 16-bit bins each on its own bank, no atomics, partials merged",
               [](bool u8, std::int64_t, std::uint32_t bins, const Tuning&) { return h::trish_unsupported(u8, bins); },
               [](bool, std::int64_t n, std::uint32_t, const Tuning& t) { return h::nugteren_scratch_bytes(n, t); },
               [](Ctx& c) { h::nugteren(c.s8, c.n, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  d.push_back({"trish", VariantKind::Ours,
               "thesis Alg 4.3: 64 threads, per-thread 8-bit counters, flush to register buckets every 63 words with paired 16-bit adds, "
               "batched loads, partials merged",
               [](bool u8, std::int64_t, std::uint32_t bins, const Tuning&) { return h::trish_unsupported(u8, bins); },
               [](bool, std::int64_t, std::uint32_t, const Tuning& t) { return h::trish_scratch_bytes(t); },
               [](Ctx& c) { h::trish(c.s8, c.n, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  d.push_back({"banktrish", VariantKind::Ours,
               "thesis 4.5.2 (Fig 4.23): TRISH with factor x 64 threads (axis factor, default 8) sharing the 64 histograms by threadId "
               "mod 64, atomic updates, bundled equal bytes; flush every 63 / factor words",
               [](bool u8, std::int64_t, std::uint32_t bins, const Tuning& t) { return h::banktrish_unsupported(u8, bins, t); },
               [](bool, std::int64_t, std::uint32_t, const Tuning& t) { return h::banktrish_scratch_bytes(t); },
               [](Ctx& c) { h::banktrish(c.s8, c.n, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  d.push_back({"perbank_histogram", VariantKind::Ours,
               "thesis Alg 4.10: the multireduce study's per-bank kernel (32 atomic bucket sets, pair aggregation) with values fixed at 1 "
               "(u32 samples; it reads a values array of ones, as its interface takes one)",
               [](bool u8, std::int64_t n, std::uint32_t bins, const Tuning& t) -> std::string {
                 if (u8) return "u32 samples only (the multireduce kernel reads 32-bit labels)";
                 return mr::perbank_unsupported(n, bins, sizeof(std::uint32_t), h::as_multireduce(t));
               },
               [](bool, std::int64_t n, std::uint32_t bins, const Tuning& t) { return mr::perbank_scratch_bytes(n, bins, h::as_multireduce(t)); },
               [](Ctx& c) {
                 mr::perbank<mr::Add<std::uint32_t>>(c.s32, c.ones, c.n, c.bins, c.out, c.scratch, c.scratch_bytes, h::as_multireduce(c.tune),
                                                     c.stream);
               },
               true});
}

}  // namespace lp::histogram_study
