// The multireduce study's variants, in the harness's table (framework.hpp). Each variant family (a
// .cu file here, one kernel header per algorithm in kernels/multireduce/) adds its definitions for
// every operator: a new variant is one entry in a family file, a new family one file and one line
// in table() (multireduce_study.cu).
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "apps/harness/framework.hpp"
#include "apps/harness/sharded_buckets.cuh"
#include "kernels/multireduce/common.cuh"
#include "labeled_pairs.hpp"

namespace lp::multireduce_study {

using multireduce::Tuning;

// What a run sees: the pairs' context (labeled_pairs.hpp) and the keys of SegmentsOfSorted.
template <class Op>
struct Ctx : PairsCtx<Op, Tuning> {
  std::uint32_t* out_keys = nullptr;  // device, m: keys of Output::SegmentsOfSorted
  harness::ShardedBuckets<Op>* sharded = nullptr;  // the sharded variants' GPUs and inputs
  bool streamed = false;                           // source 'host': the inputs stay in pinned host memory
};

template <class Op>
using RunFn = std::function<void(Ctx<Op>&)>;

// The output a variant produces, which fixes how it is validated and its minimal traffic.
enum class Output {
  Buckets,           // m buckets (every multireduce variant)
  SegmentsOfSorted,  // reduce-by-key of the pre-sorted pairs: (key, value) per run (Fig 3.6)
  ScanOfSorted,      // scan-by-key of the pre-sorted pairs: n values (Fig 3.6)
  CountOnly,         // a histogram of the labels: only valid where every value is 1
};

// What the study needs to know of a variant beyond its launcher and predicates.
struct Props {
  bool needs_commutative = false;
  Output output = Output::Buckets;
  bool sharded = false;  // runs over the point's GPUs (gpus, source axes) through ShardedBuckets
  harness::Combine combine = harness::Combine::Reduce;
};

// A variant: {name, kind, description, {needs_commutative, output}, unsupported(ctx), scratch(ctx), run(ctx)}.
template <class Op>
using Def = harness::Variant<Ctx<Op>, Props>;
template <class Op>
using Defs = harness::VariantTable<Def<Op>>;

// A run function only for commutative operators; the kernel is never instantiated for the others.
template <class Op, class F>
RunFn<Op> commutative_only(F f) {
  if constexpr (Op::commutative) return RunFn<Op>(f);
  else return nullptr;
}

inline std::string limit_m(std::uint32_t m, std::uint32_t max_m, const char* why) {
  return m > max_m ? "m = " + std::to_string(m) + " exceeds " + std::to_string(max_m) + " (" + why + ")" : "";
}

// The families. Each is defined in its own translation unit and instantiated for every operator of
// LP_MULTIREDUCE_FOR_EACH_OP, so a family compiles in parallel with the others.
template <class Op> void add_cpu_variants(Defs<Op>&);
template <class Op> void add_peer_variants(Defs<Op>&);
template <class Op> void add_sequential_variants(Defs<Op>&);  // thesis 4.1, 4.3.2, 4.3.5, 4.3.6 (per-thread)
template <class Op> void add_perbank_variants(Defs<Op>&);     // thesis Alg 4.9, 4.10, 4.11 and multipass
template <class Op> void add_sort_variants(Defs<Op>&);        // thesis 4.4.1, Alg 4.13, Fig 4.22
template <class Op> void add_modern_variants(Defs<Op>&);      // beyond the thesis, and `auto`
template <class Op> void add_sharded_variants(Defs<Op>&);     // several GPUs, streamed inputs

// The record's account of auto at a point: the plan it ran and the profile it decided from
// (modern_variants.cu, beside auto).
template <class Op> harness::Params auto_metrics(const Ctx<Op>&);

// In each family's file:
//   #define LP_X(Op) template void add_<family>_variants<Op>(Defs<Op>&);
//   LP_MULTIREDUCE_FOR_EACH_OP(LP_X)

}  // namespace lp::multireduce_study
