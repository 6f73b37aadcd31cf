// Beyond He et al.: the radix-partitioned hash join (their HJ, 4.4, radix_hash.cuh) rebuilt so
// that its split costs less than SMJ's sorts. Why HJ lost to SMJ beyond the L2: it moves 12-byte
// (partition id, key, rid) items through the split and reads R and S twice more (count, write).
// Here each key is replaced by a bijective hash of itself (mix32 / mix64, keys.hpp), so equal
// hashes mean equal keys and the hash is all the join needs: the split is CUB's radix sort of
// (hash, rid) pairs on the hash's top `bits` bits only (two passes of 8 bits up to 2^16
// partitions, where SMJ sorts all 32 or 64 key bits), and a partition's start is a binary search
// in the sorted hashes. A block then builds one R partition's table in shared memory (the hash's
// low bits pick the slot, its top bits having picked the partition) and probes it with a work item
// of S (work_items.cuh) in rounds of 256-1024 tuples held in registers. Each round's pairs go out in
// one pass, not count-scan-write: the round counts its matches, warp scans and one warp's scan of
// the warps' totals place every pair, and one atomicAdd a round on the output cursor reserves the
// round's room (a per-warp atomic made the one cursor the bottleneck in global_hash.cuh). Pairs
// leave coalesced where tuples match once, in no particular order across rounds.
#pragma once
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "../common/carve.hpp"
#include "../common/cuda_check.cuh"
#include "common.cuh"
#include "expand.cuh"
#include "work_items.cuh"

namespace lp::join {

namespace phj_detail {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kMaxPerThread = 4;  // S tuples a thread holds in a round: 1, 2 or 4 (per_thread())
constexpr std::int64_t kItemRounds = 16;  // rounds a work item, so that a table is built once per 4-16 K S tuples
constexpr std::uint32_t kEmpty = 0xffffffffu;                       // an empty slot's rid (rids stay below it)

// The hash that stands for the key and the shared table of one R tile (static shared memory:
// 32 KiB for int32, 24 KiB for int64). int32: a slot is one 64-bit word, hash over rid, claimed by
// one compare-and-swap and read by one load; int64: the hash and the rid side by side, the rid
// claimed first (the hash is read only after the build's barrier).
template <class K>
struct Shape;
template <>
struct Shape<std::int32_t> {
  using H = std::uint32_t;
  static constexpr int kSlots = 4096;
  __device__ static H hash(std::int32_t k) { return mix32(std::uint32_t(k)); }
  struct Table {
    unsigned long long w[kSlots];
    __device__ void clear(int i) { w[i] = ~0ull; }
    __device__ bool claim(int i, H h, std::uint32_t rid) { return atomicCAS(&w[i], ~0ull, (static_cast<unsigned long long>(h) << 32) | rid) == ~0ull; }
    // The slot's rid (kEmpty: the run ends) and whether its hash is h.
    __device__ std::uint32_t read(int i, H h, bool& same) const {
      const unsigned long long v = w[i];
      same = std::uint32_t(v >> 32) == h;
      return std::uint32_t(v);
    }
  };
};
template <>
struct Shape<std::int64_t> {
  using H = std::uint64_t;
  static constexpr int kSlots = 2048;
  __device__ static H hash(std::int64_t k) { return mix64(std::uint64_t(k)); }
  struct Table {
    H h[kSlots];
    std::uint32_t rid[kSlots];
    __device__ void clear(int i) { rid[i] = kEmpty; }
    __device__ bool claim(int i, H key, std::uint32_t r) {
      if (atomicCAS(&rid[i], kEmpty, r) != kEmpty) return false;
      h[i] = key;
      return true;
    }
    __device__ std::uint32_t read(int i, H key, bool& same) const {
      const std::uint32_t r = rid[i];
      same = r != kEmpty && h[i] == key;
      return r;
    }
  };
};
// R tuples a table takes (a load factor of 3/4 at most, so that only a skewed R is taken in
// several tiles); R's partitions average a quarter of the slots, where a probe's walk to the end
// of its run averages 1.4 slots (a half: 2.5, and the warp waits for its longest walk: at a half
// the join kernel took 600 us of 1.37 ms at |R| = |S| = 2^24 int32, 12.5 lanes of 32 active).
template <class K>
constexpr int cap() { return Shape<K>::kSlots * 3 / 4; }
template <class K>
constexpr std::int64_t target_partition() { return Shape<K>::kSlots / 4; }

// Each tuple's hash and its rid (its position), the pairs the split sorts.
template <class K>
__global__ void hash_kernel(const K* __restrict__ keys, std::int64_t n, typename Shape<K>::H* __restrict__ h, std::uint32_t* __restrict__ rid) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    h[i] = Shape<K>::hash(keys[i]);
    rid[i] = std::uint32_t(i);
  }
}

// start[p], p in [0, parts]: how many sorted hashes have top `bits` bits below p (one binary
// search each, instead of a pass over the partition ids).
template <class H>
__global__ void starts_kernel(const H* __restrict__ sorted, std::int64_t n, int bits, std::uint32_t parts, std::uint32_t* __restrict__ start) {
  const std::int64_t p = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (p > std::int64_t(parts)) return;
  if (bits == 0) {
    start[p] = p == 0 ? 0u : std::uint32_t(n);
    return;
  }
  const int shift = int(8 * sizeof(H)) - bits;
  std::int64_t lo = 0, hi = n;
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) / 2;
    if (std::int64_t(sorted[mid] >> shift) < p) lo = mid + 1;
    else hi = mid;
  }
  start[p] = std::uint32_t(lo);
}

// Exclusive prefix of v over the warp's lanes.
__device__ inline unsigned warp_exclusive(unsigned v) {
  const unsigned lane = threadIdx.x & 31u;
  unsigned x = v;
  for (int d = 1; d < 32; d *= 2) {
    const unsigned y = __shfl_up_sync(0xffffffffu, x, d);
    if (lane >= unsigned(d)) x += y;
  }
  return x - v;
}

// A round's S tuples a thread: the S partitions' mean size in rounds of 256, 512 or 1024 tuples,
// so that a round is mostly full where S's partitions are small (|S| about |R|: a quarter of a
// table) and few rounds share the fixed cost of their barriers where S's are large.
inline int per_thread(std::int64_t ns, std::uint32_t parts) {
  const std::int64_t mean = ns / std::int64_t(parts);
  return mean <= kThreads ? 1 : mean <= 2 * kThreads ? 2 : kMaxPerThread;
}

template <class K, int kPerThread>
__global__ void __launch_bounds__(kThreads) join_kernel(const typename Shape<K>::H* __restrict__ r_h, const std::uint32_t* __restrict__ r_rid,
                                                        const std::uint32_t* __restrict__ r_start, const typename Shape<K>::H* __restrict__ s_h,
                                                        const std::uint32_t* __restrict__ s_rid, const std::uint32_t* __restrict__ s_start,
                                                        const std::uint32_t* __restrict__ item_begin, const std::uint32_t* __restrict__ item_owner,
                                                        std::uint32_t parts, RidPair* __restrict__ out, std::uint64_t capacity,
                                                        unsigned long long* __restrict__ cursor) {
  using H = typename Shape<K>::H;
  constexpr int kSlots = Shape<K>::kSlots;
  constexpr std::int64_t kChunk = std::int64_t(kThreads) * kPerThread;
  __shared__ typename Shape<K>::Table table;
  __shared__ unsigned warp_at[kPerThread][kWarps];  // the warps' totals, then their offsets within the round
  __shared__ unsigned long long round_base;
  const unsigned lane = threadIdx.x & 31u, warp = threadIdx.x / 32u;
  const std::uint32_t total = item_begin[parts];
  for (std::uint32_t item = blockIdx.x; item < total; item += gridDim.x) {
    const std::uint32_t p = item_owner[item];
    const std::int64_t s0 = s_start[p] + std::int64_t(item - item_begin[p]) * kChunk * kItemRounds;
    const std::int64_t s1 = std::min<std::int64_t>(s0 + kChunk * kItemRounds, s_start[p + 1]);
    for (std::int64_t t0 = r_start[p]; t0 < std::int64_t(r_start[p + 1]); t0 += cap<K>()) {  // no R tuple: no pairs
      const int tn = int(std::min<std::int64_t>(cap<K>(), std::int64_t(r_start[p + 1]) - t0));
      // The tile's table: the power of two at or above 4 tn slots (its load factor a quarter or
      // less), so that clearing it costs a few stores a tuple whatever the partitions' size.
      int slots = 64;
      while (slots < 4 * tn && slots < kSlots) slots *= 2;
      const int mask = slots - 1;
      for (int i = threadIdx.x; i < slots; i += kThreads) table.clear(i);
      __syncthreads();
      for (int i = threadIdx.x; i < tn; i += kThreads) {
        const H h = r_h[t0 + i];
        const std::uint32_t rid = r_rid[t0 + i];
        for (int slot = int(h) & mask; !table.claim(slot, h, rid); slot = (slot + 1) & mask) {
        }
      }
      __syncthreads();
      for (std::int64_t c0 = s0; c0 < s1; c0 += kChunk) {
        // The round's S tuples, lane-strided so that the loads coalesce (kEmpty: none), each one's
        // matches counted by a walk to the end of its run, the first kept: a tuple that matches
        // once (every tuple of a unique R) writes without a second walk.
        H sh[kPerThread];
        std::uint32_t sr[kPerThread], count[kPerThread], first[kPerThread], at[kPerThread];
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
          const std::int64_t j = c0 + std::int64_t(k) * kThreads + threadIdx.x;
          sh[k] = j < s1 ? s_h[j] : H(0);
          sr[k] = j < s1 ? s_rid[j] : kEmpty;
          unsigned c = 0;
          std::uint32_t f = 0;
          if (sr[k] != kEmpty) {
            bool same = false;
            for (int slot = int(sh[k]) & mask;; slot = (slot + 1) & mask) {
              const std::uint32_t rid = table.read(slot, sh[k], same);
              if (rid == kEmpty) break;
              if (same) {
                if (!c) f = rid;
                ++c;
              }
            }
          }
          count[k] = c;
          first[k] = f;
          at[k] = warp_exclusive(c);
          if (lane == 31) warp_at[k][warp] = at[k] + c;
        }
        __syncthreads();
        // Warp 0 turns the kPerThread x kWarps totals (in round-major order: k, then warp) into
        // offsets and reserves the round's room with one atomic.
        if (warp == 0) {
          static_assert(kPerThread * kWarps <= 32, "warp 0 scans one total a lane");
          unsigned* flat = &warp_at[0][0];
          const bool mine = lane < unsigned(kPerThread * kWarps);
          const unsigned a = mine ? flat[lane] : 0u;
          const unsigned before = warp_exclusive(a);
          if (mine) flat[lane] = before;
          const unsigned all = __shfl_sync(0xffffffffu, before + a, 31);
          if (lane == 0) round_base = all ? atomicAdd(cursor, (unsigned long long)all) : 0ull;
        }
        __syncthreads();
        const unsigned long long base = round_base;
#pragma unroll
        for (int k = 0; k < kPerThread; ++k) {
          std::uint64_t o = base + warp_at[k][warp] + at[k];
          if (count[k] == 1) {
            if (o < capacity) out[o] = RidPair{first[k], sr[k]};
          } else if (count[k] > 1) {
            bool same = false;
            for (int slot = int(sh[k]) & mask;; slot = (slot + 1) & mask) {
              const std::uint32_t rid = table.read(slot, sh[k], same);
              if (rid == kEmpty) break;
              if (same) {
                if (o < capacity) out[o] = RidPair{rid, sr[k]};
                ++o;
              }
            }
          }
        }
        __syncthreads();  // warp_at and round_base are the next round's
      }
      __syncthreads();  // the table is rebuilt by the next tile
    }
  }
}

}  // namespace phj_detail

// The partition bits: the knob, else R's partitions of about a quarter of a table; but no more
// than 16 bits (CUB's two 8-bit passes) while that leaves partitions of half a table or less.
template <class K>
int partitioned_hash_bits(std::int64_t nr, int knob) {
  if (knob > 0) return knob;
  int bits = 0;
  while (bits < 24 && (nr >> bits) > phj_detail::target_partition<K>()) ++bits;
  if (bits > 16 && (nr >> 16) <= 2 * phj_detail::target_partition<K>()) bits = 16;
  return bits;
}

template <class K>
struct PhjScratch {
  using H = typename phj_detail::Shape<K>::H;
  H *r_h, *r_h_sorted, *s_h, *s_h_sorted;
  std::uint32_t *r_rid, *r_rid_sorted, *s_rid, *s_rid_sorted, *r_start, *s_start, *items, *item_begin, *item_owner;
  unsigned long long* cursor;
  void* cub;
  std::size_t cub_bytes, total;
  std::uint32_t parts;
  PhjScratch(void* base, std::int64_t nr, std::int64_t ns, int bits, std::size_t bytes = 0) {
    parts = std::uint32_t(1) << bits;
    Carve c(base);
    r_h = c.take<H>(std::size_t(nr));
    r_h_sorted = c.take<H>(std::size_t(nr));
    s_h = c.take<H>(std::size_t(ns));
    s_h_sorted = c.take<H>(std::size_t(ns));
    r_rid = c.take<std::uint32_t>(std::size_t(nr));
    r_rid_sorted = c.take<std::uint32_t>(std::size_t(nr));
    s_rid = c.take<std::uint32_t>(std::size_t(ns));
    s_rid_sorted = c.take<std::uint32_t>(std::size_t(ns));
    r_start = c.take<std::uint32_t>(parts + 1);
    s_start = c.take<std::uint32_t>(parts + 1);
    items = c.take<std::uint32_t>(parts + 1);
    item_begin = c.take<std::uint32_t>(parts + 1);
    // Items of the smallest rounds (one tuple a thread): the most there can be.
    item_owner = c.take<std::uint32_t>(std::size_t(work_items::max_items(parts, ns, phj_detail::kThreads * phj_detail::kItemRounds)));
    cursor = c.take<unsigned long long>(1);
    if (base) {
      cub_bytes = bytes - c.used();
      cub = c.rest();
      total = bytes;
      return;
    }
    std::size_t sr = 0, ss = 0, sc = 0;
    LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sr, static_cast<const H*>(nullptr), static_cast<H*>(nullptr),
                                            static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), nr));
    LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, ss, static_cast<const H*>(nullptr), static_cast<H*>(nullptr),
                                            static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), ns));
    LP_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, sc, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
                                          std::int64_t(parts) + 1));
    cub_bytes = std::max({sr, ss, sc, std::size_t(1)});
    c.take<char>(cub_bytes);
    total = c.used();
  }
};

template <class K>
std::size_t partitioned_hash_scratch_bytes(std::int64_t nr, std::int64_t ns, int bits) {
  return PhjScratch<K>(nullptr, nr, ns, bits).total;
}

// Rids and positions are 32-bit, and an empty slot is the rid 2^32 - 1.
inline std::string partitioned_hash_unsupported(std::int64_t nr, std::int64_t ns) {
  if (nr >= (std::int64_t(1) << 32) - 1 || ns >= (std::int64_t(1) << 32) - 1) return "2^32 - 1 tuples or more: rids and positions are 32-bit";
  return {};
}

// r[0, nr), s[0, ns): the key columns (rid = position); 2^bits partitions (partitioned_hash_bits).
// out: room for `capacity` pairs; pairs beyond it are counted but not written. Capture-safe: a
// memset, kernels and CUB's sorts and scan on `stream`, scratch carved from what it is handed.
template <class K>
void partitioned_hash_join(const K* r, std::int64_t nr, const K* s, std::int64_t ns, int bits, RidPair* out, std::uint64_t capacity, void* scratch,
                           std::size_t scratch_bytes, cudaStream_t stream) {
  namespace d = phj_detail;
  using H = typename d::Shape<K>::H;
  PhjScratch<K> w(scratch, nr, ns, bits, scratch_bytes);
  const int grid = expand_grid();
  const int word = int(8 * sizeof(H));
  LP_CUDA(cudaMemsetAsync(w.cursor, 0, sizeof(unsigned long long), stream));
  // The split: hashes and rids, sorted on the hash's top bits (nothing to sort for one partition),
  // then each partition's start.
  auto split = [&](const K* keys, std::int64_t n, H* h, H* h_sorted, std::uint32_t* rid, std::uint32_t* rid_sorted, std::uint32_t* start,
                   const H*& h_out, const std::uint32_t*& rid_out) {
    h_out = h;
    rid_out = rid;
    if (n > 0) {
      d::hash_kernel<K><<<grid, 256, 0, stream>>>(keys, n, h, rid);
      LP_CUDA_LAUNCH("phj hash_kernel");
      if (bits > 0) {
        std::size_t b = w.cub_bytes;
        LP_CUDA(cub::DeviceRadixSort::SortPairs(w.cub, b, h, h_sorted, rid, rid_sorted, n, word - bits, word, stream));
        h_out = h_sorted;
        rid_out = rid_sorted;
      }
    }
    d::starts_kernel<H><<<int((w.parts + 256) / 256), 256, 0, stream>>>(h_out, n, bits, w.parts, start);
    LP_CUDA_LAUNCH("phj starts_kernel");
  };
  const H *rh = nullptr, *sh = nullptr;
  const std::uint32_t *rr = nullptr, *sr = nullptr;
  split(r, nr, w.r_h, w.r_h_sorted, w.r_rid, w.r_rid_sorted, w.r_start, rh, rr);
  split(s, ns, w.s_h, w.s_h_sorted, w.s_rid, w.s_rid_sorted, w.s_start, sh, sr);
  const int per = d::per_thread(ns, w.parts);
  work_items::count_kernel<<<grid, 256, 0, stream>>>(w.s_start, w.parts, std::int64_t(d::kThreads) * per * d::kItemRounds, w.items);
  LP_CUDA_LAUNCH("phj work_items::count_kernel");
  std::size_t b = w.cub_bytes;
  LP_CUDA(cub::DeviceScan::ExclusiveSum(w.cub, b, w.items, w.item_begin, std::int64_t(w.parts) + 1, stream));
  work_items::owners_kernel<<<grid, 256, 0, stream>>>(w.item_begin, w.parts, w.item_owner);
  LP_CUDA_LAUNCH("phj work_items::owners_kernel");
  const int blocks = std::max(1, sm_count() * 8);
  auto join = [&](auto kernel) {
    kernel<<<blocks, d::kThreads, 0, stream>>>(rh, rr, w.r_start, sh, sr, w.s_start, w.item_begin, w.item_owner, w.parts, out, capacity, w.cursor);
  };
  if (per == 1) join(d::join_kernel<K, 1>);
  else if (per == 2) join(d::join_kernel<K, 2>);
  else join(d::join_kernel<K, d::kMaxPerThread>);
  LP_CUDA_LAUNCH("phj join_kernel");
}

}  // namespace lp::join
