// Beyond the thesis: multiscan for large m by one stable partition pass. A multiscan
// needs the order of equal labels, not a sorted output, so instead of sorting every label bit:
//   1. count: each tile of 4096 inputs (2048 for 8-byte values) counts its digits (the top <= 8
//      label bits, one ballot a bit groups equal ones in a warp), and a scan of
//      the counts, digit-major, gives every (digit, tile) its place;
//   2. partition: each tile ranks its inputs by digit, stably (warps in order, lanes in order), and
//      writes (low label bits, value) to its digit's partition, in runs, through shared memory; it
//      also writes, in input order, where each input went;
//   3. scan: single_pass over the partitions at once, with m' = m / 2^digit_bits labels: every
//      partition starts on a tile of its own and its first tile does not look back, so the
//      partitions are independent scans in one launch (no tile mixes two of them);
//   4. gather: out[i] = result[where input i went], read in input order (writes coalesced; the
//      reads land in runs of the tile's digits).
// About 48 bytes of traffic a 4-byte input against a multiscan's 12, but none of it scattered
// element by element: the sort-based variants' scatter of every result to its index (and CUB's
// gather and scatter through the permutation) costs more than the sort itself at m >= 2^16.
// Measured (results/h100/multiscan/probes/README.md, partitioned): 2.0-3.4x CUB sort + scan-by-key
// on uniform and zipf labels from m = 2^12 to 2^20 on the H100.
#pragma once
#include <cub/block/block_scan.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <stdexcept>
#include <string>

#include "../common/carve.hpp"
#include "single_pass.cuh"

namespace lp::multiscan {

namespace partitioned_detail {

constexpr int kThreads = 256, kWarps = kThreads / 32;
// The partition pass's tiles: 256 threads x 16 inputs (8 for 8-byte values), which the block lays
// out by digit in its 48 KB of static shared memory.
constexpr int items_for(std::size_t value_bytes) { return value_bytes > 4 ? 8 : 16; }
constexpr int kMaxDigitBits = 8;          // one partition pass: at most 256 partitions (one digit a thread)
constexpr int kMaxParts = 1 << kMaxDigitBits;
// The labels left to each partition's scan where m allows: single_pass is at its best up to 256
// (results/h100/multiscan/targets.json: 0.55-0.88 ms at m <= 256 against 1.1 at 1024, 3.0 at 4096).
constexpr int kLowBits = 8;

struct Plan {
  int digit_bits = 0, shift = 0;  // digit = label >> shift, the label within its partition = label & (2^shift - 1)
  std::uint32_t parts = 1, low_m = 1;
  std::int64_t tiles = 0;               // partition-pass tiles of kThreads x items_for(value bytes) inputs
  single_pass_detail::Plan scan;        // the scan of the partitions, over scan.tiles tiles of scan_tile inputs
  std::int64_t scan_tile = 0;
  std::string why;
};

// Digit bits: the tuning's sort_bits, else as many as leave kLowBits below them, at least one (m <= 256:
// two partitions) and at most kMaxDigitBits.
inline Plan plan(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  Plan p;
  const int bits = label_bits(std::max<std::uint32_t>(m, 1));
  p.digit_bits = t.sort_bits > 0 ? t.sort_bits : std::clamp(bits - kLowBits, 1, kMaxDigitBits);
  p.digit_bits = std::min(p.digit_bits, bits);
  if (p.digit_bits > kMaxDigitBits) {
    p.why = "sort_bits = " + std::to_string(t.sort_bits) + ": partitioned partitions by at most " + std::to_string(kMaxDigitBits) + " bits";
    return p;
  }
  p.shift = bits - p.digit_bits;
  p.low_m = std::min<std::uint32_t>(std::max<std::uint32_t>(m, 1), std::uint32_t(1) << p.shift);
  p.parts = std::uint32_t(ceil_div(std::max<std::uint32_t>(m, 1), std::int64_t(1) << p.shift));
  p.tiles = ceil_div(std::max<std::int64_t>(n, 1), std::int64_t(kThreads) * items_for(value_bytes));
  // The scan's tiles: those of n, plus one per partition for the partitions' last, partial tiles.
  const single_pass_detail::Plan first = single_pass_detail::plan(n, p.low_m, value_bytes, Tuning{});
  if (!first.why.empty()) {
    p.why = "the partitions' scan: " + first.why;
    return p;
  }
  p.scan_tile = std::int64_t(first.threads) * first.items;
  p.scan = single_pass_detail::plan((ceil_div(std::max<std::int64_t>(n, 1), p.scan_tile) + p.parts) * p.scan_tile, p.low_m, value_bytes, Tuning{});
  if (!p.scan.why.empty()) p.why = "the partitions' scan: " + p.scan.why;
  if (p.scan.tiles * p.scan_tile > (std::int64_t(1) << 31)) p.why = "n too large: partition positions are 32-bit";
  return p;
}

template <class T>
struct Layout {
  std::uint32_t *counts, *offsets, *part_base, *tile_info, *keys, *dest;
  T *vals, *results;
  void *cub_temp, *scan_scratch;
  std::size_t cub_bytes = 0, total = 0;
};

template <class T>
Layout<T> layout(void* scratch, const Plan& p, std::int64_t n) {
  Carve c(scratch);
  Layout<T> l{};
  const std::size_t cells = std::size_t(p.parts) * p.tiles, slots = std::size_t(p.scan.tiles * p.scan_tile);
  l.counts = c.take<std::uint32_t>(cells);
  l.offsets = c.take<std::uint32_t>(cells);
  l.part_base = c.take<std::uint32_t>(p.parts);
  l.tile_info = c.take<std::uint32_t>(std::size_t(p.scan.tiles));
  l.keys = c.take<std::uint32_t>(slots);
  l.vals = c.take<T>(slots);
  l.results = c.take<T>(slots);
  l.dest = c.take<std::uint32_t>(std::size_t(std::max<std::int64_t>(n, 1)));
  LP_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, l.cub_bytes, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
                                        std::int64_t(cells)));
  l.cub_temp = c.take<char>(l.cub_bytes);
  l.scan_scratch = c.rest();
  l.total = c.used() + single_pass_detail::look_back_bytes<T>(p.scan.tiles, p.low_m);
  return l;
}

// The lanes whose digit equals this lane's, by one ballot a bit (the warp-level multisplit of
// Ashkiani et al.); lanes past the end (valid false) group only among themselves. Constant cost
// however many digits a step holds, where match.any's grows with them (H100, ncu: counting 256
// digits took 0.67 ms against 0.14 for 4 over the same 2^26 labels). Always kMaxDigitBits ballots:
// a digit's bits above its width are 0 in every lane and change nothing, while branching on the
// width put a convergence barrier around each ballot (H200: 0.3-0.5 ms to count, against 0.4 now
// at 96% of the warps active where that ran at 36%).
__device__ __forceinline__ unsigned digit_peers(std::uint32_t digit, bool valid) {
  const unsigned in = __ballot_sync(0xffffffffu, valid);
  unsigned peers = valid ? in : ~in;
#pragma unroll
  for (int b = 0; b < kMaxDigitBits; ++b) {
    const bool bit = (digit >> b) & 1u;
    const unsigned set = __ballot_sync(0xffffffffu, bit);
    peers &= bit ? set : ~set;
  }
  return peers;
}

// One 32-input step of a warp that counts digits in input order: returns how many of the warp's
// inputs so far (earlier steps, lower lanes of this step) share the lane's digit, and moves the
// warp's counters (shared memory, one per digit) on. One leader lane per digit of the step reads
// and writes its counter, so no atomics are needed.
__device__ __forceinline__ std::uint32_t warp_rank_step(std::uint32_t digit, bool valid, std::uint32_t* counters) {
  const int lane = threadIdx.x & 31;
  const unsigned peers = digit_peers(digit, valid);
  const int leader = __ffs(peers) - 1;
  std::uint32_t before = 0;
  if (lane == leader && valid) before = counters[digit];
  before = __shfl_sync(0xffffffffu, before, leader);
  if (lane == leader && valid) counters[digit] = before + __popc(peers);
  __syncwarp();  // the next step's leader (maybe another lane) reads what this one wrote
  return before + __popc(peers & ((1u << lane) - 1u));
}

// warp_rank_step without the rank: the leader of each digit adds its lanes.
__device__ __forceinline__ void warp_count_step(std::uint32_t digit, bool valid, std::uint32_t* counters) {
  const unsigned peers = digit_peers(digit, valid);
  if (valid && (threadIdx.x & 31) == __ffs(peers) - 1) counters[digit] += __popc(peers);
  __syncwarp();  // the next step's leader (maybe another lane) reads what this one wrote
}

// Warp w of a tile takes inputs [tile * TILE + w * 32 * ITEMS, ... + 32 * ITEMS), step k its 32
// inputs from k * 32: consecutive lanes read consecutive inputs, and the order of (warp, step,
// lane) is the input order.
template <int ITEMS>
__device__ __forceinline__ std::int64_t first_input(std::int64_t tile) {
  return tile * kThreads * ITEMS + std::int64_t(threadIdx.x / 32) * 32 * ITEMS + (threadIdx.x & 31);
}

// Pass 1: counts[d * tiles + tile] = inputs of the tile with digit d.
template <int ITEMS>
__global__ void __launch_bounds__(kThreads) count_kernel(const std::uint32_t* __restrict__ labels, std::int64_t n, int shift,
                                                         std::uint32_t parts, std::int64_t tiles, std::uint32_t* __restrict__ counts) {
  __shared__ std::uint32_t cnt[kWarps][kMaxParts];
  for (int i = threadIdx.x; i < kWarps * kMaxParts; i += kThreads) (&cnt[0][0])[i] = 0;
  __syncthreads();
  const std::int64_t base = first_input<ITEMS>(blockIdx.x);
  std::uint32_t d[ITEMS];
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) d[k] = base + 32 * k < n ? __ldg(labels + base + 32 * k) >> shift : 0u;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) warp_count_step(d[k], base + 32 * k < n, cnt[threadIdx.x / 32]);
  __syncthreads();
  for (std::uint32_t g = threadIdx.x; g < parts; g += kThreads) {
    std::uint32_t sum = 0;
#pragma unroll
    for (int w = 0; w < kWarps; ++w) sum += cnt[w][g];
    counts[std::int64_t(g) * tiles + blockIdx.x] = sum;
  }
}

// One block: where each partition starts in the scan's tile-aligned space (part_base[d] + offsets
// of its cells), and every scan tile's word (SegmentedLabels): its inputs, and whether it starts a
// partition. Tiles past the last partition hold nothing and start (so never look back).
__global__ void __launch_bounds__(kMaxParts) plan_kernel(const std::uint32_t* __restrict__ offsets, std::int64_t n, std::uint32_t parts,
                                                         std::int64_t tiles, std::int64_t scan_tile, std::int64_t scan_tiles,
                                                         std::uint32_t* __restrict__ part_base, std::uint32_t* __restrict__ tile_info) {
  using Scan = cub::BlockScan<std::uint32_t, kMaxParts>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ std::uint32_t first_tile[kMaxParts + 1], lo[kMaxParts + 1];
  const std::uint32_t g = threadIdx.x;
  const std::int64_t begin = g < parts ? offsets[std::int64_t(g) * tiles] : n;
  const std::int64_t end = g + 1 < parts ? offsets[std::int64_t(g + 1) * tiles] : n;
  const std::uint32_t own = g < parts ? std::uint32_t(ceil_div(end - begin, scan_tile)) : 0u;
  std::uint32_t first = 0, all = 0;
  Scan(scan).ExclusiveSum(own, first, all);
  first_tile[g] = first;
  lo[g] = std::uint32_t(begin);
  if (g == 0) first_tile[kMaxParts] = all, lo[kMaxParts] = std::uint32_t(n);
  if (g < parts) part_base[g] = std::uint32_t(first * scan_tile - begin);
  __syncthreads();
  for (std::int64_t t = g; t < scan_tiles; t += kMaxParts) {
    if (t >= all) {
      tile_info[t] = single_pass_detail::kFirstTile;
      continue;
    }
    int a = 0, b = kMaxParts;  // the last partition whose first tile is <= t (empty ones share it: take the last)
    while (b - a > 1) {
      const int mid = (a + b) / 2;
      if (first_tile[mid] <= t) a = mid;
      else b = mid;
    }
    const std::int64_t k = t - first_tile[a], size = std::int64_t(lo[a + 1]) - lo[a];
    tile_info[t] = std::uint32_t(std::min(scan_tile, size - k * scan_tile)) | (k == 0 ? single_pass_detail::kFirstTile : 0u);
  }
}

// Pass 2: the tile's inputs ranked by digit in input order, laid out by digit in shared memory,
// then written in runs: (label & low mask, value) to part_base[d] + offsets[d][tile] + rank; and
// dest[i], in input order, the slot input i went to. (Capping the registers for 3 blocks an SM
// spilled; a block per run of tiles, as a reduce-then-scan radix sort's downsweep, measured 1.3-1.7x
// slower: its tiles' loads wait one after another.)
template <class T, int ITEMS>
__global__ void __launch_bounds__(kThreads) scatter_kernel(const std::uint32_t* __restrict__ labels, const T* __restrict__ values,
                                                              std::int64_t n, int shift, std::uint32_t parts, std::int64_t tiles,
                                                           const std::uint32_t* __restrict__ offsets, const std::uint32_t* __restrict__ part_base,
                                                           std::uint32_t* __restrict__ keys, T* __restrict__ vals, std::uint32_t* __restrict__ dest) {
  using Scan = cub::BlockScan<std::uint32_t, kThreads>;
  static_assert(kThreads >= kMaxParts, "one digit a thread");
  __shared__ std::uint32_t cnt[kWarps][kMaxParts];
  __shared__ std::uint32_t start[kMaxParts], slot_base[kMaxParts];
  __shared__ typename Scan::TempStorage scan;
  constexpr int TILE = kThreads * ITEMS;
  __shared__ std::uint32_t s_labels[TILE];
  __shared__ T s_vals[TILE];
  for (int i = threadIdx.x; i < kWarps * kMaxParts; i += kThreads) (&cnt[0][0])[i] = 0;
  __syncthreads();
  const int w = threadIdx.x / 32;
  const std::int64_t base = first_input<ITEMS>(blockIdx.x);
  std::uint32_t l[ITEMS], r[ITEMS];
  T v[ITEMS];
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const bool in = base + 32 * k < n;
    l[k] = in ? __ldg(labels + base + 32 * k) : 0u;
    v[k] = in ? values[base + 32 * k] : T{};
  }
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) r[k] = warp_rank_step(l[k] >> shift, base + 32 * k < n, cnt[w]);
  __syncthreads();
  // Per digit: the warps before each warp (exclusive), the tile's count, the tile's digit starts.
  const std::uint32_t g = threadIdx.x;
  std::uint32_t total = 0;
  if (g < parts)
#pragma unroll
    for (int k = 0; k < kWarps; ++k) {
      const std::uint32_t c = cnt[k][g];
      cnt[k][g] = total;
      total += c;
    }
  std::uint32_t first;
  Scan(scan).ExclusiveSum(total, first);
  if (g < parts) start[g] = first, slot_base[g] = part_base[g] + offsets[std::int64_t(g) * tiles + blockIdx.x];
  __syncthreads();
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    if (base + 32 * k >= n) continue;
    const std::uint32_t d = l[k] >> shift, rank = cnt[w][d] + r[k];
    s_labels[start[d] + rank] = l[k];
    s_vals[start[d] + rank] = v[k];
    dest[base + 32 * k] = slot_base[d] + rank;
  }
  __syncthreads();
  const int valid = int(std::min<std::int64_t>(TILE, n - std::int64_t(blockIdx.x) * TILE));
  const std::uint32_t low = (std::uint64_t(1) << shift) - 1;
  for (int s = threadIdx.x; s < valid; s += kThreads) {
    const std::uint32_t lab = s_labels[s], d = lab >> shift;
    const std::uint32_t at = slot_base[d] + (std::uint32_t(s) - start[d]);
    keys[at] = lab & low;
    vals[at] = s_vals[s];
  }
}

// Pass 4: every result back to its input's place. Block b takes the partition pass's tile b, whose
// results lie in runs of its digits that the block's warps share through L1 (a grid-stride loop
// spread a tile's runs over SMs: ncu measured twice the DRAM reads with 256 partitions).
template <class T, int ITEMS>
__global__ void __launch_bounds__(kThreads) gather_kernel(const std::uint32_t* __restrict__ dest, const T* __restrict__ results, std::int64_t n,
                                                          T* __restrict__ out) {
  const std::int64_t base = std::int64_t(blockIdx.x) * kThreads * ITEMS + threadIdx.x;
  std::uint32_t at[ITEMS];
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) at[k] = base + k * kThreads < n ? __ldg(dest + base + k * kThreads) : 0u;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k)
    if (base + k * kThreads < n) out[base + k * kThreads] = multireduce::ldg_any(results + at[k]);
}

}  // namespace partitioned_detail

inline std::string partitioned_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  return partitioned_detail::plan(n, m, value_bytes, t).why;
}

template <class T>
std::size_t partitioned_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  return partitioned_detail::layout<T>(nullptr, partitioned_detail::plan(n, m, sizeof(T), t), n).total;
}

template <class Op>
void partitioned(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                 typename Op::value_type* out, void* scratch, const Tuning& t, cudaStream_t stream) {
  using T = typename Op::value_type;
  namespace d = partitioned_detail;
  if (n <= 0) return;
  const d::Plan p = d::plan(n, m, sizeof(T), t);
  if (!p.why.empty()) throw std::invalid_argument("partitioned: " + p.why);
  const d::Layout<T> l = d::layout<T>(scratch, p, n);
  const unsigned tiles = static_cast<unsigned>(p.tiles);
  constexpr int kItems = d::items_for(sizeof(T));
  d::count_kernel<kItems><<<tiles, d::kThreads, 0, stream>>>(labels, n, p.shift, p.parts, p.tiles, l.counts);
  LP_CUDA_LAUNCH("partitioned count_kernel");
  std::size_t bytes = l.cub_bytes;
  LP_CUDA(cub::DeviceScan::ExclusiveSum(l.cub_temp, bytes, l.counts, l.offsets, std::int64_t(p.parts) * p.tiles, stream));
  d::plan_kernel<<<1, d::kMaxParts, 0, stream>>>(l.offsets, n, p.parts, p.tiles, p.scan_tile, p.scan.tiles, l.part_base, l.tile_info);
  LP_CUDA_LAUNCH("partitioned plan_kernel");
  d::scatter_kernel<T, kItems><<<tiles, d::kThreads, 0, stream>>>(labels, values, n, p.shift, p.parts, p.tiles, l.offsets, l.part_base,
                                                                   l.keys, l.vals, l.dest);
  LP_CUDA_LAUNCH("partitioned scatter_kernel");
  single_pass_detail::launch<Op>(p.scan, single_pass_detail::SegmentedLabels{{l.keys}, l.tile_info}, l.vals, p.scan.tiles * p.scan_tile,
                                 p.low_m, inclusive, l.results, l.scan_scratch, stream);
  d::gather_kernel<T, kItems><<<tiles, d::kThreads, 0, stream>>>(l.dest, l.results, n, out);
  LP_CUDA_LAUNCH("partitioned gather_kernel");
}

}  // namespace lp::multiscan
