// The work items of a partitioned join (He et al. 4.4's HJ in radix_hash.cuh and the partitioned
// hash join in partitioned_hash.cuh): each partition's S tuples cut into chunks, one item a chunk,
// so that a skewed S (one partition holding a third of it) spreads over as many blocks as it needs
// instead of one. The items are numbered partition by partition through an exclusive scan of the
// per-partition counts; a block finds an item's partition by binary search over that scan.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

namespace lp::join::work_items {

// items[p] = partition p's chunks of `chunk` S tuples (none where its S part is empty);
// items[parts] = 0, so that the exclusive scan's entry `parts` is the total.
static __global__ void count_kernel(const std::uint32_t* __restrict__ s_start, std::uint32_t parts, std::int64_t chunk,
                                    std::uint32_t* __restrict__ items) {
  for (std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p <= std::int64_t(parts); p += std::int64_t(gridDim.x) * blockDim.x)
    items[p] = p == parts ? 0u : std::uint32_t((std::int64_t(s_start[p + 1]) - s_start[p] + chunk - 1) / chunk);
}

// The partition that owns `item`: the last p with begin[p] <= item (partitions without items share
// the next one's begin, so the last is the one that owns it). begin: the scan of count_kernel's.
__device__ inline std::uint32_t owner(const std::uint32_t* __restrict__ begin, std::uint32_t parts, std::uint32_t item) {
  std::uint32_t lo = 0, hi = parts;
  while (lo < hi) {
    const std::uint32_t mid = (lo + hi + 1) / 2;
    if (begin[mid] <= item) lo = mid;
    else hi = mid - 1;
  }
  return lo;
}

// owner[i] = the partition of item i, for every item of begin's scan (begin[parts] items in all):
// a block then reads its item's partition with one load instead of a search of dependent loads.
static __global__ void owners_kernel(const std::uint32_t* __restrict__ begin, std::uint32_t parts, std::uint32_t* __restrict__ owner) {
  for (std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; p < std::int64_t(parts); p += std::int64_t(gridDim.x) * blockDim.x)
    for (std::uint32_t i = begin[p]; i < begin[p + 1]; ++i) owner[i] = std::uint32_t(p);
}

// The most items `parts` partitions of `ns` S tuples can have in chunks of `chunk`.
inline std::int64_t max_items(std::uint32_t parts, std::int64_t ns, std::int64_t chunk) { return std::int64_t(parts) + ns / chunk + 1; }

}  // namespace lp::join::work_items
