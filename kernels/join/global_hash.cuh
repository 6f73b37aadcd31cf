// Beyond He et al.: the equi-join as one hash table of R in global memory (L2 while it fits,
// HBM beyond), built in one pass over R and probed in one pass over S, with no partitioning and no
// sort. Open addressing with linear probing on 2^k >= 2 |R| slots; a slot holds rid + 1 (0:
// empty, claimed by atomicCAS) and its key, so duplicate keys take a slot each and a probe walks
// its run to the first empty slot. The pairs go out through one counter that each warp bumps once
// per step (the warp's matches counted by ballot): one pass over S instead of the paper's count,
// scan, write, at the price of pairs in no particular order.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "../common/cuda_check.cuh"
#include "common.cuh"

namespace lp::join {

namespace global_hash_detail {

template <class K>
__global__ void build_kernel(const K* __restrict__ r, std::int64_t nr, K* __restrict__ keys, std::uint32_t* __restrict__ tags,
                             std::uint64_t mask) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < nr; i += std::int64_t(gridDim.x) * blockDim.x) {
    const K k = r[i];
    for (std::uint64_t h = key_hash(k) & mask;; h = (h + 1) & mask) {
      if (atomicCAS(tags + h, 0u, std::uint32_t(i) + 1) == 0u) {
        keys[h] = k;
        break;
      }
    }
  }
}

// One S tuple per thread and step; the warp loops while any lane's run has slots left, and appends
// its matches of the step together (warp_append). The loop is warp-uniform (every lane runs every
// step), so the ballots see the whole warp.
template <class K>
__global__ void probe_kernel(const K* __restrict__ s, std::int64_t ns, const K* __restrict__ keys, const std::uint32_t* __restrict__ tags,
                             std::uint64_t mask, RidPair* __restrict__ out, std::uint64_t capacity,
                             unsigned long long* __restrict__ cursor) {
  const int lane = int(threadIdx.x & 31);
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t base = std::int64_t(blockIdx.x) * blockDim.x + (threadIdx.x & ~31u); base < ns; base += stride) {
    const std::int64_t j = base + lane;
    bool active = j < ns;
    const K k = active ? s[j] : K(0);
    std::uint64_t h = active ? key_hash(k) & mask : 0;
    while (__any_sync(0xffffffffu, active)) {
      std::uint32_t tag = active ? tags[h] : 0u;
      if (tag == 0u) active = false;  // the run ended: no more matches for this lane
      const bool hit = active && keys[h] == k;
      warp_append(hit, RidPair{tag - 1, std::uint32_t(j)}, out, capacity, cursor);
      h = (h + 1) & mask;
    }
  }
}

}  // namespace global_hash_detail

// Slots: the power of two at or above 2 |R| (a load factor of at most one half).
inline std::uint64_t global_hash_slots(std::int64_t nr) {
  std::uint64_t slots = 2;
  while (slots < 2 * std::uint64_t(nr)) slots <<= 1;
  return slots;
}

// Scratch: the tags (rounded up to 256 bytes), the output cursor (256 bytes), the keys.
template <class K>
std::size_t global_hash_scratch_bytes(std::int64_t nr) {
  const std::uint64_t slots = global_hash_slots(nr);
  return std::size_t((slots * 4 + 255) / 256 * 256 + 256 + slots * sizeof(K));
}

inline std::string global_hash_unsupported(std::int64_t nr) {
  if (nr >= (std::int64_t(1) << 32) - 1) return "|R| >= 2^32 - 1: a slot holds rid + 1 in 32 bits";
  return {};
}

// r[0, nr), s[0, ns): the key columns (rid = position). out: room for `capacity` pairs; pairs
// beyond it are counted but not written.
template <class K>
void global_hash_join(const K* r, std::int64_t nr, const K* s, std::int64_t ns, RidPair* out, std::uint64_t capacity, void* scratch,
                      cudaStream_t stream) {
  const std::uint64_t slots = global_hash_slots(nr), mask = slots - 1;
  char* p = static_cast<char*>(scratch);
  auto* tags = reinterpret_cast<std::uint32_t*>(p);
  auto* cursor = reinterpret_cast<unsigned long long*>(p + (slots * 4 + 255) / 256 * 256);
  auto* keys = reinterpret_cast<K*>(reinterpret_cast<char*>(cursor) + 256);
  LP_CUDA(cudaMemsetAsync(tags, 0, slots * 4, stream));
  LP_CUDA(cudaMemsetAsync(cursor, 0, sizeof(unsigned long long), stream));
  const int grid = std::max(1, sm_count() * 8);
  global_hash_detail::build_kernel<K><<<grid, 256, 0, stream>>>(r, nr, keys, tags, mask);
  LP_CUDA_LAUNCH("global_hash build_kernel");
  global_hash_detail::probe_kernel<K><<<grid, 256, 0, stream>>>(s, ns, keys, tags, mask, out, capacity, cursor);
  LP_CUDA_LAUNCH("global_hash probe_kernel");
}

}  // namespace lp::join
