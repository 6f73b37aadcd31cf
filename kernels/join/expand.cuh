// The write step of He et al.'s count, scan, write (2008, 4: every join that knows each S tuple's
// matches as one range of a sorted R): with each S tuple's first matching R position and match
// count, an exclusive scan of the counts gives the output offsets, and each S tuple writes its
// pairs there. Shared by SMJ (kernels/join/sort_merge.cuh) and INLJ (index_nested_loop.cuh).
#pragma once
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "../common/carve.hpp"
#include "../common/cuda_check.cuh"
#include "common.cuh"

namespace lp::join {

namespace expand_detail {

static __global__ void iota_kernel(std::uint32_t* __restrict__ out, std::int64_t n) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = std::uint32_t(i);
}

// S tuple j writes its count[j] pairs from offset[j]: R's tuples lower[j] .. lower[j] + count[j] -
// 1 (in R's sorted order, r_rids their rids) with its own rid (s_rids[j], or j where S is in its
// original order: s_rids null). Writes past `capacity` are dropped, so a count that disagrees with
// the buffer the caller sized cannot corrupt memory (validation fails instead).
static __global__ void expand_kernel(const std::uint32_t* __restrict__ lower, const std::uint32_t* __restrict__ count,
                              const std::uint32_t* __restrict__ offset, const std::uint32_t* __restrict__ r_rids,
                              const std::uint32_t* __restrict__ s_rids, std::int64_t ns, RidPair* __restrict__ out, std::uint64_t capacity) {
  for (std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < ns; j += std::int64_t(gridDim.x) * blockDim.x) {
    const std::uint32_t c = count[j], lo = lower[j], sr = s_rids ? s_rids[j] : std::uint32_t(j);
    const std::uint64_t o = offset[j];
    for (std::uint32_t k = 0; k < c && o + k < capacity; ++k) out[o + k] = RidPair{r_rids[lo + k], sr};
  }
}

}  // namespace expand_detail

inline int expand_grid() { return std::max(1, sm_count() * 8); }

// out[0, n) = 0, 1, ..., n - 1: the rids a sort carries along.
inline void iota_rids(std::uint32_t* out, std::int64_t n, cudaStream_t stream) {
  if (n <= 0) return;
  expand_detail::iota_kernel<<<expand_grid(), 256, 0, stream>>>(out, n);
  LP_CUDA_LAUNCH("join iota_kernel");
}

// CUB's temporary bytes for scan_and_expand over ns counts.
inline std::size_t expand_scan_bytes(std::int64_t ns) {
  std::size_t scan = 0;
  LP_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), ns));
  return std::max<std::size_t>(scan, 1);
}

// offset = exclusive scan of count (cub_tmp: expand_scan_bytes(ns) or more), then the pairs.
inline void scan_and_expand(const std::uint32_t* lower, const std::uint32_t* count, std::uint32_t* offset, const std::uint32_t* r_rids,
                            const std::uint32_t* s_rids, std::int64_t ns, RidPair* out, std::uint64_t capacity, void* cub_tmp,
                            std::size_t cub_bytes, cudaStream_t stream) {
  if (ns <= 0) return;
  LP_CUDA(cub::DeviceScan::ExclusiveSum(cub_tmp, cub_bytes, count, offset, ns, stream));
  expand_detail::expand_kernel<<<expand_grid(), 256, 0, stream>>>(lower, count, offset, r_rids, s_rids, ns, out, capacity);
  LP_CUDA_LAUNCH("join expand_kernel");
}

}  // namespace lp::join
