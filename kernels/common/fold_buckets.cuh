// Bucket arrays combined element-wise in a fixed order: the ordered combine of the
// shards' partial multireduces (thesis 1.2's operator is associative, not always commutative, so
// shard k's buckets join on the right of shards 0..k-1's), and the identity fill of an empty shard.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "cuda_check.cuh"

namespace lp {

// acc[b] = acc[b] ⊕ parts[0][b] ⊕ parts[1][b] ⊕ ... ⊕ parts[k-1][b], parts row-major (parts[j*m + b]).
template <class Op>
__global__ void fold_buckets_kernel(typename Op::value_type* __restrict__ acc, const typename Op::value_type* __restrict__ parts, int k,
                                    std::uint32_t m) {
  for (std::int64_t b = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; b < m; b += std::int64_t(gridDim.x) * blockDim.x) {
    typename Op::value_type x = acc[b];
    for (int j = 0; j < k; ++j) x = Op::apply(x, parts[std::int64_t(j) * m + b]);
    acc[b] = x;
  }
}

template <class Op>
__global__ void fill_identity_kernel(typename Op::value_type* __restrict__ out, std::uint32_t m) {
  for (std::int64_t b = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; b < m; b += std::int64_t(gridDim.x) * blockDim.x)
    out[b] = Op::identity();
}

inline int fold_grid(std::uint32_t m) { return int(std::max<std::int64_t>(1, std::min<std::int64_t>((std::int64_t(m) + 255) / 256, 4096))); }

template <class Op>
void fold_buckets(typename Op::value_type* acc, const typename Op::value_type* parts, int k, std::uint32_t m, cudaStream_t s) {
  if (k == 0 || m == 0) return;
  fold_buckets_kernel<Op><<<fold_grid(m), 256, 0, s>>>(acc, parts, k, m);
  LP_CUDA_LAUNCH("fold_buckets_kernel");
}

template <class Op>
void fill_identity(typename Op::value_type* out, std::uint32_t m, cudaStream_t s) {
  if (m == 0) return;
  fill_identity_kernel<Op><<<fold_grid(m), 256, 0, s>>>(out, m);
  LP_CUDA_LAUNCH("fill_identity_kernel");
}

}  // namespace lp
