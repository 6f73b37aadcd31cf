// Beyond the thesis: the strict scatter (thesis 1.2, last one wins) of naive_strict.cuh with its
// bids privatized per block in shared memory (the multireduce's privatization, thesis 4.3, applied
// to the operator that keeps the last value): a block reads only labels, keeps 1 + the last
// position per bucket in shared memory, then bids once per touched bucket in global memory; each
// bucket finally takes its winner's value. Inputs move 4 bytes each instead of 4 + sizeof(value).
#pragma once
#include <string>

#include "naive_strict.cuh"

namespace lp::scatter {

namespace privatized_detail {
template <int = 0>  // a template: header-defined kernels stay one definition per program
__global__ void bid_kernel(const std::uint32_t* __restrict__ labels, std::int64_t n, std::uint32_t m, std::int64_t seg_quads,
                           std::uint32_t* __restrict__ winner) {
  extern __shared__ std::uint32_t bids[];
  for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) bids[b] = 0;
  __syncthreads();
  const std::int64_t quads = n / 4, end = std::min(quads, (blockIdx.x + 1) * seg_quads);
  const auto* lq = reinterpret_cast<const uint4*>(labels);
  for (std::int64_t q = blockIdx.x * seg_quads + threadIdx.x; q < end; q += blockDim.x) {
    const uint4 l = lq[q];
    const std::uint32_t at = std::uint32_t(4 * q) + 1;
    atomicMax(bids + l.x, at);
    atomicMax(bids + l.y, at + 1);
    atomicMax(bids + l.z, at + 2);
    atomicMax(bids + l.w, at + 3);
  }
  // The last n mod 4 inputs belong to the last block.
  if (blockIdx.x + 1 == gridDim.x && std::int64_t(threadIdx.x) < n - 4 * quads)
    atomicMax(bids + labels[4 * quads + threadIdx.x], std::uint32_t(4 * quads + threadIdx.x) + 1);
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x)
    if (const std::uint32_t w = bids[b]) atomicMax(winner + b, w);
}
}  // namespace privatized_detail

inline std::size_t privatized_smem_bytes(std::uint32_t m) { return std::size_t(m) * 4; }

inline std::string privatized_unsupported(std::uint32_t m) {
  if (privatized_smem_bytes(m) > max_shared_per_block())
    return "m = " + std::to_string(m) + ": 4m bytes of per-block bids exceed the shared memory of a block";
  return "";
}

template <class W>
void privatized_strict_scatter(const std::uint32_t* labels, const W* values, std::int64_t n, std::uint32_t m, W* out, void* scratch,
                               const Tuning& t, cudaStream_t s) {
  if (n <= 0) return;
  auto* winner = static_cast<std::uint32_t*>(scratch);
  LP_CUDA(cudaMemsetAsync(winner, 0, std::size_t(m) * 4, s));
  // 1024 threads by default: with one or two blocks per SM (the bids take up to 128 KiB), enough
  // warps stay in flight to stream the labels.
  const int threads = t.threads > 0 ? t.threads : 1024;
  const std::size_t smem = privatized_smem_bytes(m);
  auto kernel = privatized_detail::bid_kernel<>;
  const int resident = std::max(1, lp::max_active_blocks(reinterpret_cast<const void*>(kernel), threads, smem));
  // As many blocks as fit at once, but each with at least 4m inputs, so its flush of m bids stays
  // a fraction of its work.
  const std::int64_t quads = ceil_div(n, 4);
  const std::int64_t want = std::int64_t(sm_count()) * (t.blocks_per_sm > 0 ? std::min(t.blocks_per_sm, resident) : resident);
  const int grid = int(std::max<std::int64_t>(1, std::min(want, ceil_div(n, std::max<std::int64_t>(4 * std::int64_t(m), 8 * threads)))));
  kernel<<<grid, threads, smem, s>>>(labels, n, m, ceil_div(quads, grid), winner);
  LP_CUDA_LAUNCH("privatized bid_kernel");
  strict_detail::take_kernel<W><<<grid_for(m, t), threads, 0, s>>>(winner, values, m, out);
  LP_CUDA_LAUNCH("strict take_kernel");
}

}  // namespace lp::scatter
