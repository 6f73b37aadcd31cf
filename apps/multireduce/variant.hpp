// How the multireduce study binds a variant name to a launcher. Each variant family (a .cu file
// here, one kernel header per algorithm in kernels/multireduce/) appends its definitions for every
// operator; the study knows variants only through this table.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "apps/harness/study.hpp"
#include "cpu_reference/multireduce/cpu_multireduce.hpp"
#include "kernels/multireduce/common.cuh"

namespace lp::multireduce_study {

using multireduce::Tuning;

// What a run sees: device inputs and output (GPU variants), host inputs and output (CPU variants),
// the variant's scratch and its knobs.
template <class Op>
struct Ctx {
  using T = typename Op::value_type;
  const std::uint32_t* labels = nullptr;  // device
  const T* values = nullptr;              // device
  std::int64_t n = 0;
  std::uint32_t m = 0;
  T* out = nullptr;  // device, m buckets; the variant initialises it (inside the timed region)
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;
  Tuning tune;
  cudaStream_t stream = nullptr;
  const std::uint32_t* host_labels = nullptr;
  const T* host_values = nullptr;
  T* host_out = nullptr;
  cpu::SortScratch<T>* host_sort_scratch = nullptr;  // kept by the point: no allocation in timed runs
  // Pre-sorted copies (stable by label) for the peers measured on sorted keys (Fig 3.6); device.
  const std::uint32_t* sorted_labels = nullptr;
  const T* sorted_values = nullptr;
  std::uint32_t* out_keys = nullptr;  // device, m: keys of Output::SegmentsOfSorted
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

template <class Op>
struct Def {
  std::string name;
  harness::VariantKind kind;
  std::string description;
  bool needs_commutative = false;
  Output output = Output::Buckets;
  // Why this variant cannot run at (n, m, tuning), or "" when it can (commutativity is checked
  // from needs_commutative).
  std::function<std::string(std::int64_t, std::uint32_t, const Tuning&)> unsupported;
  // Device scratch bytes it needs at (n, m, tuning).
  std::function<std::size_t(std::int64_t, std::uint32_t, const Tuning&)> scratch;
  RunFn<Op> run;  // empty where the operator cannot be expressed (a commutative-only variant)
};

template <class Op>
using Defs = std::vector<Def<Op>>;

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

// In each family's file:
//   #define LP_X(Op) template void add_<family>_variants<Op>(Defs<Op>&);
//   LP_MULTIREDUCE_FOR_EACH_OP(LP_X)

}  // namespace lp::multireduce_study
