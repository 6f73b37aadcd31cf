// Ours, beyond He et al. 2008's Algorithm 1 (3.1.4; split.cuh): the same five steps, but each tile
// is grouped by partition in shared memory before it goes out, so that the tuples of one partition
// leave as one run of consecutive addresses (a warp's stores fill whole sectors) instead of one
// scattered 8-byte write each. Algorithm 1 as written, on the H200 at 2^26 tuples, spends 2.3 ms
// (fanout 256) and 3.8 ms (2048) in its scatter: 221-369 cycles between a warp's instructions
// waiting on the stores (results/h200/primitives/profiles/). And the hash is computed once: the
// count pass writes each tuple's partition id, which the scatter reads back (4 bytes more each way,
// against the splitmix finaliser and a 32-bit remainder that keep Algorithm 1's count pass at 95% of
// the SMs' issue). The steps:
//   (1, 2) block b counts its tile per partition in shared memory, writes the ids, and writes the
//          counts as row b of a [tiles x fanout] matrix (one coalesced run);
//   (3)    the matrix exclusive-scanned partition-major, as in split.cuh, but left row-major
//          (common/column_scan.cuh), so that block b reads its cursors as one run too;
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
// The matrix has a cell a partition a tile (16.8 M at fanout 4096). Partition-major, as Algorithm 1
// lays it out, each block wrote and read its cells a column's length apart: the count pass took 484 us
// at 4096 against 206 at 256; row-major, 211 us (profiles/README.md), for 17 us more in the scan.
// What it reaches (H200, 2^26 tuples, results/h200/primitives/split.json, probes/split_rowmajor.json):
// 1.27x, 1.42x, 1.52x and 1.21x CUB's radix split at fanout 16, 256, 2048 and 4096. At 4096 the
// scatter is the limit: a 16384-tuple tile holds four tuples a partition and takes 193 KiB of shared
// memory, one block an SM (24% occupancy), waiting on its loads (932 us of the 1.21 ms).
#pragma once
#include <cub/block/block_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "../common/carve.hpp"
#include "../common/column_scan.cuh"
#include "../common/launch_cache.cuh"
#include "split.cuh"

namespace lp::join {

namespace split_staged_detail {

constexpr int kThreads = 512;
constexpr std::uint32_t kAggregateBelow = 64;  // below this fanout a warp's lanes collide: aggregated counts

// Steps (1) and (2), the ids kept: block b counts tile b, pairs of tuples by 16-byte loads (tiles are
// whole block widths, so every pair starts 16-byte aligned), the counts by plain shared atomics where
// the fanout spreads them and warp-aggregated (split.cuh's warp_bump) where it does not; and writes
// them as row b of the [tiles x fanout] matrix, one coalesced run.
static __global__ void __launch_bounds__(split_detail::kThreads)
    count_ids_kernel(const std::uint64_t* __restrict__ in, std::int64_t n, std::int64_t tile, std::uint32_t fanout, std::uint32_t* __restrict__ hist,
                     std::uint32_t* __restrict__ ids) {
  extern __shared__ std::uint32_t counts[];
  for (std::uint32_t p = threadIdx.x; p < fanout; p += blockDim.x) counts[p] = 0;
  __syncthreads();
  const bool aggregate = fanout < kAggregateBelow;
  const std::int64_t lo = std::int64_t(blockIdx.x) * tile, hi = std::min(n, lo + tile);
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
  for (std::uint32_t p = threadIdx.x; p < fanout; p += blockDim.x) hist[std::size_t(blockIdx.x) * fanout + p] = counts[p];
}

// The tile's cells in shared memory, one word a partition: one word of padding every 32, so that a
// thread's run of `per` cells in the scan (thread t owns cells t*per .. t*per+per-1) and the write
// loop's walk over consecutive partitions both fall in distinct banks (4- and 8-way conflicts
// unpadded at fanout 2048 and 4096).
__host__ __device__ inline std::uint32_t padded(std::uint32_t c) { return c + (c >> 5); }
__host__ __device__ inline std::uint32_t padded_cells(std::uint32_t fanout) { return padded(fanout) + 1; }

// A tuple's partition and its rank in the tile's partition counter, one word: fanout <= 4096 (12 bits)
// and a rank below the tile (< 16384: 14 bits above them).
constexpr int kPartitionBits = 12;

using Scan = cub::BlockScan<std::uint32_t, kThreads>;

// The scatter's shared memory, all of it dynamic (so that the opt-in beyond 48 KiB sees the whole
// size): the scan's storage, the stage (the tile's tuples), two arrays of the tile's cells
// (padded_cells(fanout) words each), the staged tuples' partitions (16 bits). 16384 tuples take
// 193 KiB at fanout 4096: one block an SM. Staging such a tile in two halves of 64 KiB, with one
// array of cells (two blocks an SM), measured 10-14% slower at every fanout
// (probes/split_two_pass.json): each half's loads touch every sector of the tile.
constexpr std::size_t kScanBytes = (sizeof(Scan::TempStorage) + 15) / 16 * 16;  // the stage after it 16-byte aligned
inline std::size_t staged_bytes(std::uint32_t fanout, int tile) {
  return kScanBytes + std::size_t(tile) * (sizeof(std::uint64_t) + sizeof(std::uint16_t)) + 2 * std::size_t(padded_cells(fanout)) * sizeof(std::uint32_t);
}

// Steps (4) and (5), staged: block b lays tile b (kThreads x kItems tuples) out by partition. Small
// tiles (kItems <= 8) load their tuples with the ids, before the ranks; larger ones hold only each
// tuple's partition and rank (one word) through the cells' scan and load the tuples after it,
// straight into the stage, so that 16 or 32 a thread fit in registers. A partition's cell holds its
// count in the tile, then (scanned in place) its start in the tile; its delta, the distance from the
// stage to the output (row b of the scanned matrix, less the start). The delta in a cell of its own
// saves a barrier and a pass over the tuples' ranks: about 5% of the split at fanout 16 and 256
// (probes/split_one_cell_array.json, one array rewritten in place). Two blocks an SM up
// to 8192 tuples (64 registers a thread at most); the 16384-tuple tile's one block may take more,
// so that its 32 words a thread do not spill.
template <int kItems>
static __global__ void __launch_bounds__(kThreads, kItems <= 16 ? 2 : 1)
    scatter_staged_kernel(const std::uint64_t* __restrict__ in, const std::uint32_t* __restrict__ ids, std::int64_t n, std::uint32_t fanout,
                          const std::uint32_t* __restrict__ offsets, std::uint64_t* __restrict__ out) {
  constexpr int kTileSize = kThreads * kItems;
  constexpr bool kHold = kItems <= 8;
  extern __shared__ __align__(16) unsigned char smem[];
  auto& scan_storage = *reinterpret_cast<Scan::TempStorage*>(smem);
  auto* stage = reinterpret_cast<std::uint64_t*>(smem + kScanBytes);
  std::uint32_t* cell = reinterpret_cast<std::uint32_t*>(stage + kTileSize);
  std::uint32_t* delta = cell + padded_cells(fanout);
  auto* stage_p = reinterpret_cast<std::uint16_t*>(delta + padded_cells(fanout));
  const std::uint32_t per = (fanout + kThreads - 1) / kThreads;  // cells a thread scans, in a row
  const std::int64_t base = std::int64_t(blockIdx.x) * kTileSize;
  const int size = int(std::min<std::int64_t>(kTileSize, n - base));
  const std::uint64_t* tile_in = in + base;
  std::uint64_t t[kHold ? kItems : 1];
  std::uint32_t pr[kItems];
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int j = k * kThreads + int(threadIdx.x);
    if (j < size) {
      if constexpr (kHold) t[k] = tile_in[j];
      pr[k] = ids[base + j];
    }
  }
  // The tile's row of the scanned matrix, loaded with the ids and kept in the stage, which is free
  // until the tuples are laid out (at least 8192 words, fanout <= 4096).
  auto* row = reinterpret_cast<std::uint32_t*>(stage);
  for (std::uint32_t p = threadIdx.x; p < fanout; p += kThreads) {
    row[p] = offsets[std::size_t(blockIdx.x) * fanout + p];
    cell[padded(p)] = 0;
  }
  __syncthreads();
#pragma unroll
  for (int k = 0; k < kItems; ++k)
    if (k * kThreads + int(threadIdx.x) < size) pr[k] |= atomicAdd(&cell[padded(pr[k])], 1u) << kPartitionBits;
  __syncthreads();
  std::uint32_t sum = 0;
  for (std::uint32_t q = 0; q < per; ++q) {
    const std::uint32_t c = threadIdx.x * per + q;
    if (c < fanout) sum += cell[padded(c)];
  }
  std::uint32_t before = 0;
  Scan(scan_storage).ExclusiveSum(sum, before);
  for (std::uint32_t q = 0; q < per; ++q) {
    const std::uint32_t c = threadIdx.x * per + q;
    if (c < fanout) {
      const std::uint32_t count = cell[padded(c)];
      cell[padded(c)] = before;
      delta[padded(c)] = row[c] - before;  // mod 2^32: + the place in the tile gives the output's index
      before += count;
    }
  }
  __syncthreads();
  constexpr std::uint32_t kMask = (1u << kPartitionBits) - 1;
#pragma unroll
  for (int k = 0; k < kItems; ++k) {
    const int j = k * kThreads + int(threadIdx.x);
    if (j < size) {
      const std::uint32_t p = pr[k] & kMask, s = cell[padded(p)] + (pr[k] >> kPartitionBits);
      if constexpr (kHold)
        stage[s] = t[k];
      else
        stage[s] = tile_in[j];
      stage_p[s] = std::uint16_t(p);
    }
  }
  __syncthreads();
  for (int j = int(threadIdx.x); j < size; j += kThreads) out[delta[padded(stage_p[j])] + std::uint32_t(j)] = stage[j];
}

// The tile by the fanout (H200, results/h200/primitives/probes/split_tiles.json): 8192 tuples up to
// fanout 256, 16384 beyond, where a partition's run in a smaller tile falls below a 32-byte sector.
inline int default_tile(std::uint32_t fanout) { return fanout < 512 ? 8192 : 16384; }
inline int tile_or_default(std::uint32_t fanout, int tile) { return tile ? tile : default_tile(fanout); }

// Tiles (one block each, a row of the matrix each) of n tuples.
inline std::int64_t tiles_of(std::int64_t n, int tile) { return std::max<std::int64_t>(1, ceil_div(n, std::int64_t(tile))); }

// The scratch's layout: the [tiles x fanout] matrix and its scan, the ids, the column scan's scratch.
// base null: only the size; base set: the pieces of a region of `bytes` (the size computed before).
struct Scratch {
  int tiles;
  std::uint32_t *hist, *offsets, *ids;
  void* scan;
  std::size_t scan_bytes, total;
  Scratch(void* base, std::int64_t n, std::uint32_t fanout, int tile, std::size_t bytes) {
    tiles = int(tiles_of(n, tile));
    const std::size_t cells = std::size_t(fanout) * std::size_t(tiles);
    Carve c(base);
    hist = c.take<std::uint32_t>(cells);
    offsets = c.take<std::uint32_t>(cells);
    ids = c.take<std::uint32_t>(std::size_t(std::max<std::int64_t>(n, 1)));
    scan = c.take_rest(bytes, [&] { return column_scan_scratch_bytes(tiles, fanout); }, scan_bytes);
    total = c.used();
  }
};

}  // namespace split_staged_detail

// The tiles split_staged takes: 0 (the default by the fanout), 4096, 8192 or 16384 tuples; and a
// matrix (a cell a partition a tile, with its scan 8 bytes each) below 16 GiB.
inline std::string split_staged_unsupported(std::int64_t n, std::uint32_t fanout, int tile) {
  if (tile != 0 && tile != 4096 && tile != 8192 && tile != 16384) return "split_tile: 0 (by the fanout), 4096, 8192 or 16384";
  if (double(fanout) * double(split_staged_detail::tiles_of(n, split_staged_detail::tile_or_default(fanout, tile))) >= 2147483648.0) return "fanout x tiles >= 2^31: the matrix and its scan would pass 16 GiB";
  return {};
}

inline std::size_t split_staged_scratch_bytes(std::int64_t n, std::uint32_t fanout, int tile = 0) {
  return split_staged_detail::Scratch(nullptr, n, fanout, split_staged_detail::tile_or_default(fanout, tile), 0).total;
}

// Thread blocks (one a tile) the staged split of n tuples runs: a record's metric.
inline int split_staged_blocks(std::int64_t n, std::uint32_t fanout, int tile = 0) {
  return int(split_staged_detail::tiles_of(n, split_staged_detail::tile_or_default(fanout, tile)));
}

// in[0, n): tuple words; out[0, n): the tuples grouped by partition, in partition order; scratch:
// split_staged_scratch_bytes(n, fanout, tile) bytes; sizes and tile as split_unsupported and
// split_staged_unsupported allow.
inline void split_staged(const std::uint64_t* in, std::int64_t n, std::uint32_t fanout, std::uint64_t* out, void* scratch, std::size_t scratch_bytes,
                         cudaStream_t stream, int tile = 0) {
  if (n <= 0) return;
  namespace d = split_staged_detail;
  tile = d::tile_or_default(fanout, tile);
  const d::Scratch w(scratch, n, fanout, tile, scratch_bytes);
  d::count_ids_kernel<<<w.tiles, split_detail::kThreads, std::size_t(fanout) * sizeof(std::uint32_t), stream>>>(in, n, tile, fanout, w.hist, w.ids);
  LP_CUDA_LAUNCH("split_staged count_ids_kernel");
  column_exclusive_scan(w.hist, w.tiles, fanout, w.offsets, w.scan, w.scan_bytes, stream);
  const std::size_t smem = d::staged_bytes(fanout, tile);
  const auto launch = [&](auto kernel) {
    allow_dynamic_shared(reinterpret_cast<const void*>(kernel), smem);
    kernel<<<w.tiles, d::kThreads, smem, stream>>>(in, w.ids, n, fanout, w.offsets, out);
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
