// Thesis 4.4.1 (Alg 4.12 without partitioning): device radix sort of the pairs, then a segmented reduce that finds run ends by comparing adjacent labels on the fly (no flag array).
#pragma once
#include <cuda_runtime.h>

#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/device/device_radix_sort.cuh>

#include <cstdint>
#include <stdexcept>

#include "common.cuh"
#include "sort_shared.cuh"  // kPadLabel, block_reduce_runs: the same three-phase segmented reduce

namespace lp::multireduce {

// Shape of the segmented-reduce tiles (the sort is CUB's own).
constexpr int kSortGlobalThreads = 256;
constexpr int kSortGlobalItems = 8;
constexpr std::int64_t kSortGlobalTile = std::int64_t(kSortGlobalThreads) * kSortGlobalItems;

// Reduce-by-key of sorted pairs, one tile per block. A run inside a tile is complete (the keys are
// sorted, so its label occurs nowhere else) and goes straight to out[label]. A tile's first and last
// run may continue in its neighbours: they become the tile's head (entry 2*tile) and tail (entry
// 2*tile + 1); a tile with a single run sends it as head and the identity as tail. The entries are
// again sorted pairs, in input order, so the next pass reduces them the same way, until a pass fits
// in one tile and writes everything (entries == nullptr). Each bucket is written exactly once.
template <class Op>
__global__ void __launch_bounds__(kSortGlobalThreads)
    sorted_runs_kernel(const std::uint32_t* keys_in, const typename Op::value_type* vals_in, std::int64_t count,
                       typename Op::value_type* out, std::uint32_t* entry_keys, typename Op::value_type* entry_vals) {
  using T = typename Op::value_type;
  constexpr int THREADS = kSortGlobalThreads, ITEMS = kSortGlobalItems;
  // Warp-wise Baxter transposition: coalesced reads, blocked arrangement, no block barrier.
  using LoadKeys = cub::BlockLoad<std::uint32_t, THREADS, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using LoadVals = cub::BlockLoad<T, THREADS, ITEMS, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Scan = cub::BlockScan<SegCarry<T>, THREADS, cub::BLOCK_SCAN_WARP_SCANS>;
  __shared__ union {
    struct {
      typename LoadKeys::TempStorage keys;
      typename LoadVals::TempStorage vals;
    } load;
    struct {
      typename Scan::TempStorage scan;
      std::uint32_t first_label[THREADS];
    } reduce;
  } st;
  const int tid = threadIdx.x;
  const std::int64_t tile = blockIdx.x;
  const std::int64_t base = tile * kSortGlobalTile;
  const int valid = static_cast<int>(std::min(count - base, std::int64_t{kSortGlobalTile}));
  std::uint32_t keys[ITEMS];
  T vals[ITEMS];
  if (valid == kSortGlobalTile) {
    LoadKeys(st.load.keys).Load(keys_in + base, keys);
    LoadVals(st.load.vals).Load(vals_in + base, vals);
  } else {
    // Pads (label kPadLabel) follow the last real pair and are never written.
    LoadKeys(st.load.keys).Load(keys_in + base, keys, valid, kPadLabel);
    LoadVals(st.load.vals).Load(vals_in + base, vals, valid, Op::identity());
  }
  __syncthreads();
  // The flag of Alg 4.12 is labels[i] != labels[i+1]: thread i-1 needs thread i's first label.
  st.reduce.first_label[tid] = keys[0];
  __syncthreads();
  const std::uint32_t next_label = tid + 1 < THREADS ? st.reduce.first_label[tid + 1] : kPadLabel;
  block_reduce_runs<Op, THREADS, ITEMS>(keys, vals, next_label, st.reduce.scan, [&](std::uint32_t label, T v, bool first, bool last) {
    if (entry_keys == nullptr || (!first && !last)) {
      out[label] = v;
      return;
    }
    if (first) {
      entry_keys[2 * tile] = label;
      entry_vals[2 * tile] = v;
    }
    if (last) {
      entry_keys[2 * tile + 1] = label;
      entry_vals[2 * tile + 1] = first ? Op::identity() : v;
    }
  });
}

namespace sort_global_detail {

inline std::size_t align256(std::size_t x) { return (x + 255) & ~std::size_t(255); }

// Entries of the first and second fix-up pass (later passes reuse the first buffer: they shrink by
// the tile size / 2 each time).
inline std::int64_t entries_after(std::int64_t count) {
  const std::int64_t tiles = ceil_div(count, kSortGlobalTile);
  return tiles > 1 ? 2 * tiles : 0;
}

template <class T>
struct Layout {
  std::size_t sorted_keys = 0, sorted_vals = 0, e1_keys = 0, e1_vals = 0, e2_keys = 0, e2_vals = 0, temp = 0, total = 0;
  std::size_t temp_bytes = 0;
  std::int64_t e1 = 0, e2 = 0;
};

template <class Op>
Layout<typename Op::value_type> layout(std::int64_t n, std::uint32_t m) {
  using T = typename Op::value_type;
  Layout<T> l;
  const int bits = label_bits(m);
  const std::size_t sorted = bits > 0 ? std::size_t(n) : 0;  // m = 1: nothing to sort
  if (bits > 0)
    LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, l.temp_bytes, (const std::uint32_t*)nullptr, (std::uint32_t*)nullptr,
                                            (const T*)nullptr, (T*)nullptr, static_cast<int>(n), 0, bits));
  l.e1 = entries_after(n);
  l.e2 = entries_after(l.e1);
  std::size_t at = 0;
  l.sorted_keys = at, at += align256(sorted * 4);
  l.sorted_vals = at, at += align256(sorted * sizeof(T));
  l.e1_keys = at, at += align256(std::size_t(l.e1) * 4);
  l.e1_vals = at, at += align256(std::size_t(l.e1) * sizeof(T));
  l.e2_keys = at, at += align256(std::size_t(l.e2) * 4);
  l.e2_vals = at, at += align256(std::size_t(l.e2) * sizeof(T));
  l.temp = at, at += align256(l.temp_bytes);
  l.total = at;
  return l;
}

}  // namespace sort_global_detail

template <class Op>
std::size_t sort_global_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning&) {
  return sort_global_detail::layout<Op>(n, m).total;
}

// n <= 2^31 - 1: CUB's sort is called with int counts.
template <class Op>
void sort_global(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                 typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, const Tuning&, cudaStream_t s) {
  using T = typename Op::value_type;
  const auto l = sort_global_detail::layout<Op>(n, m);
  if (scratch_bytes < l.total) throw std::invalid_argument("sort_global: scratch too small");
  char* base = static_cast<char*>(scratch);
  // Buckets without inputs keep the identity; every other bucket is written once by a pass below.
  fill(out, m, Op::identity(), s);
  const std::uint32_t* keys = labels;
  const T* vals = values;
  const int bits = label_bits(m);
  if (bits > 0) {
    auto* sk = reinterpret_cast<std::uint32_t*>(base + l.sorted_keys);
    auto* sv = reinterpret_cast<T*>(base + l.sorted_vals);
    std::size_t temp_bytes = l.temp_bytes;
    // Radix sort is stable: a bucket's inputs keep their order (Alg 4.12 with non-commutative ops).
    LP_CUDA(cub::DeviceRadixSort::SortPairs(base + l.temp, temp_bytes, labels, sk, values, sv, static_cast<int>(n), 0, bits, s));
    keys = sk;
    vals = sv;
  }
  std::uint32_t* ek[2] = {reinterpret_cast<std::uint32_t*>(base + l.e1_keys), reinterpret_cast<std::uint32_t*>(base + l.e2_keys)};
  T* ev[2] = {reinterpret_cast<T*>(base + l.e1_vals), reinterpret_cast<T*>(base + l.e2_vals)};
  std::int64_t count = n;
  for (int pass = 0;; ++pass) {
    const std::int64_t tiles = ceil_div(count, kSortGlobalTile);
    const bool last = tiles == 1;
    std::uint32_t* to_keys = last ? nullptr : ek[pass & 1];
    T* to_vals = last ? nullptr : ev[pass & 1];
    sorted_runs_kernel<Op><<<static_cast<unsigned>(tiles), kSortGlobalThreads, 0, s>>>(keys, vals, count, out, to_keys, to_vals);
    LP_CUDA_LAUNCH("sorted_runs_kernel");
    if (last) break;
    keys = to_keys;
    vals = to_vals;
    count = 2 * tiles;
  }
}

}  // namespace lp::multireduce
