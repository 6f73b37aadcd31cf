// Thesis 4.1: ordinary (tree) reduce over m-vectors, each input a one-hot vector (v at its label,
// the identity elsewhere); O(n * m) work, so only small m. Order preserving (non-commutative OK).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "common.cuh"

namespace lp::multireduce {

namespace vector_reduce_detail {

// Buckets a warp holds in registers: lane l keeps buckets l and l + 32.
constexpr std::uint32_t kMaxBuckets = 64;
constexpr int kMaxWarps = 32;  // 1024 threads
constexpr int kDefaultThreads = 256;
constexpr int kDefaultBlocksPerSm = 4;

inline int threads(const Tuning& t) { return t.threads > 0 ? t.threads : kDefaultThreads; }

inline int blocks(std::int64_t n, const Tuning& t) {
  return grid_for(n, threads(t), t.blocks_per_sm > 0 ? t.blocks_per_sm : kDefaultBlocksPerSm);
}

// Every warp owns a contiguous run of warp_len inputs (warps in block order, blocks in grid order,
// so runs follow the input order) and walks it 32 inputs at a time. For each bucket j the 32
// one-hot components are reduced by an order-preserving butterfly (the lower half of every pair
// of groups goes on the left), so all lanes get the tile's fold of bucket j; lane j % 32 appends it
// to its accumulator. The block's warps then fold their vectors in warp order into
// partials[j * gridDim.x + block], the layout reduce_partials reads.
template <class Op>
__global__ void __launch_bounds__(1024) vector_reduce_kernel(const std::uint32_t* __restrict__ labels,
                                                             const typename Op::value_type* __restrict__ values, std::int64_t n,
                                                             std::uint32_t m, std::int64_t warp_len, typename Op::value_type* partials) {
  using T = typename Op::value_type;
  __shared__ T warp_vectors[kMaxWarps * kMaxBuckets];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  const std::int64_t begin = (std::int64_t(blockIdx.x) * warps + warp) * warp_len;
  const std::int64_t end = std::min(begin + warp_len, n);
  T lo = Op::identity(), hi = Op::identity();  // buckets lane and lane + 32
  for (std::int64_t base = begin; base < end; base += 32) {  // uniform across the warp
    const std::int64_t i = base + lane;
    const bool ok = i < end;
    const std::uint32_t l = ok ? labels[i] : 0u;
    const T v = ok ? values[i] : Op::identity();
    for (std::uint32_t j = 0; j < m; ++j) {
      T x = ok && l == j ? v : Op::identity();
#pragma unroll
      for (int off = 1; off < 32; off *= 2) {
        const T y = shfl(x, lane ^ off);
        x = (lane & off) ? Op::apply(y, x) : Op::apply(x, y);
      }
      if (lane == int(j & 31)) {
        if (j < 32) lo = Op::apply(lo, x);
        else hi = Op::apply(hi, x);
      }
    }
  }
  warp_vectors[warp * kMaxBuckets + lane] = lo;
  warp_vectors[warp * kMaxBuckets + lane + 32] = hi;
  __syncthreads();
  for (std::uint32_t j = threadIdx.x; j < m; j += blockDim.x) {
    T acc = Op::identity();
    for (int w = 0; w < warps; ++w) acc = Op::apply(acc, warp_vectors[w * kMaxBuckets + j]);
    partials[std::int64_t(j) * gridDim.x + blockIdx.x] = acc;
  }
}

}  // namespace vector_reduce_detail

inline std::string vector_reduce_unsupported(std::int64_t, std::uint32_t m, const Tuning& t) {
  using namespace vector_reduce_detail;
  if (m > kMaxBuckets)
    return "m = " + std::to_string(m) + " exceeds " + std::to_string(kMaxBuckets) + " (O(n m) work; a warp keeps 2 buckets per lane)";
  const int nt = threads(t);
  if (nt % 32 != 0 || nt > 1024) return "threads = " + std::to_string(nt) + ": whole warps (a multiple of 32, at most 1024) are needed";
  return "";
}

template <class T>
std::size_t vector_reduce_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  return std::size_t(vector_reduce_detail::blocks(n, t)) * m * sizeof(T);
}

// out[b] = the in-order fold of the values labelled b; every bucket is written (identity where
// no input has its label).
template <class Op>
void vector_reduce(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                   typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, const Tuning& t, cudaStream_t stream) {
  using T = typename Op::value_type;
  using namespace vector_reduce_detail;
  const int nt = threads(t), nb = blocks(n, t);
  (void)scratch_bytes;
  T* partials = static_cast<T*>(scratch);
  const std::int64_t warp_len = ceil_div(std::max<std::int64_t>(n, 1), std::int64_t(nb) * (nt / 32));
  vector_reduce_kernel<Op><<<nb, nt, 0, stream>>>(labels, values, n, m, warp_len, partials);
  LP_CUDA_LAUNCH("vector_reduce_kernel");
  reduce_partials<Op>(partials, nb, m, out, stream);
}

}  // namespace lp::multireduce
