// He et al.'s multi-pass scatter and gather (SC'07; thesis 3.2.2): `passes` traversals of the
// input, pass k touching only labels in [k m / p, (k + 1) m / p), so the buckets (scatter) or table
// entries (gather) a pass touches fit in the cache. Plain stores: of several inputs with one label
// any one wins, as in their definition (distinct write locations).
#pragma once
#include "common.cuh"
#include "multipass_model.hpp"

namespace lp::scatter {

namespace multipass_detail {
template <class W>
__global__ void scatter_pass(const std::uint32_t* __restrict__ labels, const W* __restrict__ values, std::int64_t n, std::uint32_t lo,
                             std::uint32_t width, W* __restrict__ out) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::uint32_t l = labels[i];
    if (l - lo < width) out[l] = values[i];  // unsigned: one compare tests lo <= l < lo + width
  }
}

template <class W>
__global__ void gather_pass(const std::uint32_t* __restrict__ labels, const W* __restrict__ table, std::int64_t n, std::uint32_t lo,
                            std::uint32_t width, W* __restrict__ out) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::uint32_t l = labels[i];
    if (l - lo < width) out[i] = table[l];
  }
}
}  // namespace multipass_detail

// The passes a point runs: the knob, else the cost model against half the L2 (the other half
// streams the labels and values).
inline int multipass_count(std::uint32_t m, std::size_t word_bytes, bool gather, const Tuning& t) {
  const int p = t.passes > 0 ? t.passes : multipass_passes(m, word_bytes, l2_bytes() / 2, gather);
  return int(std::min<std::int64_t>(p, std::max<std::uint32_t>(m, 1)));
}

template <class W>
void multipass(bool gather, const std::uint32_t* labels, const W* values, std::int64_t n, std::uint32_t m, W* out, const Tuning& t,
               cudaStream_t s) {
  if (n <= 0) return;
  const int passes = multipass_count(m, sizeof(W), gather, t);
  const int grid = grid_for(n, t), threads = threads_of(t);
  for (int k = 0; k < passes; ++k) {
    const std::uint32_t lo = std::uint32_t(std::uint64_t(m) * k / passes), hi = std::uint32_t(std::uint64_t(m) * (k + 1) / passes);
    if (gather) multipass_detail::gather_pass<W><<<grid, threads, 0, s>>>(labels, values, n, lo, hi - lo, out);
    else multipass_detail::scatter_pass<W><<<grid, threads, 0, s>>>(labels, values, n, lo, hi - lo, out);
    LP_CUDA_LAUNCH("multipass pass");
  }
}

}  // namespace lp::scatter
