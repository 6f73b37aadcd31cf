// The strict scatter of thesis 1.2 ("the last one wins"; the multireduce whose operator keeps the
// last value) on the naive scheme: every input bids its position for its label with atomicMax, then
// each bucket takes the value of the highest bidder. Exact whatever the threads' order.
#pragma once
#include "common.cuh"

namespace lp::scatter {

namespace strict_detail {
// winner[l] = 1 + the last position with label l (0: no input names l). n < 2^32 (the study's n).
template <int = 0>  // a template: header-defined kernels stay one definition per program
__global__ void bid_kernel(const std::uint32_t* __restrict__ labels, std::int64_t n, std::uint32_t* __restrict__ winner) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    atomicMax(winner + labels[i], std::uint32_t(i + 1));
}

// Bucket-ordered, so the result writes are coalesced; only the winners' values are read.
template <class W>
__global__ void take_kernel(const std::uint32_t* __restrict__ winner, const W* __restrict__ values, std::uint32_t m, W* __restrict__ out) {
  for (std::int64_t b = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; b < m; b += std::int64_t(gridDim.x) * blockDim.x) {
    const std::uint32_t w = winner[b];
    if (w) out[b] = values[w - 1];
  }
}
}  // namespace strict_detail

inline std::size_t naive_strict_scratch_bytes(std::uint32_t m) { return align256(std::size_t(m) * 4); }

template <class W>
void naive_strict_scatter(const std::uint32_t* labels, const W* values, std::int64_t n, std::uint32_t m, W* out, void* scratch,
                          const Tuning& t, cudaStream_t s) {
  if (n <= 0) return;
  auto* winner = static_cast<std::uint32_t*>(scratch);
  LP_CUDA(cudaMemsetAsync(winner, 0, std::size_t(m) * 4, s));
  strict_detail::bid_kernel<><<<grid_for(n, t), threads_of(t), 0, s>>>(labels, n, winner);
  LP_CUDA_LAUNCH("strict bid_kernel");
  strict_detail::take_kernel<W><<<grid_for(m, t), threads_of(t), 0, s>>>(winner, values, m, out);
  LP_CUDA_LAUNCH("strict take_kernel");
}

}  // namespace lp::scatter
