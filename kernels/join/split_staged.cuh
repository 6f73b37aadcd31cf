// Ours, beyond He et al. 2008's Algorithm 1 (3.1.4; split.cuh): the same five steps, but each tile
// of a block's chunk is grouped by partition in shared memory before it goes out, so that the
// tuples of one partition leave as one run of consecutive addresses (a warp's stores fill whole
// sectors) instead of one scattered 8-byte write each. Algorithm 1 as written, on the H200 at
// 2^26 tuples, spends 2.3 ms (fanout 256) and 3.8 ms (2048) in its scatter: 221-369 cycles between
// a warp's instructions waiting on the stores (results/h200/primitives/profiles/). And the hash
// is computed once: the count pass writes each tuple's partition id, which the scatter reads back
// (4 bytes more each way, against the splitmix finaliser and a 32-bit remainder that keep
// Algorithm 1's count pass at 95% of the SMs' issue). The steps:
//   (1, 2) block b counts its chunk per partition in shared memory and writes the ids;
//   (3)    the [fanout x blocks] matrix exclusive-scanned (CUB), as in split.cuh;
//   (4, 5) block b walks its chunk in tiles of kTile tuples: each tuple takes a rank in its
//          partition's tile counter (a shared atomic), the counters are scanned, the tile is laid
//          out by partition in shared memory, then written in that order, position j of the stage
//          to its partition's cursor + (j - the partition's start in the tile).
// The order within a partition is free (He et al.), here the order of the shared atomics.
// What it reaches (H200, 2^26 tuples, results/h200/primitives/split.json and profiles/): the count
// pass at 82% of DRAM's bandwidth; at fanout 16 and 256 the whole split 1.32x and 1.08x CUB's radix
// split (16 tuples a partition a tile: the runs fill sectors). From fanout 2048 a tile holds two
// tuples a partition, the runs are 16 bytes and the counters' scan and reset a tile cost as much
// as its tuples: 0.65x CUB at 2048, 0.47x at 4096. Tiles that grow with the fanout would be next.
#pragma once
#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "../common/launch_cache.cuh"
#include "split.cuh"

namespace lp::join {

namespace split_staged_detail {

constexpr int kThreads = 512;
constexpr int kItems = 8;
constexpr int kTile = kThreads * kItems;  // 4096 tuples: 32 KiB staged, 16 a partition at fanout 256
constexpr std::uint32_t kAggregateBelow = 64;  // below this fanout a warp's lanes collide: aggregated counts

// Steps (1) and (2), the ids kept: pairs of tuples by 16-byte loads (chunks are whole block widths,
// so every pair starts 16-byte aligned), the counts by plain shared atomics where the fanout spreads
// them and warp-aggregated (split.cuh's warp_bump) where it does not.
static __global__ void __launch_bounds__(split_detail::kThreads)
    count_ids_kernel(const std::uint64_t* __restrict__ in, std::int64_t n, std::int64_t chunk, std::uint32_t fanout, std::uint32_t* __restrict__ hist,
                     std::uint32_t* __restrict__ ids) {
  extern __shared__ std::uint32_t counts[];
  for (std::uint32_t p = threadIdx.x; p < fanout; p += blockDim.x) counts[p] = 0;
  __syncthreads();
  const bool aggregate = fanout < kAggregateBelow;
  const std::int64_t lo = std::int64_t(blockIdx.x) * chunk, hi = std::min(n, lo + chunk);
  for (std::int64_t base = lo; base < hi; base += 2 * std::int64_t(blockDim.x)) {  // block-uniform trip count
    const std::int64_t i = base + 2 * std::int64_t(threadIdx.x);
    const bool a0 = i < hi, a1 = i + 1 < hi;
    std::uint32_t p0 = 0, p1 = 0;
    if (a1) {
      const ulonglong2 t = *reinterpret_cast<const ulonglong2*>(in + i);
      p0 = partition_of_item(std::uint64_t(t.x), fanout), p1 = partition_of_item(std::uint64_t(t.y), fanout);
      *reinterpret_cast<uint2*>(ids + i) = make_uint2(p0, p1);
    } else if (a0) {
      p0 = partition_of_item(in[i], fanout);
      ids[i] = p0;
    }
    if (aggregate) {
      split_detail::warp_bump(counts, p0, a0);
      split_detail::warp_bump(counts, p1, a1);
    } else {
      if (a0) atomicAdd(&counts[p0], 1u);
      if (a1) atomicAdd(&counts[p1], 1u);
    }
  }
  __syncthreads();
  for (std::uint32_t p = threadIdx.x; p < fanout; p += blockDim.x) hist[std::size_t(p) * gridDim.x + blockIdx.x] = counts[p];
}

using Scan = cub::BlockScan<std::uint32_t, kThreads>;

// The scatter's shared memory, all of it dynamic (so that the opt-in beyond 48 KiB sees the whole
// size): the scan's storage, the staged tile, the block's cursors, the tile's counters and their
// scan (fanout words each), the staged tuples' partitions (fanout <= 4096: 16 bits).
constexpr std::size_t kScanBytes = (sizeof(Scan::TempStorage) + 15) / 16 * 16;  // the stage after it 16-byte aligned
inline std::size_t staged_bytes(std::uint32_t fanout) {
  return kScanBytes + kTile * sizeof(std::uint64_t) + 3 * std::size_t(fanout) * sizeof(std::uint32_t) +
         kTile * sizeof(std::uint16_t);
}

// Steps (4) and (5), staged.
static __global__ void __launch_bounds__(kThreads)
    scatter_staged_kernel(const std::uint64_t* __restrict__ in, const std::uint32_t* __restrict__ ids, std::int64_t n, std::int64_t chunk,
                          std::uint32_t fanout, const std::uint32_t* __restrict__ offsets, std::uint64_t* __restrict__ out) {
  extern __shared__ __align__(16) unsigned char smem[];
  auto& scan_storage = *reinterpret_cast<Scan::TempStorage*>(smem);
  auto* stage = reinterpret_cast<std::uint64_t*>(smem + kScanBytes);
  std::uint32_t* cursor = reinterpret_cast<std::uint32_t*>(stage + kTile);
  std::uint32_t *count = cursor + fanout, *start = cursor + 2 * fanout;
  auto* stage_p = reinterpret_cast<std::uint16_t*>(cursor + 3 * fanout);
  for (std::uint32_t p = threadIdx.x; p < fanout; p += kThreads) {
    cursor[p] = offsets[std::size_t(p) * gridDim.x + blockIdx.x];
    count[p] = 0;
  }
  __syncthreads();
  const std::uint32_t per = (fanout + kThreads - 1) / kThreads;  // counters a thread scans, in a row
  const std::int64_t lo = std::int64_t(blockIdx.x) * chunk, hi = std::min(n, lo + chunk);
  for (std::int64_t base = lo; base < hi; base += kTile) {
    const int size = int(std::min<std::int64_t>(kTile, hi - base));
    std::uint64_t t[kItems];
    std::uint32_t p[kItems], r[kItems];
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int j = k * kThreads + int(threadIdx.x);
      if (j < size) t[k] = in[base + j], p[k] = ids[base + j];
    }
#pragma unroll
    for (int k = 0; k < kItems; ++k)
      if (k * kThreads + int(threadIdx.x) < size) r[k] = atomicAdd(&count[p[k]], 1u);
    __syncthreads();
    std::uint32_t sum = 0;
    for (std::uint32_t q = 0; q < per; ++q) {
      const std::uint32_t c = threadIdx.x * per + q;
      if (c < fanout) sum += count[c];
    }
    std::uint32_t before = 0;
    Scan(scan_storage).ExclusiveSum(sum, before);
    for (std::uint32_t q = 0; q < per; ++q) {
      const std::uint32_t c = threadIdx.x * per + q;
      if (c < fanout) start[c] = before, before += count[c];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kItems; ++k)
      if (k * kThreads + int(threadIdx.x) < size) {
        const std::uint32_t s = start[p[k]] + r[k];
        stage[s] = t[k];
        stage_p[s] = std::uint16_t(p[k]);
      }
    __syncthreads();
    for (int j = int(threadIdx.x); j < size; j += kThreads) {
      const std::uint32_t q = stage_p[j];
      out[cursor[q] + (std::uint32_t(j) - start[q])] = stage[j];
    }
    __syncthreads();
    for (std::uint32_t c = threadIdx.x; c < fanout; c += kThreads) cursor[c] += count[c], count[c] = 0;
    __syncthreads();
  }
}

}  // namespace split_staged_detail

inline std::size_t split_staged_scratch_bytes(std::int64_t n, std::uint32_t fanout) {
  return split_detail::SplitScratch(nullptr, n, fanout, 0, true).total;
}

// in[0, n): tuple words; out[0, n): the tuples grouped by partition, in partition order; scratch:
// split_staged_scratch_bytes(n, fanout) bytes. Sizes as split_unsupported allows.
inline void split_staged(const std::uint64_t* in, std::int64_t n, std::uint32_t fanout, std::uint64_t* out, void* scratch, std::size_t scratch_bytes,
                         cudaStream_t stream) {
  if (n <= 0) return;
  namespace d = split_staged_detail;
  split_detail::SplitScratch w(scratch, n, fanout, scratch_bytes, true);
  d::count_ids_kernel<<<w.blocks, split_detail::kThreads, std::size_t(fanout) * sizeof(std::uint32_t), stream>>>(in, n, w.chunk, fanout, w.hist,
                                                                                                            w.ids);
  LP_CUDA_LAUNCH("split_staged count_ids_kernel");
  std::size_t bytes = w.cub_bytes;
  LP_CUDA(cub::DeviceScan::ExclusiveSum(w.cub, bytes, w.hist, w.offsets, int(w.cells), stream));
  const std::size_t smem = d::staged_bytes(fanout);
  allow_dynamic_shared(reinterpret_cast<const void*>(d::scatter_staged_kernel), smem);
  d::scatter_staged_kernel<<<w.blocks, d::kThreads, smem, stream>>>(in, w.ids, n, w.chunk, fanout, w.offsets, out);
  LP_CUDA_LAUNCH("split_staged scatter_staged_kernel");
}

}  // namespace lp::join
