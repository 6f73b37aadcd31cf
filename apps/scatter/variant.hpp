// The scatter/gather study's variants, in the harness's table (framework.hpp). Each family (a .cu
// file here, one kernel header per algorithm in kernels/scatter/) adds its definitions, for both
// word widths the study moves (4-byte int32/float32 values, 8-byte int64).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "apps/harness/framework.hpp"
#include "apps/multireduce/labeled_pairs.hpp"
#include "kernels/scatter/common.cuh"

namespace lp::scatter_study {

// The pairs' context wants an operator type only for its value type: here a raw word.
template <class W>
struct Words {
  using value_type = W;
};

// What a run sees: the labels; the n values (scatter) or the m-entry table (gather); the output
// (m buckets or n results, poisoned, never initialised by the variant: unnamed buckets keep their
// contents, thesis 1.2); scratch; knobs; the host copies for the CPU variants; the probe's salt.
template <class W>
struct Ctx : multireduce_study::PairsCtx<Words<W>, scatter::Tuning> {
  bool gather = false;
  std::uint32_t salt = 0;
};

// Which of thesis 1.2's two scatter definitions a variant meets (a gather is always exact).
struct Props {
  bool strict = true;  // "the last one wins"; false: "any one wins"
};

template <class W>
using Def = harness::Variant<Ctx<W>, Props>;
template <class W>
using Defs = harness::VariantTable<Def<W>>;

// Where a variant works on one operation only.
template <class C>
std::string scatter_only(const C& c) { return c.gather ? "scatter only" : ""; }

template <class W>
void add_thesis_variants(Defs<W>&);  // Alg 2.1/2.4/2.6 on the CPU, Alg 3.3 and mirror, strict naive, He et al., 4.5.1
template <class W>
void add_modern_variants(Defs<W>&);  // beyond the thesis, `auto`, the random-access probe
template <class W>
void add_peer_variants(Defs<W>&);    // thrust::scatter/gather, CUB sort then scatter/gather

// The record's account of auto at a point: the plan it ran and the profile it decided from.
template <class W>
harness::Params auto_metrics(const Ctx<W>&);

}  // namespace lp::scatter_study
