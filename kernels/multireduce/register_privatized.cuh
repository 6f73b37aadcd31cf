// Beyond the thesis: the per-thread private bucket sets of thesis 4.3.6 (Fig 4.12) moved from
// shared memory into registers, for bucket sets of at most 16 labels. Every thread keeps all M
// buckets (M = m rounded up to 1, 2, 4, 8 or 16) and adds each input to the one its label names
// with M predicated applies, so no update is an atomic and none waits on another: with buckets in
// shared memory, a thread whose inputs fall on the same few buckets chains returning atomics on one
// address (decimal128 at m = 4..16: 0.63-0.70 of the read ceiling on the H100). The cost moves to
// instructions: M compares and applies an input. What it reaches (H200, decimal128 over 2^26 rows,
// results/h200/decimal/ceiling_rows.json and profiles/, L2 flushed clean): 0.97 of the read ceiling at
// 1 label, 0.89 at 4 (81% of DRAM's bandwidth, the loads the largest stall), 0.69 at 8; at 16 the adds bind (128
// registers, 80% of the SMs' issue) and it falls to 0.51, behind shared memory's 0.65. Wider
// buckets cost more: decimal64's two words lose from 8 labels. Each thread's buckets in shared
// memory (shared_perthread.cuh, the rows form) stay at 0.93-0.94 from 2 to 8 labels, so the decimal
// study's auto takes the registers for one label only (decimal64 and double: two). At the end each bucket is folded
// across the warp by shuffles, across the block's warps in shared memory, and added to the output
// with one atomic a block. Commutative operators only.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "../common/cuda_check.cuh"
#include "../common/launch_cache.cuh"
#include "common.cuh"

namespace lp::multireduce {

constexpr std::uint32_t kRegisterMaxBuckets = 16;

namespace register_privatized_detail {

constexpr int kThreads = 256;

template <class Op, int M>
__device__ __forceinline__ void add_to(typename Op::value_type (&acc)[M], std::uint32_t label, typename Op::value_type v) {
#pragma unroll
  for (int j = 0; j < M; ++j)
    if (label == std::uint32_t(j)) acc[j] = Op::apply(acc[j], v);
}

template <class Op, int M, class Src>
__global__ void __launch_bounds__(kThreads) register_privatized_kernel(const Src src, std::int64_t n, std::uint32_t m,
                                                                       typename Op::value_type* out) {
  using T = typename Op::value_type;
  __shared__ T folded[kThreads / 32][M];
  T acc[M];
#pragma unroll
  for (int j = 0; j < M; ++j) acc[j] = Op::identity();

  // Grid-stride over quads, two quads a thread in flight (16-byte loads of each column).
  const std::int64_t quads = n / 4, stride = std::int64_t(gridDim.x) * blockDim.x;
  std::int64_t q = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  for (; q + stride < quads; q += 2 * stride) {
    const Quad<T> a = src.quad(q), b = src.quad(q + stride);
#pragma unroll
    for (int k = 0; k < 4; ++k) add_to<Op, M>(acc, a.label[k], a.value[k]);
#pragma unroll
    for (int k = 0; k < 4; ++k) add_to<Op, M>(acc, b.label[k], b.value[k]);
  }
  if (q < quads) {
    const Quad<T> a = src.quad(q);
#pragma unroll
    for (int k = 0; k < 4; ++k) add_to<Op, M>(acc, a.label[k], a.value[k]);
  }
  // The last n mod 4 inputs, by the first block.
  if (blockIdx.x == 0 && threadIdx.x < n - quads * 4) {
    const std::int64_t i = quads * 4 + threadIdx.x;
    add_to<Op, M>(acc, src.label(i), src.value(i));
  }

  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
#pragma unroll
  for (int j = 0; j < M; ++j) {
    T x = acc[j];
#pragma unroll
    for (int off = 16; off > 0; off /= 2) x = Op::apply(x, shfl_down(x, off));
    if (lane == 0) folded[warp][j] = x;
  }
  __syncthreads();
  if (threadIdx.x < M && threadIdx.x < m) {
    T x = folded[0][threadIdx.x];
    for (int w = 1; w < kThreads / 32; ++w) x = Op::apply(x, folded[w][threadIdx.x]);
    if (!(x == Op::identity())) atomic_apply<Op>(out + threadIdx.x, x);
  }
}

// As many blocks as the kernel's registers let reside, never more than the work (two quads a
// thread). The occupancy is the launch cache's, asked once per kernel and device: not inside every
// timed launch.
template <class K>
int blocks_for(K kernel, std::int64_t n) {
  const int per_sm = max_active_blocks(reinterpret_cast<const void*>(kernel), kThreads, 0);
  return grid_for(ceil_div(n, 8), kThreads, std::max(1, per_sm));
}

template <class Op, int M, class Src>
void launch(const Src& src, std::int64_t n, std::uint32_t m, typename Op::value_type* out, cudaStream_t s) {
  fill(out, m, Op::identity(), s);
  if (n <= 0) return;
  const auto kernel = register_privatized_kernel<Op, M, Src>;
  kernel<<<blocks_for(kernel, n), kThreads, 0, s>>>(src, n, m, out);
  LP_CUDA_LAUNCH("register_privatized_kernel");
}

}  // namespace register_privatized_detail

inline bool register_privatized_fits(std::uint32_t m) { return m >= 1 && m <= kRegisterMaxBuckets; }

// Launcher over any source (common.cuh); m <= kRegisterMaxBuckets.
template <class Op, class Src>
void register_privatized(const Src& src, std::int64_t n, std::uint32_t m, typename Op::value_type* out, cudaStream_t s) {
  namespace d = register_privatized_detail;
  static_assert(Op::commutative, "register_privatized folds each thread's buckets out of input order");
  if (m <= 1) return d::launch<Op, 1>(src, n, m, out, s);
  if (m <= 2) return d::launch<Op, 2>(src, n, m, out, s);
  if (m <= 4) return d::launch<Op, 4>(src, n, m, out, s);
  if (m <= 8) return d::launch<Op, 8>(src, n, m, out, s);
  if (m <= 16) return d::launch<Op, 16>(src, n, m, out, s);
  throw std::invalid_argument("register_privatized: more than 16 buckets");
}

}  // namespace lp::multireduce
