// Beyond the thesis: the naive scatter and gather (Alg 3.3) rebuilt for today's GPU. All blocks
// sweep the input together (grid stride: the thesis's 4.5.1 observation that a common front keeps
// the touched buckets few), each thread moves groups of four inputs with 16-byte label loads and
// vector value loads and keeps eight random accesses in flight. Scatter: any one wins.
#pragma once
#include "common.cuh"

namespace lp::scatter {

namespace wide_detail {
template <class W>
struct alignas(4 * sizeof(W)) Quad {
  W v[4];
};

constexpr int kUnroll = 2;  // quads per thread per step: 8 random accesses in flight

template <class W>
__global__ void scatter_kernel(const std::uint32_t* __restrict__ labels, const W* __restrict__ values, std::int64_t n, W* __restrict__ out) {
  const std::int64_t quads = n / 4, stride = std::int64_t(gridDim.x) * blockDim.x;
  const auto* lq = reinterpret_cast<const uint4*>(labels);
  const auto* vq = reinterpret_cast<const Quad<W>*>(values);
  std::int64_t q = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  for (; q + (kUnroll - 1) * stride < quads; q += kUnroll * stride) {
    uint4 l[kUnroll];
    Quad<W> v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) l[u] = lq[q + u * stride], v[u] = vq[q + u * stride];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) out[l[u].x] = v[u].v[0], out[l[u].y] = v[u].v[1], out[l[u].z] = v[u].v[2], out[l[u].w] = v[u].v[3];
  }
  for (; q < quads; q += stride) {
    const uint4 l = lq[q];
    const Quad<W> v = vq[q];
    out[l.x] = v.v[0], out[l.y] = v.v[1], out[l.z] = v.v[2], out[l.w] = v.v[3];
  }
  // The last n mod 4 inputs, one per thread of the first block.
  if (blockIdx.x == 0 && std::int64_t(threadIdx.x) < n - 4 * quads) out[labels[4 * quads + threadIdx.x]] = values[4 * quads + threadIdx.x];
}

template <class W>
__global__ void gather_kernel(const std::uint32_t* __restrict__ labels, const W* __restrict__ table, std::int64_t n, W* __restrict__ out) {
  const std::int64_t quads = n / 4, stride = std::int64_t(gridDim.x) * blockDim.x;
  const auto* lq = reinterpret_cast<const uint4*>(labels);
  auto* oq = reinterpret_cast<Quad<W>*>(out);
  std::int64_t q = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  for (; q + (kUnroll - 1) * stride < quads; q += kUnroll * stride) {
    uint4 l[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) l[u] = lq[q + u * stride];
    Quad<W> v[kUnroll];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u)
      v[u].v[0] = __ldg(table + l[u].x), v[u].v[1] = __ldg(table + l[u].y), v[u].v[2] = __ldg(table + l[u].z), v[u].v[3] = __ldg(table + l[u].w);
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) oq[q + u * stride] = v[u];
  }
  for (; q < quads; q += stride) {
    const uint4 l = lq[q];
    oq[q] = Quad<W>{{__ldg(table + l.x), __ldg(table + l.y), __ldg(table + l.z), __ldg(table + l.w)}};
  }
  if (blockIdx.x == 0 && std::int64_t(threadIdx.x) < n - 4 * quads) out[4 * quads + threadIdx.x] = table[labels[4 * quads + threadIdx.x]];
}
}  // namespace wide_detail

// The arrays must be 16-byte aligned (device allocations and the scratch carving are).
template <class W>
void wide(bool gather, const std::uint32_t* labels, const W* values, std::int64_t n, W* out, const Tuning& t, cudaStream_t s) {
  if (n <= 0) return;
  const int grid = grid_for(ceil_div(n, 4 * wide_detail::kUnroll), t), threads = threads_of(t);
  if (gather) wide_detail::gather_kernel<W><<<grid, threads, 0, s>>>(labels, values, n, out);
  else wide_detail::scatter_kernel<W><<<grid, threads, 0, s>>>(labels, values, n, out);
  LP_CUDA_LAUNCH("wide kernel");
}

}  // namespace lp::scatter
