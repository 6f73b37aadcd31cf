// HJ (He et al. 2008, 4.4): the radix hash join of Boncz et al. on the GPU. Both relations are split
// by the top bits of their keys' hash into 2^bits partitions, R's sized to a block's shared memory
// (about kTargetPartition tuples), then each block builds a hash table of one R partition in shared
// memory and probes it with a chunk of the matching S partition. The split is CUB's stable radix
// sort on the partition ids, which takes the bits in passes of 8 at most, as the paper's recursive
// split does. Work items are (partition, chunk of kChunk S tuples), so a zipf-skewed S (one
// partition holding a third of S) spreads over as many blocks as it needs instead of one; an R
// partition larger than the table is taken in tiles. Output by the paper's count, scan, write: a
// counting pass over the items, a scan of the items' counts, a writing pass.
#pragma once
#include <cub/block/block_reduce.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "expand.cuh"
#include "work_items.cuh"

namespace lp::join {

template <class K>
struct KeyRid {
  K key;
  std::uint32_t rid;
};

namespace hj_detail {

constexpr int kThreads = 256;
constexpr int kSlots = 4096;                   // shared hash table slots (a power of two)
constexpr int kCap = kSlots / 2;               // R tuples per table: a load factor of one half at most
constexpr std::int64_t kChunk = 8 * kThreads;  // S tuples per work item
constexpr std::int64_t kTargetPartition = 1024;

__device__ inline std::uint32_t partition_of(std::uint64_t h, int bits) { return bits ? std::uint32_t(h >> (64 - bits)) : 0u; }

// The split's map: each tuple's partition id and the tuple itself (rid = position).
template <class K>
__global__ void map_kernel(const K* __restrict__ keys, std::int64_t n, int bits, std::uint32_t* __restrict__ pid, KeyRid<K>* __restrict__ tup) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    const K k = keys[i];
    pid[i] = partition_of(key_hash(k), bits);
    tup[i] = KeyRid<K>{k, std::uint32_t(i)};
  }
}

// start[p] = the first position of partition p in the sorted ids (start[parts] = n): each position
// where the id changes fills the starts of the partitions it passes over, so empty ones get theirs.
static __global__ void bounds_kernel(const std::uint32_t* __restrict__ pid, std::int64_t n, std::uint32_t parts, std::uint32_t* __restrict__ start) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i <= n; i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t prev = i == 0 ? -1 : std::int64_t(pid[i - 1]);
    const std::int64_t here = i == n ? std::int64_t(parts) : std::int64_t(pid[i]);
    for (std::int64_t q = prev + 1; q <= here; ++q) start[q] = std::uint32_t(i);
  }
}

// One pass over the work items, counting (Write false: pairs[item] = the item's pairs) or writing
// (Write true: the item's pairs from offset[item]). Both passes visit the same tuples in the same
// order, so the counts the scan turned into offsets are exactly what the writing pass writes.
template <bool Write, class K>
__global__ void __launch_bounds__(kThreads) join_kernel(const KeyRid<K>* __restrict__ r, const std::uint32_t* __restrict__ r_start,
                                                        const KeyRid<K>* __restrict__ s, const std::uint32_t* __restrict__ s_start,
                                                        const std::uint32_t* __restrict__ item_begin, std::uint32_t parts,
                                                        unsigned long long* __restrict__ pairs, RidPair* __restrict__ out,
                                                        std::uint64_t capacity) {
  __shared__ K keys[kSlots];
  __shared__ unsigned short tags[kSlots];  // R tuple's index in the tile + 1; 0: empty
  using Scan = cub::BlockScan<unsigned, kThreads>;
  using Reduce = cub::BlockReduce<unsigned long long, kThreads>;
  __shared__ union {
    typename Scan::TempStorage scan;
    typename Reduce::TempStorage reduce;
  } temp;
  const std::uint32_t total = item_begin[parts];
  for (std::uint32_t item = blockIdx.x; item < total; item += gridDim.x) {
    const std::uint32_t p = work_items::owner(item_begin, parts, item);
    const std::int64_t s0 = s_start[p] + std::int64_t(item - item_begin[p]) * kChunk;
    const std::int64_t s1 = s0 + kChunk < std::int64_t(s_start[p + 1]) ? s0 + kChunk : std::int64_t(s_start[p + 1]);
    unsigned long long base = Write ? pairs[item] : 0, mine = 0;
    for (std::int64_t t0 = r_start[p]; t0 < std::int64_t(r_start[p + 1]); t0 += kCap) {  // none: no pairs
      const int tn = int(std::min<std::int64_t>(kCap, std::int64_t(r_start[p + 1]) - t0));
      for (int i = threadIdx.x; i < kSlots; i += kThreads) tags[i] = 0;
      __syncthreads();
      for (int i = threadIdx.x; i < tn; i += kThreads) {
        const K k = r[t0 + i].key;
        for (std::uint32_t h = std::uint32_t(key_hash(k)) & (kSlots - 1);; h = (h + 1) & (kSlots - 1))
          if (atomicCAS(&tags[h], (unsigned short)0, (unsigned short)(i + 1)) == 0) {
            keys[h] = k;
            break;
          }
      }
      __syncthreads();
      for (std::int64_t j0 = s0; j0 < s1; j0 += kThreads) {
        const std::int64_t j = j0 + threadIdx.x;
        const bool have = j < s1;
        KeyRid<K> st{};
        if (have) st = s[j];
        const std::uint32_t h0 = std::uint32_t(key_hash(st.key)) & (kSlots - 1);
        unsigned c = 0;
        if (have)
          for (std::uint32_t h = h0; tags[h]; h = (h + 1) & (kSlots - 1)) c += keys[h] == st.key;
        if (!Write) {
          mine += c;
          continue;
        }
        unsigned at = 0, round_total = 0;
        Scan(temp.scan).ExclusiveSum(c, at, round_total);  // the aggregate reaches every thread
        if (c) {
          std::uint64_t o = base + at;
          for (std::uint32_t h = h0; tags[h]; h = (h + 1) & (kSlots - 1))
            if (keys[h] == st.key) {
              if (o < capacity) out[o] = RidPair{r[t0 + tags[h] - 1].rid, st.rid};
              ++o;
            }
        }
        base += round_total;
        __syncthreads();  // the scan's storage is reused by the next round
      }
      __syncthreads();  // the table is rebuilt by the next tile
    }
    if (!Write) {
      const unsigned long long sum = Reduce(temp.reduce).Sum(mine);
      if (threadIdx.x == 0) pairs[item] = sum;
      __syncthreads();
    }
  }
}

}  // namespace hj_detail

// The partition bits: the knob, else R's partitions of about kTargetPartition tuples.
inline int radix_hash_bits(std::int64_t nr, int knob) {
  if (knob > 0) return knob;
  int bits = 0;
  while (bits < 24 && (nr >> bits) > hj_detail::kTargetPartition) ++bits;
  return bits;
}

template <class K>
struct HjScratch {
  std::uint32_t *r_pid, *r_pid_sorted, *s_pid, *s_pid_sorted, *r_start, *s_start, *items, *item_begin;
  KeyRid<K> *r_tup, *r_sorted, *s_tup, *s_sorted;
  unsigned long long *item_pairs, *item_offset;
  void* cub;
  std::size_t cub_bytes, total;
  std::uint32_t parts;
  std::int64_t max_items;
  HjScratch(void* base, std::int64_t nr, std::int64_t ns, int bits, std::size_t bytes = 0) {
    parts = std::uint32_t(1) << bits;
    max_items = work_items::max_items(parts, ns, hj_detail::kChunk);
    Carve c(base);
    r_pid = c.take<std::uint32_t>(std::size_t(nr));
    r_pid_sorted = c.take<std::uint32_t>(std::size_t(nr));
    s_pid = c.take<std::uint32_t>(std::size_t(ns));
    s_pid_sorted = c.take<std::uint32_t>(std::size_t(ns));
    r_tup = c.take<KeyRid<K>>(std::size_t(nr));
    r_sorted = c.take<KeyRid<K>>(std::size_t(nr));
    s_tup = c.take<KeyRid<K>>(std::size_t(ns));
    s_sorted = c.take<KeyRid<K>>(std::size_t(ns));
    r_start = c.take<std::uint32_t>(parts + 1);
    s_start = c.take<std::uint32_t>(parts + 1);
    items = c.take<std::uint32_t>(parts + 1);
    item_begin = c.take<std::uint32_t>(parts + 1);
    item_pairs = c.take<unsigned long long>(std::size_t(max_items));
    item_offset = c.take<unsigned long long>(std::size_t(max_items));
    if (base) {
      cub_bytes = bytes - c.used();
      cub = c.rest();
      total = bytes;
      return;
    }
    std::size_t sr = 0, ss = 0, s1 = 0, s2 = 0;
    LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sr, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
                                            static_cast<const KeyRid<K>*>(nullptr), static_cast<KeyRid<K>*>(nullptr), nr));
    LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, ss, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
                                            static_cast<const KeyRid<K>*>(nullptr), static_cast<KeyRid<K>*>(nullptr), ns));
    LP_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, s1, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
                                          std::int64_t(parts) + 1));
    LP_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, s2, static_cast<const unsigned long long*>(nullptr),
                                          static_cast<unsigned long long*>(nullptr), max_items));
    cub_bytes = std::max({sr, ss, s1, s2, std::size_t(1)});
    c.take<char>(cub_bytes);
    total = c.used();
  }
};

template <class K>
std::size_t radix_hash_scratch_bytes(std::int64_t nr, std::int64_t ns, int bits) {
  return HjScratch<K>(nullptr, nr, ns, bits).total;
}

inline std::string radix_hash_unsupported(std::int64_t nr, std::int64_t ns) {
  if (nr >= (std::int64_t(1) << 32) || ns >= (std::int64_t(1) << 32)) return "2^32 tuples or more: positions are 32-bit";
  return {};
}

// r[0, nr), s[0, ns): the key columns (rid = position); 2^bits partitions (radix_hash_bits).
template <class K>
void radix_hash_join(const K* r, std::int64_t nr, const K* s, std::int64_t ns, int bits, RidPair* out, std::uint64_t capacity, void* scratch,
                     std::size_t scratch_bytes, cudaStream_t stream) {
  HjScratch<K> w(scratch, nr, ns, bits, scratch_bytes);
  namespace d = hj_detail;
  const int grid = expand_grid();
  // The split: map, then a stable sort on the ids' `bits` bits (skipped for one partition).
  auto split = [&](const K* keys, std::int64_t n, std::uint32_t* pid, std::uint32_t* pid_sorted, KeyRid<K>* tup, KeyRid<K>* sorted,
                   std::uint32_t* start) -> const KeyRid<K>* {
    d::map_kernel<K><<<grid, 256, 0, stream>>>(keys, n, bits, pid, tup);
    LP_CUDA_LAUNCH("hj map_kernel");
    const std::uint32_t* ids = pid;
    const KeyRid<K>* parted = tup;
    if (bits > 0) {
      std::size_t b = w.cub_bytes;
      LP_CUDA(cub::DeviceRadixSort::SortPairs(w.cub, b, pid, pid_sorted, tup, sorted, n, 0, bits, stream));
      ids = pid_sorted;
      parted = sorted;
    }
    d::bounds_kernel<<<grid, 256, 0, stream>>>(ids, n, w.parts, start);
    LP_CUDA_LAUNCH("hj bounds_kernel");
    return parted;
  };
  const KeyRid<K>* rp = split(r, nr, w.r_pid, w.r_pid_sorted, w.r_tup, w.r_sorted, w.r_start);
  const KeyRid<K>* sp = split(s, ns, w.s_pid, w.s_pid_sorted, w.s_tup, w.s_sorted, w.s_start);
  work_items::count_kernel<<<grid, 256, 0, stream>>>(w.s_start, w.parts, d::kChunk, w.items);
  LP_CUDA_LAUNCH("hj work_items::count_kernel");
  std::size_t b = w.cub_bytes;
  LP_CUDA(cub::DeviceScan::ExclusiveSum(w.cub, b, w.items, w.item_begin, std::int64_t(w.parts) + 1, stream));
  LP_CUDA(cudaMemsetAsync(w.item_pairs, 0, sizeof(unsigned long long) * std::size_t(w.max_items), stream));
  const int blocks = std::max(1, sm_count() * 4);
  d::join_kernel<false, K><<<blocks, d::kThreads, 0, stream>>>(rp, w.r_start, sp, w.s_start, w.item_begin, w.parts, w.item_pairs, out, capacity);
  LP_CUDA_LAUNCH("hj join_kernel (count)");
  b = w.cub_bytes;
  LP_CUDA(cub::DeviceScan::ExclusiveSum(w.cub, b, w.item_pairs, w.item_offset, w.max_items, stream));
  d::join_kernel<true, K><<<blocks, d::kThreads, 0, stream>>>(rp, w.r_start, sp, w.s_start, w.item_begin, w.parts, w.item_offset, out, capacity);
  LP_CUDA_LAUNCH("hj join_kernel (write)");
}

}  // namespace lp::join
