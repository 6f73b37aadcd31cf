// Beyond the thesis: Alg 5.2's partitioning (segments' bucket sums, a scan of each bucket's sums
// over the segments, the segments' results) in reduce-then-scan order, on perthread_scan's tiles.
// Alg 5.2 as the thesis writes it multiscans each segment, writes the results, and adds the scanned
// bucket sums back in a third pass over them (partitioned.cuh): 24 bytes an int32 input. Here the
// first pass only reduces each tile into its m bucket sums (labels and values read, nothing
// written but the sums), a small kernel scans each bucket's sums over the tiles, and the second
// pass multiscans each tile again from its scanned sums: 20 bytes an input against the single
// pass's 12, but no tile waits for another. perthread_scan and single_pass, whose tiles exchange
// their sums through a decoupled look-back, spend 43-55% of the cycles between a warp's issues at
// the barrier behind it at m = 1..16 and reach 0.29-0.50 of the copy ceiling there
// (results/h200/multiscan/profiles/README.md); a pass with no look-back streams, so twice the
// reads can still cost less. The tiles' work is perthread_scan's (a column of buckets a thread in
// shared memory, one read and write an input whatever m). The second pass takes the tiles last
// read first (the first pass leaves them in L2) and asks L2 for the tile a quarter of the resident
// blocks ahead, so that DRAM streams while the blocks fold and scan (perthread_scan's prefetch).
// What it reaches (H200, n = 2^26 int32, results/h200/multiscan/ceiling_rows.json): 0.47 of the
// copy ceiling at m = 4, 0.46 at 8, 0.43 at 16, 0.38 at 32, 0.30 at 64, 0.76-0.97x the time of the
// best look-back kernel there; 0.48-0.49 at m = 1-2, 1.03-1.2x behind. The first pass reads at
// 89-91% of DRAM's bandwidth; the second, perthread_scan's tile between three barriers at three
// blocks an SM, at 54-60%, waiting on shared memory (profiles/README.md there): the form stops
// near 0.6 of the copy, its second read the price of not waiting.
#pragma once
#include <cub/block/block_load.cuh>
#include <cub/block/block_scan.cuh>
#include <cub/block/block_store.cuh>

#include "perthread_scan.cuh"

namespace lp::multiscan {

namespace reduce_then_scan_detail {

using perthread_scan_detail::kThreads;
constexpr int kScanThreads = 512;  // the bucket sums' scan: a block a bucket
// Sums a thread of a chunk: 32 KiB of staging either way (static shared memory stops at 48 KiB).
template <class T>
constexpr int scan_items() {
  return sizeof(T) <= 4 ? 16 : 8;
}

// The same register cap as perthread_scan's kernel (its measured default).
template <class T>
constexpr int min_blocks() {
  return perthread_scan_detail::default_min_blocks<T>();
}

// First pass: tile blockIdx.x's m bucket sums, to column blockIdx.x of the [m x tiles] matrix (a
// bucket's sums over the tiles side by side, for the scan).
template <class Op>
__global__ void __launch_bounds__(kThreads, min_blocks<typename Op::value_type>())
    reduce_tiles_kernel(const std::uint32_t* __restrict__ labels, const typename Op::value_type* __restrict__ values, std::int64_t n, std::uint32_t m,
                        std::int64_t tiles, typename Op::value_type* __restrict__ sums) {
  using T = typename Op::value_type;
  constexpr int ITEMS = single_pass_detail::run_items<T>();
  extern __shared__ __align__(16) unsigned char reduce_tiles_smem[];
  T* rows = reinterpret_cast<T*>(reduce_tiles_smem);
  __shared__ T agg[perthread_scan_detail::kMaxM];
  T* column = perthread_scan_detail::clear_column<Op>(rows, m);
  const std::int64_t tile = blockIdx.x, start = (tile * kThreads + threadIdx.x) * ITEMS;
  std::uint32_t l[ITEMS];
  T x[ITEMS];
  load_run<std::uint32_t, ITEMS>(labels, start, n, 0xffffffffu, l);
  load_run<T, ITEMS>(values, start, n, Op::identity(), x);
  __syncthreads();  // the columns cleared
  perthread_scan_detail::fold_column<Op>(column, l, x, m);
  __syncthreads();
  perthread_scan_detail::scan_rows<Op, false>(rows, m, agg);
  __syncthreads();
  for (std::uint32_t b = threadIdx.x; b < m; b += kThreads) sums[b * tiles + tile] = agg[b];
}

template <class Op>
struct Apply {
  __device__ __forceinline__ typename Op::value_type operator()(const typename Op::value_type& a, const typename Op::value_type& b) const {
    return Op::apply(a, b);
  }
};

// Each bucket's sums over the tiles, exclusive-scanned in place (row blockIdx.x of the matrix), in
// chunks of kScanThreads x scan_items read and written whole, each chunk's scan carried into the
// next. A thread a tile, reading a column of a [tiles x m] matrix, took 20-70 us at n = 2^26
// (ncu: one SM's L1 queue full of loads a sector each); this takes a few.
template <class Op>
__global__ void __launch_bounds__(kScanThreads) scan_sums_kernel(typename Op::value_type* sums, std::int64_t tiles) {
  using T = typename Op::value_type;
  constexpr int kScanItems = scan_items<T>();
  using Load = cub::BlockLoad<T, kScanThreads, kScanItems, cub::BLOCK_LOAD_WARP_TRANSPOSE>;
  using Store = cub::BlockStore<T, kScanThreads, kScanItems, cub::BLOCK_STORE_WARP_TRANSPOSE>;
  using Scan = cub::BlockScan<T, kScanThreads>;
  __shared__ union {
    typename Load::TempStorage load;
    typename Store::TempStorage store;
    typename Scan::TempStorage scan;
  } temp;
  T* row = sums + std::int64_t(blockIdx.x) * tiles;
  T carry = Op::identity();
  for (std::int64_t base = 0; base < tiles; base += std::int64_t(kScanThreads) * kScanItems) {
    const int valid = int(std::min<std::int64_t>(std::int64_t(kScanThreads) * kScanItems, tiles - base));
    T v[kScanItems];
    Load(temp.load).Load(row + base, v, valid, Op::identity());
    __syncthreads();
    T chunk;
    Scan(temp.scan).ExclusiveScan(v, v, Op::identity(), Apply<Op>(), chunk);
#pragma unroll
    for (int k = 0; k < kScanItems; ++k) v[k] = Op::apply(carry, v[k]);
    __syncthreads();
    Store(temp.store).Store(row + base, v, valid);
    carry = Op::apply(carry, chunk);
    __syncthreads();
  }
}

// Second pass: tile (tiles - 1 - blockIdx.x) multiscanned from its row of scanned sums.
template <class Op>
__global__ void __launch_bounds__(kThreads, min_blocks<typename Op::value_type>())
    scan_tiles_kernel(const std::uint32_t* __restrict__ labels, const typename Op::value_type* __restrict__ values, std::int64_t n, std::uint32_t m,
                      bool inclusive, const typename Op::value_type* __restrict__ prefixes, std::int64_t tiles, std::int64_t ahead,
                      typename Op::value_type* __restrict__ out) {
  using T = typename Op::value_type;
  constexpr int ITEMS = single_pass_detail::run_items<T>();
  extern __shared__ __align__(16) unsigned char scan_tiles_smem[];
  T* rows = reinterpret_cast<T*>(scan_tiles_smem);
  __shared__ T agg[perthread_scan_detail::kMaxM], pre[perthread_scan_detail::kMaxM];
  const std::int64_t tile = tiles - 1 - blockIdx.x, start = (tile * kThreads + threadIdx.x) * ITEMS;
  T* column = perthread_scan_detail::clear_column<Op>(rows, m);
  for (std::uint32_t b = threadIdx.x; b < m; b += kThreads) pre[b] = prefixes[b * tiles + tile];
  if (threadIdx.x == 0 && tile >= ahead) {  // the tile `ahead` places on in this pass's order, asked of L2
    const std::int64_t size = std::int64_t(kThreads) * ITEMS;
    prefetch_l2(labels, (tile - ahead) * size, size, n);
    prefetch_l2(values, (tile - ahead) * size, size, n);
  }
  std::uint32_t l[ITEMS];
  T x[ITEMS];
  load_run<std::uint32_t, ITEMS>(labels, start, n, 0xffffffffu, l);
  load_run<T, ITEMS>(values, start, n, Op::identity(), x);
  __syncthreads();
  perthread_scan_detail::fold_column<Op>(column, l, x, m);
  __syncthreads();
  perthread_scan_detail::scan_rows<Op, true>(rows, m, agg);
  __syncthreads();
  perthread_scan_detail::column_results<Op>(column, l, x, m, pre, inclusive);
  store_run<T, ITEMS>(out, start, n, x);
}

}  // namespace reduce_then_scan_detail

// perthread_scan's limits on m; the tiles' sums take tiles x m values.
inline std::string reduce_then_scan_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes) {
  const std::uint32_t most = perthread_scan_detail::max_m(value_bytes);
  if (m > most)
    return "m = " + std::to_string(m) + ": reduce_then_scan keeps at most " + std::to_string(most) + " buckets a thread in shared memory (" +
           std::to_string(value_bytes) + "-byte values)";
  return single_pass_detail::run_tiles_unsupported(n, m, value_bytes);  // the same tiles as perthread_scan's
}

template <class T>
std::size_t reduce_then_scan_scratch_bytes(std::int64_t n, std::uint32_t m) {
  return align256(std::size_t(single_pass_detail::run_tiles(n, sizeof(T))) * std::max<std::uint32_t>(m, 1) * sizeof(T));
}

// labels[0, n) in [0, m), values[0, n) -> out[0, n); scratch: reduce_then_scan_scratch_bytes.
template <class Op>
void reduce_then_scan(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                      typename Op::value_type* out, void* scratch, cudaStream_t stream) {
  using T = typename Op::value_type;
  using namespace reduce_then_scan_detail;
  if (n <= 0 || m == 0) return;
  const std::int64_t tiles = single_pass_detail::run_tiles(n, sizeof(T));
  T* sums = static_cast<T*>(scratch);
  const std::size_t smem = perthread_scan_detail::smem_bytes(m, sizeof(T));
  lp::allow_dynamic_shared(reinterpret_cast<const void*>(reduce_tiles_kernel<Op>), smem);
  reduce_tiles_kernel<Op><<<static_cast<unsigned>(tiles), kThreads, smem, stream>>>(labels, values, n, m, tiles, sums);
  LP_CUDA_LAUNCH("reduce_then_scan reduce_tiles_kernel");
  scan_sums_kernel<Op><<<m, kScanThreads, 0, stream>>>(sums, tiles);
  LP_CUDA_LAUNCH("reduce_then_scan scan_sums_kernel");
  const std::int64_t ahead =
      lookahead_tiles(lp::max_active_blocks(reinterpret_cast<const void*>(scan_tiles_kernel<Op>), kThreads, smem), single_pass_detail::kRunLookahead);
  scan_tiles_kernel<Op><<<static_cast<unsigned>(tiles), kThreads, smem, stream>>>(labels, values, n, m, inclusive, sums, tiles, ahead, out);
  LP_CUDA_LAUNCH("reduce_then_scan scan_tiles_kernel");
}

}  // namespace lp::multiscan
