// The multiscan study's variants, in the harness's table (framework.hpp), as the multireduce
// study's: each variant family (a .cu file here, one kernel header per algorithm in
// kernels/multiscan/) adds its definitions for every operator.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "apps/harness/framework.hpp"
#include "apps/multireduce/labeled_pairs.hpp"
#include "cpu_reference/multiscan/cpu_multiscan.hpp"
#include "kernels/multiscan/common.cuh"

namespace lp::multiscan_study {

using multiscan::Tuning;

// What a run sees: the pairs' context (apps/multireduce/labeled_pairs.hpp), the mode and the
// CPU variants' bucket array.
template <class Op>
struct Ctx : multireduce_study::PairsCtx<Op, Tuning> {
  bool inclusive = false;
  typename Op::value_type* host_buckets = nullptr;  // m entries, kept by the point
};

// The output a variant produces, which fixes how it is validated.
enum class Output {
  Results,       // n results in input order (every multiscan variant)
  ScanOfSorted,  // scan-by-key of the stable-sorted pairs: result j belongs to the j-th sorted input
};

// What the study needs to know of a variant beyond its launcher and predicates.
struct Props {
  Output output = Output::Results;
  bool inclusive_only = false;
  // Why the variant is not run on values equal to the identity (Sheffler's published form), or "".
  std::string identity_values_unsupported;
};

// A variant: {name, kind, description, {output, inclusive_only, identity_values_unsupported},
// unsupported(ctx), scratch(ctx), run(ctx)}.
template <class Op>
using Def = harness::Variant<Ctx<Op>, Props>;
template <class Op>
using Defs = harness::VariantTable<Def<Op>>;

// The operators of the multiscan: the multireduce study's, without "last" (a scatter,
// which has no use as a scan).
#define LP_MULTISCAN_FOR_EACH_OP(X)                                                               \
  X(::lp::multireduce::Add<std::int32_t>) X(::lp::multireduce::Add<std::int64_t>)                 \
  X(::lp::multireduce::Add<float>) X(::lp::multireduce::Min<std::int32_t>)                        \
  X(::lp::multireduce::Max<std::int32_t>) X(::lp::multireduce::Compose)

// The families, each in its own translation unit, instantiated for every operator above.
template <class Op> void add_cpu_variants(Defs<Op>&);        // Alg 2.3, 2.5
template <class Op> void add_peer_variants(Defs<Op>&);       // CUB sort + scan-by-key, Thrust on sorted keys
template <class Op> void add_partition_variants(Defs<Op>&);  // 5.1 vector_scan, 5.3 seq_global / seq_shared (Alg 5.2)
template <class Op> void add_sheffler_variants(Defs<Op>&);   // 5.4
template <class Op> void add_sort_variants(Defs<Op>&);       // Alg 5.3, Alg 5.4
template <class Op> void add_modern_variants(Defs<Op>&);     // beyond the thesis: single_pass, auto

// The record's account of auto at a point: the plan it ran and the profile it decided from.
template <class Op> harness::Params auto_metrics(const Ctx<Op>&);

}  // namespace lp::multiscan_study
