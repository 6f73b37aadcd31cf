// How the multiscan study binds a variant name to a launcher (the multireduce study's scheme):
// each variant family (a .cu file here, one kernel header per algorithm in kernels/multiscan/)
// appends its definitions for every operator; the study knows variants only through this table.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "apps/harness/study.hpp"
#include "cpu_reference/multiscan/cpu_multiscan.hpp"
#include "kernels/multiscan/common.cuh"

namespace lp::multiscan_study {

using multiscan::Tuning;

template <class Op>
struct Ctx {
  using T = typename Op::value_type;
  const std::uint32_t* labels = nullptr;  // device
  const T* values = nullptr;              // device
  std::int64_t n = 0;
  std::uint32_t m = 0;
  bool inclusive = false;
  T* out = nullptr;  // device, n results
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;
  Tuning tune;
  cudaStream_t stream = nullptr;
  const std::uint32_t* host_labels = nullptr;
  const T* host_values = nullptr;
  T* host_out = nullptr;
  T* host_buckets = nullptr;                          // m entries, kept by the point
  cpu::SortScratch<T>* host_sort_scratch = nullptr;  // kept by the point: no allocation in timed runs
  // Stable-sorted copies for the peer measured on pre-sorted keys (the lower bound); device.
  const std::uint32_t* sorted_labels = nullptr;
  const T* sorted_values = nullptr;
};

template <class Op>
using RunFn = std::function<void(Ctx<Op>&)>;

// The output a variant produces, which fixes how it is validated.
enum class Output {
  Results,       // n results in input order (every multiscan variant)
  ScanOfSorted,  // scan-by-key of the stable-sorted pairs: result j belongs to the j-th sorted input
};

template <class Op>
struct Def {
  std::string name;
  harness::VariantKind kind;
  std::string description;
  Output output = Output::Results;
  bool inclusive_only = false;
  // Why this variant cannot run at (n, m, tuning), or "" when it can.
  std::function<std::string(std::int64_t, std::uint32_t, const Tuning&)> unsupported;
  // Device scratch bytes it needs at (n, m, tuning).
  std::function<std::size_t(std::int64_t, std::uint32_t, const Tuning&)> scratch;
  RunFn<Op> run;
  // Why the variant is not run on values equal to the identity (Sheffler's published form), or "".
  std::string identity_values_unsupported;
};

template <class Op>
using Defs = std::vector<Def<Op>>;

// The operators of the multiscan (issue 5): the multireduce study's, without "last" (a scatter,
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

}  // namespace lp::multiscan_study
