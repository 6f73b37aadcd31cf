// Beyond the thesis: a histogram of more bins than one block copy holds, counted by the multireduce
// study's shared-memory kernel (kernels/multireduce/shared_privatized.cuh: per-block bucket sets,
// up to 4 label windows whose blocks re-read the same samples from L2) fed the samples as labels
// and a count of one each (CountSource): the kernel is shared, not copied.
#pragma once
#include <cstdint>
#include <string>

#include "../multireduce/operators.hpp"
#include "../multireduce/shared_privatized.cuh"
#include "common.cuh"

namespace lp::histogram {

// u32 samples as a multireduce source: the label is the sample (its bin), the value one.
struct CountSource {
  using value_type = std::uint32_t;
  const std::uint32_t* samples;
  __device__ __forceinline__ multireduce::Quad<std::uint32_t> quad(std::int64_t q) const {
    const uint4 l = __ldg(reinterpret_cast<const uint4*>(samples) + q);
    return {{l.x, l.y, l.z, l.w}, {1u, 1u, 1u, 1u}};
  }
  __device__ __forceinline__ std::uint32_t label(std::int64_t i) const { return __ldg(samples + i); }
  __device__ __forceinline__ std::uint32_t value(std::int64_t) const { return 1u; }
};

inline std::string multireduce_shared_unsupported(bool u8, std::int64_t n, std::uint32_t bins, const Tuning& t) {
  if (u8) return "u32 samples only (byte samples have at most 256 bins: block_privatized)";
  if (multireduce::shared_privatized_plan<std::uint32_t>(n, bins, as_multireduce(t)).copies == 0)
    return "bins = " + std::to_string(bins) + " need more than " + std::to_string(multireduce::kMaxParts) + " windows of a block's shared memory";
  return "";
}

inline std::size_t multireduce_shared_scratch_bytes(std::int64_t n, std::uint32_t bins, const Tuning& t) {
  return multireduce::shared_privatized_scratch_bytes<std::uint32_t>(n, bins, as_multireduce(t));
}

// Writes every bin (the kernel initialises its output).
inline void multireduce_shared(const std::uint32_t* samples, std::int64_t n, std::uint32_t bins, std::uint32_t* out, void* scratch,
                               const Tuning& t, cudaStream_t s) {
  if (n <= 0) {
    LP_CUDA(cudaMemsetAsync(out, 0, std::size_t(bins) * 4, s));
    return;
  }
  multireduce::shared_privatized<multireduce::Add<std::uint32_t>>(CountSource{samples}, n, bins, out, scratch, as_multireduce(t), s);
}

}  // namespace lp::histogram
