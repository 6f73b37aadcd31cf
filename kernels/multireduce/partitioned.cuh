// Beyond the thesis: Alg 4.12's partitioning cut to one radix pass. CUB's stable sort of
// the pairs by the label bits above a shared-memory window (partial_sort.cuh) makes each partition's
// inputs contiguous; then one block per piece of a partition reduces it in a bucket window in shared
// memory and writes the window out (adds it, where a partition is cut into several pieces); where
// one more CUB pass would be needed, 2 or 4 blocks share a piece instead, each keeping a slice of
// its window (the label windows of shared_privatized, whose re-reads hit L2). Where
// the buckets exceed what L2 atomics serve well, this pays ~24 bytes of traffic per input instead of
// one scattered atomic. Commutative only (the window's updates are shared-memory atomics).
#pragma once
#include <cuda_runtime.h>

#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <stdexcept>

#include "../common/carve.hpp"
#include "../common/partial_sort.cuh"
#include "common.cuh"
#include "shared_privatized.cuh"  // privatized_warp_update: the whole-warp aggregation of equal labels

namespace lp::multireduce {

struct PartitionedPlan {
  int window_bits = 0;      // w: a partition is the labels that share label >> w
  int split_bits = 0;       // s: 2^s blocks reduce each piece, each keeping 2^(w - s) of its buckets
  int sort_bits = 0;        // label bits above the window, sorted by first (0: one partition, no sort)
  std::uint32_t parts = 1;  // partitions: ceil(m / 2^w)
  std::int64_t piece = 1;   // most inputs one block reduces
  std::int64_t grid = 1;    // blocks launched: an upper bound of the pieces (extra blocks exit)
  int threads = 0;
  std::size_t smem = 0;     // one slice of 2^(w - s) buckets
};

constexpr int kPartitionedThreads = 512;
constexpr int kPartitionedPlanThreads = 1024;
constexpr int kOnePassBits = 8;   // CUB's radix sort sorts 8 bits a pass
constexpr int kMaxSplitBits = 2;  // at most 4 blocks read a piece: a CUB pass costs about as much

// A slice is as large as `per_sm` blocks (default 3) can hold at once: fewer sorted bits against more
// blocks resident to hide the loads. Where the label bits above one slice need a second CUB pass
// (more than 8) and 1 or 2 bits more would do in one, the window is 2 or 4 slices (int32: m up to
// 2^24 in one pass). A piece holds at least 8 slices' worth of inputs (so flushing a slice costs at
// most an eighth of an update per input) and at most what spreads the blocks over two waves.
template <class T>
PartitionedPlan partitioned_plan(std::int64_t n, std::uint32_t m, const Tuning& t) {
  PartitionedPlan p;
  const int per_sm = t.blocks_per_sm > 0 ? t.blocks_per_sm : 3;
  p.threads = t.threads > 0 ? std::min(t.threads, kPartitionedThreads) : kPartitionedThreads;  // the kernel's launch bound
  const std::size_t per_sm_smem = std::size_t(device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor));
  const std::size_t budget = std::min(max_shared_per_block(), per_sm_smem / per_sm - 1024);  // 1 KB a block is the system's
  const int bits = label_bits(m);
  int fit = 0;  // bits of the largest slice that fits
  while (fit < bits && (std::size_t(2) << fit) * sizeof(T) <= budget) ++fit;
  p.sort_bits = bits - fit;
  if (p.sort_bits > kOnePassBits && p.sort_bits - kOnePassBits <= kMaxSplitBits) p.split_bits = p.sort_bits - kOnePassBits;
  p.sort_bits -= p.split_bits;
  p.window_bits = bits - p.sort_bits;
  p.parts = static_cast<std::uint32_t>(ceil_div(std::int64_t(m), std::int64_t(1) << p.window_bits));
  p.smem = (std::size_t(1) << fit) * sizeof(T);
  const std::int64_t resident = std::int64_t(sm_count()) * per_sm;
  p.piece = std::max({std::int64_t(8) << fit, ceil_div(std::max<std::int64_t>(n, 1), std::max<std::int64_t>(1, 2 * resident >> p.split_bits)), std::int64_t(1)});
  p.grid = (std::int64_t(p.parts) + ceil_div(std::max<std::int64_t>(n, 1), p.piece)) << p.split_bits;
  return p;
}

namespace partitioned_detail {

// Scratch: the sorted pairs (none without sorted bits), partition offsets, the pieces' prefix, CUB's temp.
template <class T>
struct Layout {
  std::uint32_t* keys;
  T* vals;
  std::int64_t* offsets;        // parts + 1: where each partition starts in the sorted pairs
  std::uint32_t* piece_start;   // parts + 1: the first piece (block) of each partition; [parts] = pieces
  void* temp;
  std::size_t temp_bytes;
  std::size_t total;
};

template <class T>
Layout<T> layout(void* scratch, const PartitionedPlan& p, std::int64_t n, std::uint32_t m) {
  Carve c(scratch);
  Layout<T> l{};
  const std::size_t sorted = p.sort_bits > 0 ? std::size_t(n) : 0;
  l.keys = c.take<std::uint32_t>(sorted);
  l.vals = c.take<T>(sorted);
  l.offsets = c.take<std::int64_t>(std::size_t(p.parts) + 1);
  l.piece_start = c.take<std::uint32_t>(std::size_t(p.parts) + 1);
  l.temp_bytes = p.sort_bits > 0 ? partial_sort_temp_bytes<T>(n, m, p.sort_bits) : 0;
  l.temp = c.rest();
  l.total = c.used() + align256(l.temp_bytes);
  return l;
}

// First index in keys[0, n) whose partition (key >> w) is >= part: the keys are sorted by it.
__device__ __forceinline__ std::int64_t partition_begin(const std::uint32_t* keys, std::int64_t n, int w, std::uint32_t part) {
  std::int64_t lo = 0, hi = n;
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if ((__ldg(keys + mid) >> w) < part) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// One block: each partition's offset (a binary search of the sorted keys) and its pieces (at least
// one, so that a block writes the identity into an empty partition's buckets), scanned into the
// first piece of each partition.
__global__ void __launch_bounds__(kPartitionedPlanThreads)
    plan_pieces_kernel(const std::uint32_t* keys, std::int64_t n, std::uint32_t parts, int w, std::int64_t piece,
                       std::int64_t* offsets, std::uint32_t* piece_start) {
  using Scan = cub::BlockScan<std::uint32_t, kPartitionedPlanThreads>;
  __shared__ typename Scan::TempStorage scan;
  __shared__ std::uint32_t carry;
  if (threadIdx.x == 0) carry = 0;
  __syncthreads();
  for (std::int64_t base = 0; base < parts; base += kPartitionedPlanThreads) {
    const std::int64_t part = base + threadIdx.x;
    std::uint32_t pieces = 0;
    if (part < parts) {
      const std::int64_t lo = part == 0 ? 0 : partition_begin(keys, n, w, std::uint32_t(part));
      const std::int64_t hi = part + 1 == parts ? n : partition_begin(keys, n, w, std::uint32_t(part + 1));
      offsets[part] = lo;
      if (part + 1 == parts) offsets[parts] = n;
      pieces = static_cast<std::uint32_t>(std::max<std::int64_t>(1, (hi - lo + piece - 1) / piece));
    }
    std::uint32_t first = 0, total = 0;
    Scan(scan).ExclusiveSum(pieces, first, total);
    if (part < parts) piece_start[part] = carry + first;
    __syncthreads();  // every thread has read carry
    if (threadIdx.x == 0) carry += total;
    __syncthreads();
  }
  if (threadIdx.x == 0) piece_start[parts] = carry;
}

// The buckets of partitions cut into several pieces start at the identity (their pieces add into
// them); a partition of one piece is stored whole by its block.
template <class T>
__global__ void fill_cut_partitions_kernel(T* out, std::uint32_t m, int w, const std::uint32_t* piece_start, T identity) {
  for (std::int64_t b = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; b < m; b += std::int64_t(gridDim.x) * blockDim.x) {
    const std::uint32_t part = std::uint32_t(b >> w);
    if (piece_start[part + 1] - piece_start[part] > 1) out[b] = identity;
  }
}

// Block = slice s of piece k of partition p: inputs [lo + size*k/pieces, lo + size*(k+1)/pieces)
// of the sorted pairs, all with labels in [p * 2^w, (p + 1) * 2^w), of which it keeps those in
// [p * 2^w + s * 2^(w - split), ... + 2^(w - split)).
template <class Op>
__global__ void __launch_bounds__(kPartitionedThreads)
    reduce_pieces_kernel(const std::uint32_t* keys, const typename Op::value_type* vals, std::uint32_t m, int w, int split,
                         std::uint32_t parts, const std::int64_t* offsets, const std::uint32_t* piece_start,
                         typename Op::value_type* out) {
  using T = typename Op::value_type;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* win = reinterpret_cast<T*>(smem_raw);
  __shared__ std::uint32_t s_part;
  const std::uint32_t block = blockIdx.x >> split, slice = blockIdx.x & ((1u << split) - 1);
  if (block >= __ldg(piece_start + parts)) return;  // the grid is an upper bound of the pieces
  if (threadIdx.x == 0) {  // the last partition whose first piece is <= block
    std::uint32_t lo = 0, hi = parts;  // piece_start[lo] <= block < piece_start[hi]
    while (hi - lo > 1) {
      const std::uint32_t mid = lo + (hi - lo) / 2;
      if (__ldg(piece_start + mid) <= block) lo = mid;
      else hi = mid;
    }
    s_part = lo;
  }
  const int slice_bits = w - split;
  const std::uint64_t window = std::uint64_t(1) << slice_bits;
  for (std::uint32_t b = threadIdx.x; b < window; b += blockDim.x) win[b] = Op::identity();
  __syncthreads();
  const std::uint32_t part = s_part;
  const std::uint32_t pieces = __ldg(piece_start + part + 1) - __ldg(piece_start + part), k = block - __ldg(piece_start + part);
  const std::int64_t lo = __ldg(offsets + part), size = __ldg(offsets + part + 1) - lo;
  const std::int64_t begin = lo + size * k / pieces, end = lo + size * (k + 1) / pieces;
  const std::uint32_t mask = std::uint32_t((std::uint64_t(1) << w) - 1), slice_mask = std::uint32_t(window - 1);

  // Four inputs per thread in flight; a block-uniform trip count keeps the warp votes legal.
  constexpr int kIn = 4;
  const std::int64_t step = std::int64_t(blockDim.x) * kIn;
  for (std::int64_t base = begin; base < end; base += step) {
    std::uint32_t key[kIn];
    T v[kIn];
    bool valid[kIn];
#pragma unroll
    for (int j = 0; j < kIn; ++j) {
      const std::int64_t i = base + std::int64_t(j) * blockDim.x + threadIdx.x;
      const std::uint32_t in_window = i < end ? __ldg(keys + i) & mask : 0u;
      valid[j] = i < end && (in_window >> slice_bits) == slice;
      key[j] = in_window & slice_mask;
      v[j] = valid[j] ? ldg_any(vals + i) : Op::identity();
    }
#pragma unroll
    for (int j = 0; j < kIn; ++j) {
      if constexpr (native_shared_atomic<Op>())
        privatized_warp_update<Op, 1>(win, key[j], v[j], valid[j], 0);
      else  // CAS loops: hot labels fold in the warp first
        warp_folded_update<Op>(key[j], v[j], valid[j], [&](std::uint32_t b, T x) { atomic_apply<Op>(win + b, x); });
    }
  }
  __syncthreads();

  const std::uint64_t first = (std::uint64_t(part) << w) + (std::uint64_t(slice) << slice_bits);
  if (first >= m) return;  // a slice past the last label
  const std::uint32_t span = static_cast<std::uint32_t>(std::min<std::uint64_t>(window, m - first));
  for (std::uint32_t b = threadIdx.x; b < span; b += blockDim.x) {
    const T acc = win[b];
    if (pieces == 1) out[first + b] = acc;
    else if (!(acc == Op::identity())) atomic_apply<Op>(out + first + b, acc);  // untouched buckets need no atomic
  }
}

}  // namespace partitioned_detail

template <class T>
std::size_t partitioned_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  return partitioned_detail::layout<T>(nullptr, partitioned_plan<T>(n, m, t), n, m).total;
}

// n <= 2^31 - 1: CUB's sort is called with int counts.
template <class Op>
void partitioned(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                 typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, const Tuning& t, cudaStream_t s) {
  using T = typename Op::value_type;
  namespace d = partitioned_detail;
  if (m == 0) return;
  const auto p = partitioned_plan<T>(n, m, t);
  const auto l = d::layout<T>(scratch, p, n, m);
  if (scratch_bytes < l.total) throw std::invalid_argument("partitioned: scratch too small");
  const std::uint32_t* keys = labels;
  const T* vals = values;
  if (p.sort_bits > 0 && n > 0) {
    partial_sort_pairs<T>(l.temp, l.temp_bytes, labels, l.keys, values, l.vals, n, m, p.sort_bits, s);
    keys = l.keys, vals = l.vals;
  }
  d::plan_pieces_kernel<<<1, kPartitionedPlanThreads, 0, s>>>(keys, n, p.parts, p.window_bits, p.piece, l.offsets, l.piece_start);
  LP_CUDA_LAUNCH("plan_pieces_kernel");
  if (p.grid > p.parts) {  // some partition may be cut (the kernel checks which)
    d::fill_cut_partitions_kernel<T><<<grid_for(m, 256, 4), 256, 0, s>>>(out, m, p.window_bits, l.piece_start, Op::identity());
    LP_CUDA_LAUNCH("fill_cut_partitions_kernel");
  }
  auto kernel = d::reduce_pieces_kernel<Op>;
  lp::allow_dynamic_shared(kernel, p.smem);
  kernel<<<static_cast<unsigned>(p.grid), p.threads, p.smem, s>>>(keys, vals, m, p.window_bits, p.split_bits, p.parts, l.offsets,
                                                                   l.piece_start, out);
  LP_CUDA_LAUNCH("reduce_pieces_kernel");
}

}  // namespace lp::multireduce
