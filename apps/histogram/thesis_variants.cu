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
  d.add({"podlozhnyuk64", VariantKind::Ours,
         "thesis 4.3.1, Podlozhnyuk's 64-bin histogram: per-thread 8-bit sub-histograms (192 threads), each on one bank, "
         "63 words per thread, per-block partials merged (bins <= 64)", {},
         [](const auto& c) { return h::podlozhnyuk64_unsupported(c.u8, c.bins, c.tune); },
         [](const auto& c) { return h::podlozhnyuk64_scratch_bytes(c.n, c.tune); },
         [](Ctx& c) { h::podlozhnyuk64(c.s8, c.n, c.bins, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  d.add({"podlozhnyuk256", VariantKind::Ours,
         "thesis 4.3.1, Podlozhnyuk's 256-bin histogram: per-warp sub-histograms with his software tagging update "
         "(lane id in the top 5 bits, retry until the own write survives)", {},
         [](const auto& c) { return h::podlozhnyuk256_unsupported(c.u8, c.bins, c.tune); },
         [](const auto& c) { return h::podlozhnyuk256_scratch_bytes<true>(c.n, c.tune); },
         [](Ctx& c) { h::podlozhnyuk256<true>(c.s8, c.n, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  d.add({"podlozhnyuk256_atomic", VariantKind::Ours,
         "thesis 4.3.1, Podlozhnyuk's 256-bin per-warp sub-histograms with shared-memory atomics (Nugteren et al.'s suggestion)", {},
         [](const auto& c) { return h::podlozhnyuk256_unsupported(c.u8, c.bins, c.tune); },
         [](const auto& c) { return h::podlozhnyuk256_scratch_bytes<false>(c.n, c.tune); },
         [](Ctx& c) { h::podlozhnyuk256<false>(c.s8, c.n, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  d.add({"nugteren", VariantKind::Ours,
         "thesis Alg 4.2 (Fig 4.3): one warp per block, per-thread 16-bit bins each on its own bank, no atomics, partials merged", {},
         [](const auto& c) { return h::trish_unsupported(c.u8, c.bins); },
         [](const auto& c) { return h::nugteren_scratch_bytes(c.n, c.tune); },
         [](Ctx& c) { h::nugteren(c.s8, c.n, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  d.add({"trish", VariantKind::Ours,
         "thesis Alg 4.3: 64 threads, per-thread 8-bit counters, flush to register buckets every 63 words with paired 16-bit adds, "
         "batched loads, partials merged", {},
         [](const auto& c) { return h::trish_unsupported(c.u8, c.bins); },
         [](const auto& c) { return h::trish_scratch_bytes(c.tune); },
         [](Ctx& c) { h::trish(c.s8, c.n, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  d.add({"banktrish", VariantKind::Ours,
         "thesis 4.5.2 (Fig 4.23): TRISH with factor x 64 threads (axis factor, default 8) sharing the 64 histograms by threadId "
         "mod 64, atomic updates, bundled equal bytes; flush every 63 / factor words", {},
         [](const auto& c) { return h::banktrish_unsupported(c.u8, c.bins, c.tune); },
         [](const auto& c) { return h::banktrish_scratch_bytes(c.tune); },
         [](Ctx& c) { h::banktrish(c.s8, c.n, c.out, c.scratch, c.scratch_bytes, c.tune, c.stream); }});

  d.add({"perbank_histogram", VariantKind::Ours,
         "thesis Alg 4.10: the multireduce study's per-bank kernel (32 atomic bucket sets, pair aggregation) with values fixed at 1 "
         "(u32 samples; it reads a values array of ones, as its interface takes one)", {true},
         [](const auto& c) -> std::string {
           if (c.u8) return "u32 samples only (the multireduce kernel reads 32-bit labels)";
           return mr::perbank_unsupported(c.n, c.bins, sizeof(std::uint32_t), h::as_multireduce(c.tune));
         },
         [](const auto& c) { return mr::perbank_scratch_bytes(c.n, c.bins, h::as_multireduce(c.tune)); },
         [](Ctx& c) {
           mr::perbank<mr::Add<std::uint32_t>>(c.s32, c.ones, c.n, c.bins, c.out, c.scratch, c.scratch_bytes, h::as_multireduce(c.tune),
                                               c.stream);
         }});
}

}  // namespace lp::histogram_study
