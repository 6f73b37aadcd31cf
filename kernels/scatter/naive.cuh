// Thesis Alg 3.3 (simple GPU gather) and its scatter mirror, the naive scatter of Table 4.3: block b
// owns a contiguous segment, its threads stride through it (coalesced label loads), plain stores,
// so of several inputs with one label any one wins (thesis 1.2's second definition).
#pragma once
#include "common.cuh"

namespace lp::scatter {

namespace naive_detail {
// Whole multiples of the block size per segment keep every warp's loads aligned runs.
inline std::int64_t segment(std::int64_t n, int grid, int threads) { return ceil_div(ceil_div(n, grid), threads) * threads; }

template <class W>
__global__ void scatter_kernel(const std::uint32_t* __restrict__ labels, const W* __restrict__ values, std::int64_t n, std::int64_t seg,
                               W* __restrict__ out) {
  const std::int64_t end = std::min(n, (blockIdx.x + 1) * seg);
  for (std::int64_t i = blockIdx.x * seg + threadIdx.x; i < end; i += blockDim.x) out[labels[i]] = values[i];
}

template <class W>
__global__ void gather_kernel(const std::uint32_t* __restrict__ labels, const W* __restrict__ table, std::int64_t n, std::int64_t seg,
                              W* __restrict__ out) {
  const std::int64_t end = std::min(n, (blockIdx.x + 1) * seg);
  for (std::int64_t i = blockIdx.x * seg + threadIdx.x; i < end; i += blockDim.x) out[i] = table[labels[i]];
}
}  // namespace naive_detail

template <class W>
void naive_scatter(const std::uint32_t* labels, const W* values, std::int64_t n, W* out, const Tuning& t, cudaStream_t s) {
  if (n <= 0) return;
  const int threads = threads_of(t), grid = grid_for(n, t);
  naive_detail::scatter_kernel<W><<<grid, threads, 0, s>>>(labels, values, n, naive_detail::segment(n, grid, threads), out);
  LP_CUDA_LAUNCH("naive scatter_kernel");
}

template <class W>
void naive_gather(const std::uint32_t* labels, const W* table, std::int64_t n, W* out, const Tuning& t, cudaStream_t s) {
  if (n <= 0) return;
  const int threads = threads_of(t), grid = grid_for(n, t);
  naive_detail::gather_kernel<W><<<grid, threads, 0, s>>>(labels, table, n, naive_detail::segment(n, grid, threads), out);
  LP_CUDA_LAUNCH("naive gather_kernel");
}

}  // namespace lp::scatter
