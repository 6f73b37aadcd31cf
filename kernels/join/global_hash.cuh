// Beyond He et al.: the equi-join as one hash table of R in global memory (L2 while it fits,
// HBM beyond), built in one pass over R and probed in one pass over S, with no partitioning and no
// sort. Open addressing with linear probing on 2^k >= 2 |R| slots. A slot holds rid + 1 (0: empty)
// and the key side by side, so that a probe step is one access: int32 keys share one 64-bit word,
// claimed whole by one 64-bit atomicCAS; int64 keys sit in a 16-byte slot whose tag is claimed
// first. Duplicate keys take a slot each, and a probe walks its run to the first empty slot.
// The pairs go out through per-warp buffers in shared memory, each flushed with one atomicAdd on
// the output cursor and coalesced stores: one global atomic per few hundred pairs (the first
// version's per-step warp atomic made the one cursor the bottleneck: 8 ms of 8.4 at |R| = 2^16,
// |S| = 2^26 on the H100). One pass over S instead of the paper's count, scan, write, at the price
// of pairs in no particular order.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "../common/cuda_check.cuh"
#include "common.cuh"

namespace lp::join {

namespace global_hash_detail {

constexpr int kThreads = 256;
constexpr int kWarpBuffer = 512;  // pairs per warp: 4 KiB, 32 KiB a block

// The slot of each key width: tag (rid + 1) and key, one access apart at most.
template <class K>
struct Slots;

template <>
struct Slots<std::int32_t> {
  using Slot = unsigned long long;  // tag in the low word, key in the high
  static constexpr std::size_t kBytes = 8;
  __device__ static bool claim(Slot* s, std::int32_t k, std::uint32_t tag) {
    const Slot want = (Slot(std::uint32_t(k)) << 32) | tag;
    return atomicCAS(s, 0ull, want) == 0ull;
  }
  __device__ static void read(const Slot* s, std::uint32_t& tag, std::int32_t& k) {
    const Slot v = *s;
    tag = std::uint32_t(v);
    k = std::int32_t(std::uint32_t(v >> 32));
  }
};

template <>
struct Slots<std::int64_t> {
  using Slot = ulonglong2;  // x: tag, y: key
  static constexpr std::size_t kBytes = 16;
  __device__ static bool claim(Slot* s, std::int64_t k, std::uint32_t tag) {
    if (atomicCAS(reinterpret_cast<unsigned long long*>(&s->x), 0ull, (unsigned long long)tag) != 0ull) return false;
    s->y = (unsigned long long)k;  // read only by the probe kernel, after this kernel ends
    return true;
  }
  __device__ static void read(const Slot* s, std::uint32_t& tag, std::int64_t& k) {
    const ulonglong2 v = *s;
    tag = std::uint32_t(v.x);
    k = std::int64_t(v.y);
  }
};

template <class K>
__global__ void build_kernel(const K* __restrict__ r, std::int64_t nr, typename Slots<K>::Slot* __restrict__ slots, std::uint64_t mask) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < nr; i += std::int64_t(gridDim.x) * blockDim.x) {
    const K k = r[i];
    for (std::uint64_t h = key_hash(k) & mask;; h = (h + 1) & mask)
      if (Slots<K>::claim(slots + h, k, std::uint32_t(i) + 1)) break;
  }
}

// One S tuple per lane and step; the warp loops while any lane's run has slots left (so every lane
// runs every step and the ballots see the whole warp), collecting its matches in its buffer.
template <class K>
__global__ void __launch_bounds__(kThreads) probe_kernel(const K* __restrict__ s, std::int64_t ns, const typename Slots<K>::Slot* __restrict__ slots,
                                                         std::uint64_t mask, RidPair* __restrict__ out, std::uint64_t capacity,
                                                         unsigned long long* __restrict__ cursor) {
  __shared__ RidPair buffer[kThreads / 32][kWarpBuffer];
  const unsigned lane = threadIdx.x & 31u;
  RidPair* wb = buffer[threadIdx.x / 32];
  unsigned fill = 0;  // the same in every lane
  auto flush = [&] {
    unsigned long long at = 0;
    if (lane == 0) at = atomicAdd(cursor, (unsigned long long)fill);
    at = __shfl_sync(0xffffffffu, at, 0);
    __syncwarp();  // the buffer's writes seen by every lane
    for (unsigned i = lane; i < fill; i += 32)
      if (at + i < capacity) out[at + i] = wb[i];
    __syncwarp();  // read before it is refilled
    fill = 0;
  };
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t base = std::int64_t(blockIdx.x) * blockDim.x + (threadIdx.x & ~31u); base < ns; base += stride) {
    const std::int64_t j = base + lane;
    bool active = j < ns;
    const K k = active ? s[j] : K(0);
    std::uint64_t h = active ? key_hash(k) & mask : 0;
    while (__any_sync(0xffffffffu, active)) {
      std::uint32_t tag = 0;
      K have = K(0);
      if (active) Slots<K>::read(slots + h, tag, have);
      if (tag == 0u) active = false;  // the run ended: no more matches for this lane
      const bool hit = active && have == k;
      const unsigned hits = __ballot_sync(0xffffffffu, hit);
      if (hits) {
        if (fill + 32 > unsigned(kWarpBuffer)) flush();
        if (hit) wb[fill + __popc(hits & ((1u << lane) - 1u))] = RidPair{tag - 1, std::uint32_t(j)};
        fill += __popc(hits);
      }
      h = (h + 1) & mask;
    }
  }
  if (fill) flush();
}

}  // namespace global_hash_detail

// Slots: the power of two at or above 2 |R| (a load factor of at most one half).
inline std::uint64_t global_hash_slots(std::int64_t nr) {
  std::uint64_t slots = 2;
  while (slots < 2 * std::uint64_t(nr)) slots <<= 1;
  return slots;
}

// Scratch: the output cursor (256 bytes), then the slots.
template <class K>
std::size_t global_hash_scratch_bytes(std::int64_t nr) {
  return std::size_t(256 + global_hash_slots(nr) * global_hash_detail::Slots<K>::kBytes);
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
  namespace d = global_hash_detail;
  const std::uint64_t slots = global_hash_slots(nr), mask = slots - 1;
  auto* cursor = static_cast<unsigned long long*>(scratch);
  auto* table = reinterpret_cast<typename d::Slots<K>::Slot*>(static_cast<char*>(scratch) + 256);
  LP_CUDA(cudaMemsetAsync(cursor, 0, sizeof(unsigned long long), stream));
  LP_CUDA(cudaMemsetAsync(table, 0, slots * d::Slots<K>::kBytes, stream));
  const int grid = std::max(1, sm_count() * 8);
  d::build_kernel<K><<<grid, d::kThreads, 0, stream>>>(r, nr, table, mask);
  LP_CUDA_LAUNCH("global_hash build_kernel");
  d::probe_kernel<K><<<grid, d::kThreads, 0, stream>>>(s, ns, table, mask, out, capacity, cursor);
  LP_CUDA_LAUNCH("global_hash probe_kernel");
}

}  // namespace lp::join
