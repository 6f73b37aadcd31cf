// The histogram study's variants, in the harness's table (framework.hpp). Each family (a .cu file
// here, one kernel header per algorithm in kernels/histogram/) adds its definitions.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "apps/harness/framework.hpp"
#include "apps/harness/sharded_buckets.cuh"
#include "kernels/histogram/common.cuh"
#include "kernels/multireduce/operators.hpp"

namespace lp::histogram_study {

using histogram::Tuning;

// What a run sees: the samples on the device (GPU variants) or the host (CPU variants), the output
// (bins uint32 counts; GPU variants initialise it inside the timed region), scratch and knobs.
struct Ctx {
  bool u8 = true;                        // sample type: u8 or u32
  const std::uint8_t* s8 = nullptr;      // device samples (u8)
  const std::uint32_t* s32 = nullptr;    // device samples (u32)
  std::int64_t n = 0;
  std::uint32_t bins = 0;
  std::uint32_t* out = nullptr;          // device
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;
  const std::uint32_t* ones = nullptr;   // device, n ones: the values of perbank_histogram
  Tuning tune;
  cudaStream_t stream = nullptr;
  const std::uint8_t* host_s8 = nullptr;
  const std::uint32_t* host_s32 = nullptr;
  std::uint32_t* host_out = nullptr;
  harness::ShardedBuckets<multireduce::Add<std::uint32_t>>* sharded = nullptr;  // the sharded variants' GPUs and inputs
  bool streamed = false;  // source 'host': the samples stay in pinned host memory
};
using Counts = multireduce::Add<std::uint32_t>;  // how the sharded variants combine the shards' counts

// What the study needs to know of a variant beyond its launcher and predicates.
struct Props {
  bool needs_ones = false;  // reads a values array of ones (the multireduce kernels' interface)
  bool sharded = false;     // runs over the point's GPUs (gpus, source axes) through ShardedBuckets
  harness::Combine combine = harness::Combine::Reduce;
};

// A variant: {name, kind, description, {needs_ones}, unsupported(ctx), scratch(ctx), run(ctx)}.
using Def = harness::Variant<Ctx, Props>;
using Defs = harness::VariantTable<Def>;

void add_thesis_variants(Defs&);  // thesis 4.3.1 (Podlozhnyuk, Nugteren, TRISH), 4.5.2 (BankTRISH), Alg 4.10
void add_modern_variants(Defs&);  // beyond the thesis, `auto`, the CUB peer and the CPU baseline
void add_sharded_variants(Defs&);  // several GPUs, streamed samples

// The record's account of auto at a point: the plan it ran and the profile it decided from.
harness::Params auto_metrics(const Ctx&);

}  // namespace lp::histogram_study
