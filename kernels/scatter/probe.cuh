// The random-access ceiling of the scatter/gather study: n random accesses of one word
// each over an m-word array, the index stream computed (probe_index), not read, so nothing but the
// random accesses (and, for reads, the sequential results) moves. Same sweep and unrolling as
// wide.cuh, so the two differ only by the labels and values the scatter/gather must read.
#pragma once
#include "common.cuh"

namespace lp::scatter {

namespace probe_detail {
constexpr int kUnroll = 8;

// out[probe_index(i)] = i: random writes (several i may hit one word: any one wins).
template <class W>
__global__ void write_kernel(std::int64_t n, std::uint32_t m, std::uint32_t salt, W* __restrict__ out) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint32_t at = std::uint32_t(i + u * stride);
      out[probe_index(at, salt, m)] = W(at);
    }
  }
  for (; i < n; i += stride) out[probe_index(std::uint32_t(i), salt, m)] = W(i);
}

// out[i] = table[probe_index(i)]: random reads, sequential results.
template <class W>
__global__ void read_kernel(const W* __restrict__ table, std::int64_t n, std::uint32_t m, std::uint32_t salt, W* __restrict__ out) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  for (; i + (kUnroll - 1) * stride < n; i += kUnroll * stride) {
    W v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) v[u] = __ldg(table + probe_index(std::uint32_t(i + u * stride), salt, m));
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) out[i + u * stride] = v[u];
  }
  for (; i < n; i += stride) out[i] = __ldg(table + probe_index(std::uint32_t(i), salt, m));
}
}  // namespace probe_detail

// gather: random reads of `table` into out[0, n); else random writes of out[0, m).
template <class W>
void random_access_probe(bool gather, const W* table, std::int64_t n, std::uint32_t m, std::uint32_t salt, W* out, const Tuning& t,
                         cudaStream_t s) {
  if (n <= 0) return;
  const int grid = grid_for(ceil_div(n, probe_detail::kUnroll), t), threads = threads_of(t);
  if (gather) probe_detail::read_kernel<W><<<grid, threads, 0, s>>>(table, n, m, salt, out);
  else probe_detail::write_kernel<W><<<grid, threads, 0, s>>>(n, m, salt, out);
  LP_CUDA_LAUNCH("random_access_probe");
}

}  // namespace lp::scatter
