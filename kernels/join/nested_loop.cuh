// NINLJ (He et al. 2008, 4.1) on the GPU, blocked: each block stages a tile of S's keys in shared
// memory, then its threads stream R past the tile, each thread one R tuple against every key of
// the tile (broadcast reads, no bank conflicts). The predicate |r.key - s.key| <= band (0: the
// equi-join), so this is the join for non-equi predicates. Pairs out by warp_append.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "../common/cuda_check.cuh"
#include "common.cuh"

namespace lp::join {

namespace nlj_detail {

constexpr int kTile = 2048;  // S keys per block: 8 or 16 KiB of shared memory
constexpr int kThreads = 256;

// Block (x, y): S tile x against R's slice y (R split over gridDim.y so that small S still fills
// the GPU). The R loop is warp-uniform: lanes past R's end compare nothing but join the appends.
template <class K>
__global__ void __launch_bounds__(kThreads) nlj_kernel(const K* __restrict__ r, std::int64_t nr, const K* __restrict__ s, std::int64_t ns,
                                                       std::uint64_t band, RidPair* __restrict__ out, std::uint64_t capacity,
                                                       unsigned long long* __restrict__ cursor) {
  __shared__ K tile[kTile];
  const std::int64_t t0 = std::int64_t(blockIdx.x) * kTile;
  const int count = int(std::min<std::int64_t>(kTile, ns - t0));
  for (int i = threadIdx.x; i < count; i += blockDim.x) tile[i] = s[t0 + i];
  __syncthreads();
  const std::int64_t slice = (nr + gridDim.y - 1) / gridDim.y, lo = std::int64_t(blockIdx.y) * slice, hi = std::min(nr, lo + slice);
  for (std::int64_t base = lo + (threadIdx.x & ~31u); base < hi; base += blockDim.x) {
    const std::int64_t i = base + (threadIdx.x & 31);
    const bool mine = i < hi;
    const K k = mine ? r[i] : K(0);
    for (int j = 0; j < count; ++j) warp_append(mine && within(k, tile[j], band), RidPair{std::uint32_t(i), std::uint32_t(t0 + j)}, out, capacity, cursor);
  }
}

}  // namespace nlj_detail

inline std::size_t nested_loop_scratch_bytes() { return 256; }  // the output cursor

// The comparisons |R| |S| the GPU's nested loop takes on (a few seconds on an H100 at the limit).
inline std::string nested_loop_unsupported(std::int64_t nr, std::int64_t ns) {
  if (double(nr) * double(ns) > double(std::int64_t(1) << 40)) return "|R| |S| > 2^40: the nested loop is for small points";
  return {};
}

template <class K>
void nested_loop_join(const K* r, std::int64_t nr, const K* s, std::int64_t ns, std::uint64_t band, RidPair* out, std::uint64_t capacity,
                      void* scratch, cudaStream_t stream) {
  auto* cursor = static_cast<unsigned long long*>(scratch);
  LP_CUDA(cudaMemsetAsync(cursor, 0, sizeof(unsigned long long), stream));
  if (nr == 0 || ns == 0) return;
  const std::int64_t tiles = (ns + nlj_detail::kTile - 1) / nlj_detail::kTile;
  // Enough blocks for a few waves: R split into slices of at least one block's worth of tuples.
  const std::int64_t want = std::max<std::int64_t>(1, std::int64_t(sm_count()) * 16 / tiles);
  const std::int64_t slices = std::min<std::int64_t>({want, (nr + nlj_detail::kThreads - 1) / nlj_detail::kThreads, 65535});
  nlj_detail::nlj_kernel<K><<<dim3(unsigned(tiles), unsigned(slices)), nlj_detail::kThreads, 0, stream>>>(r, nr, s, ns, band, out, capacity, cursor);
  LP_CUDA_LAUNCH("nlj_kernel");
}

}  // namespace lp::join
