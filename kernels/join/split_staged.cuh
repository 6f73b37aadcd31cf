// Ours, beyond He et al. 2008's Algorithm 1 (3.1.4; split.cuh): the same five steps, but each tile
// is grouped by partition in shared memory before it goes out, so that the tuples of one partition
// leave as one run of consecutive addresses (a warp's stores fill whole sectors) instead of one
// scattered 8-byte write each. Algorithm 1 as written, on the H200 at 2^26 tuples, spends 2.3 ms
// (fanout 256) and 3.8 ms (2048) in its scatter: 221-369 cycles between a warp's instructions
// waiting on the stores (results/h200/primitives/profiles/). And the hash is computed once: the
// count pass writes each tuple's partition id, which the scatter reads back (4 bytes more each way,
// against the splitmix finaliser and a 32-bit remainder that keep Algorithm 1's count pass at 95% of
// the SMs' issue). The steps:
//   (1, 2) block b counts its tile per partition in shared memory and writes the ids;
//   (3)    the [fanout x tiles] matrix exclusive-scanned (CUB), as in split.cuh;
//   (4, 5) block b ranks each tuple of its tile in its partition's tile counter (a shared atomic),
//          scans the counters, lays the tile out by partition in shared memory, then writes it in
//          that order, position j of the stage to its partition's cursor + (j - the partition's
//          start in the tile).
// The order within a partition is free (He et al.), here the order of the shared atomics.
// One block a tile, not Algorithm 1's one chunk a block: the blocks that run at once hold
// neighbouring tiles, whose runs in a partition are neighbours too, so a sector that one tile's run
// leaves half written is finished by the next while it is still in L2. With chunks (each block's
// cursor a chunk's length from the next block's in every partition) the resident blocks kept
// fanout x blocks sectors half written at once, more than L2 holds from fanout 2048: the scatter
// moved 2.2x its bytes through DRAM (profiles/README.md) and took 2.2 ms at 2048.
// Tiles of 8192 tuples up to fanout 256 and 16384 beyond (default_tile), so that a partition's run
// stays at or above a 32-byte sector; their counters' index padded against bank conflicts.
// What it reaches (H200, 2^26 tuples, results/h200/primitives/split.json and probes/split_tiles.json):
// 1.29-2.0x CUB's radix split from fanout 16 to 2048 (1.30x, 1.44x, 1.34x at 16, 256, 2048), 0.91x at
// 4096, where the tile holds four tuples a partition (the 16384-tuple tile takes 210 KiB of shared
// memory: one block an SM) and the count pass writes a cell a partition a tile.
#pragma once
#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "../common/launch_cache.cuh"
#include "split.cuh"

namespace lp::join {

namespace split_staged_detail {

constexpr int kThreads = 512;
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

// The tile counters' index in shared memory: one word of padding every 32, so that a thread's run of
// `per` counters in the scan (thread t owns counters t*per .. t*per+per-1) and the write loop's walk
// over consecutive partitions both fall in distinct banks (4- and 8-way conflicts unpadded at fanout
// 2048 and 4096).
__host__ __device__ inline std::uint32_t padded(std::uint32_t c) { return c + (c >> 5); }
__host__ __device__ inline std::uint32_t padded_cells(std::uint32_t fanout) { return padded(fanout) + 1; }

// A tuple's partition and its rank in the tile's partition counter, one word: fanout <= 4096 (12 bits)
// and a rank below the tile (< 16384: 14 bits above them).
constexpr int kPartitionBits = 12;

using Scan = cub::BlockScan<std::uint32_t, kThreads>;

// The scatter's shared memory, all of it dynamic (so that the opt-in beyond 48 KiB sees the whole
// size): the scan's storage, the staged tile, the block's cursors, the tile's counters and their
// scan (padded_cells(fanout) words each), the staged tuples' partitions (16 bits).
constexpr std::size_t kScanBytes = (sizeof(Scan::TempStorage) + 15) / 16 * 16;  // the stage after it 16-byte aligned
inline std::size_t staged_bytes(std::uint32_t fanout, int tile) {
  return kScanBytes + std::size_t(tile) * sizeof(std::uint64_t) + 3 * std::size_t(padded_cells(fanout)) * sizeof(std::uint32_t) +
         std::size_t(tile) * sizeof(std::uint16_t);
}

// Steps (4) and (5), staged, in tiles of kThreads x kItems tuples. Small tiles (kItems <= 8) load
// their tuples with the ids, before the ranks; larger ones hold only each tuple's partition and rank
// (one word) through the counters' scan and load the tuples after it, straight into the stage, so
// that 16 or 32 a thread fit in registers.
template <int kItems>
static __global__ void __launch_bounds__(kThreads)
    scatter_staged_kernel(const std::uint64_t* __restrict__ in, const std::uint32_t* __restrict__ ids, std::int64_t n, std::int64_t chunk,
                          std::uint32_t fanout, const std::uint32_t* __restrict__ offsets, std::uint64_t* __restrict__ out) {
  constexpr int kTileSize = kThreads * kItems;
  constexpr bool kHold = kItems <= 8;
  extern __shared__ __align__(16) unsigned char smem[];
  auto& scan_storage = *reinterpret_cast<Scan::TempStorage*>(smem);
  auto* stage = reinterpret_cast<std::uint64_t*>(smem + kScanBytes);
  const std::uint32_t cells = padded_cells(fanout);
  std::uint32_t* cursor = reinterpret_cast<std::uint32_t*>(stage + kTileSize);
  std::uint32_t *count = cursor + cells, *start = cursor + 2 * cells;
  auto* stage_p = reinterpret_cast<std::uint16_t*>(cursor + 3 * cells);
  for (std::uint32_t p = threadIdx.x; p < fanout; p += kThreads) {
    cursor[padded(p)] = offsets[std::size_t(p) * gridDim.x + blockIdx.x];
    count[padded(p)] = 0;
  }
  __syncthreads();
  const std::uint32_t per = (fanout + kThreads - 1) / kThreads;  // counters a thread scans, in a row
  const std::int64_t lo = std::int64_t(blockIdx.x) * chunk, hi = std::min(n, lo + chunk);
  // split_staged's chunks are one tile each (see the top), so this runs once a block. Kept as a loop:
  // the same kernel without it (and without the reset below) ran 1-8% slower at the 4096- and
  // 8192-tuple tiles (H200, probes/split_tiles_1024_threads.json against probes/split_tiles.json).
  for (std::int64_t base = lo; base < hi; base += kTileSize) {
    const int size = int(std::min<std::int64_t>(kTileSize, hi - base));
    std::uint64_t t[kHold ? kItems : 1];
    std::uint32_t pr[kItems];  // partition | rank << kPartitionBits
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int j = k * kThreads + int(threadIdx.x);
      if (j < size) {
        if constexpr (kHold) t[k] = in[base + j];
        pr[k] = ids[base + j];
      }
    }
#pragma unroll
    for (int k = 0; k < kItems; ++k)
      if (k * kThreads + int(threadIdx.x) < size) pr[k] |= atomicAdd(&count[padded(pr[k])], 1u) << kPartitionBits;
    __syncthreads();
    std::uint32_t sum = 0;
    for (std::uint32_t q = 0; q < per; ++q) {
      const std::uint32_t c = threadIdx.x * per + q;
      if (c < fanout) sum += count[padded(c)];
    }
    std::uint32_t before = 0;
    Scan(scan_storage).ExclusiveSum(sum, before);
    for (std::uint32_t q = 0; q < per; ++q) {
      const std::uint32_t c = threadIdx.x * per + q;
      if (c < fanout) start[padded(c)] = before, before += count[padded(c)];
    }
    __syncthreads();
#pragma unroll
    for (int k = 0; k < kItems; ++k) {
      const int j = k * kThreads + int(threadIdx.x);
      if (j < size) {
        const std::uint32_t p = pr[k] & ((1u << kPartitionBits) - 1);
        const std::uint32_t s = start[padded(p)] + (pr[k] >> kPartitionBits);
        if constexpr (kHold)
          stage[s] = t[k];
        else
          stage[s] = in[base + j];
        stage_p[s] = std::uint16_t(p);
      }
    }
    __syncthreads();
    for (int j = int(threadIdx.x); j < size; j += kThreads) {
      const std::uint32_t q = padded(stage_p[j]);
      out[cursor[q] + (std::uint32_t(j) - start[q])] = stage[j];
    }
    __syncthreads();
    for (std::uint32_t c = threadIdx.x; c < fanout; c += kThreads) cursor[padded(c)] += count[padded(c)], count[padded(c)] = 0;
    __syncthreads();
  }
}

// The tile by the fanout (H200, results/h200/primitives/probes/split_tiles.json): 8192 tuples up to
// fanout 256, 16384 beyond, where a partition's run in a smaller tile falls below a 32-byte sector.
inline int default_tile(std::uint32_t fanout) { return fanout < 512 ? 8192 : 16384; }
inline int tile_or_default(std::uint32_t fanout, int tile) { return tile ? tile : default_tile(fanout); }

}  // namespace split_staged_detail

// The tiles split_staged takes: 0 (the default by the fanout), 4096, 8192 or 16384 tuples; and, a
// matrix cell a partition a tile, fewer cells than CUB's scan counts (int).
inline std::string split_staged_unsupported(std::int64_t n, std::uint32_t fanout, int tile) {
  if (tile != 0 && tile != 4096 && tile != 8192 && tile != 16384) return "split_tile: 0 (by the fanout), 4096, 8192 or 16384";
  tile = split_staged_detail::tile_or_default(fanout, tile);
  if (double(fanout) * double(ceil_div(n, std::int64_t(tile))) >= 2147483647.0) return "fanout x tiles >= 2^31: the matrix's scan counts in int";
  return {};
}

inline std::size_t split_staged_scratch_bytes(std::int64_t n, std::uint32_t fanout, int tile = 0) {
  return split_detail::SplitScratch(nullptr, n, fanout, 0, true, split_staged_detail::tile_or_default(fanout, tile)).total;
}

// Thread blocks (one a tile) the staged split of n tuples runs: a record's metric.
inline int split_staged_blocks(std::int64_t n, std::uint32_t fanout, int tile = 0) {
  return split_detail::SplitScratch(nullptr, n, fanout, 0, true, split_staged_detail::tile_or_default(fanout, tile)).blocks;
}

// in[0, n): tuple words; out[0, n): the tuples grouped by partition, in partition order; scratch:
// split_staged_scratch_bytes(n, fanout, tile) bytes; sizes and tile as split_unsupported and
// split_staged_unsupported allow.
inline void split_staged(const std::uint64_t* in, std::int64_t n, std::uint32_t fanout, std::uint64_t* out, void* scratch, std::size_t scratch_bytes,
                         cudaStream_t stream, int tile = 0) {
  if (n <= 0) return;
  namespace d = split_staged_detail;
  tile = d::tile_or_default(fanout, tile);
  split_detail::SplitScratch w(scratch, n, fanout, scratch_bytes, true, tile);
  d::count_ids_kernel<<<w.blocks, split_detail::kThreads, std::size_t(fanout) * sizeof(std::uint32_t), stream>>>(in, n, w.chunk, fanout, w.hist,
                                                                                                            w.ids);
  LP_CUDA_LAUNCH("split_staged count_ids_kernel");
  std::size_t bytes = w.cub_bytes;
  LP_CUDA(cub::DeviceScan::ExclusiveSum(w.cub, bytes, w.hist, w.offsets, int(w.cells), stream));
  const std::size_t smem = d::staged_bytes(fanout, tile);
  const auto launch = [&](auto kernel) {
    allow_dynamic_shared(reinterpret_cast<const void*>(kernel), smem);
    kernel<<<w.blocks, d::kThreads, smem, stream>>>(in, w.ids, n, w.chunk, fanout, w.offsets, out);
  };
  switch (tile) {
    case 4096: launch(d::scatter_staged_kernel<8>); break;
    case 8192: launch(d::scatter_staged_kernel<16>); break;
    case 16384: launch(d::scatter_staged_kernel<32>); break;
    default: throw std::invalid_argument(split_staged_unsupported(n, fanout, tile));
  }
  LP_CUDA_LAUNCH("split_staged scatter_staged_kernel");
}

}  // namespace lp::join
