// What the GPU joins share: the output pair, layout-equal to cpu::join::Pair so that results
// download straight into the CPU's vector.
#pragma once
#include <cstdint>

#include "../common/device_facts.cuh"
#include "keys.hpp"

namespace lp::join {

struct RidPair {
  std::uint32_t r, s;  // rid_R, rid_S
};
static_assert(sizeof(RidPair) == 8, "two 32-bit rids");

// The warp's pairs of one step out through one shared counter: the lanes with `hit` write `pair`
// at consecutive positions that lane 0 reserves with one atomicAdd (a warp-aggregated append).
// Called by all 32 lanes together. Positions past `capacity` are counted but not written.
__device__ inline void warp_append(bool hit, RidPair pair, RidPair* __restrict__ out, std::uint64_t capacity,
                                   unsigned long long* __restrict__ cursor) {
  const unsigned hits = __ballot_sync(0xffffffffu, hit);
  if (!hits) return;
  const int lane = int(threadIdx.x & 31);
  unsigned long long first = 0;
  if (lane == 0) first = atomicAdd(cursor, (unsigned long long)__popc(hits));
  first = __shfl_sync(0xffffffffu, first, 0);
  if (hit) {
    const std::uint64_t o = first + std::uint64_t(__popc(hits & ((1u << lane) - 1u)));
    if (o < capacity) out[o] = pair;
  }
}

}  // namespace lp::join
