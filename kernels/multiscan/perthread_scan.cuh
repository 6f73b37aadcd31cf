// Beyond the thesis: seq_shared's per-thread bucket sets (thesis 4.3.6's layout, Fig B.2: bucket b
// of thread t in one shared-memory column) inside register_scan's single-pass tile, for m up to 64.
// register_scan pays one compare and select per bucket and input, twice (m = 16 uniform int32 on the
// H200: 1.69 ms against the copy's 0.19, results/h200/multiscan/ceiling_rows_before.json), and single_pass
// a warp-wide ordered scan (match.any, pointer jumping, a shared-memory round trip) per 32-input step
// (0.61 ms). Here each thread owns ITEMS consecutive inputs read with 16-byte loads and folds each
// into its own column with one shared-memory read and write, whatever m; the block then scans the m
// rows of 256 column entries (a warp a row, eight entries a lane), the tiles exchange m-vectors
// through single_pass's decoupled look-back (exchange_prefix), and a second walk over the thread's
// inputs reads and moves its column again to give the results, written with 16-byte stores. Inputs
// are read once and results written once; the work per input does not grow with m, the row scan
// adds m / 16 entries an input and the look-back an m-vector a tile.
// What it reaches (H200, n = 2^26 int32, results/h200/multiscan/ceiling_rows.json): 0.49 of the copy
// ceiling at m = 2, 0.44 at 4, 0.33-0.34 at 8-32, 0.29 at 64, 1.02-1.17x ahead of single_pass and
// register_scan except at m = 8 (level) and m = 1 (register_scan, with no shared memory, 1.14x
// ahead). What stops it is the look-back, not the tile: 43-55% of the cycles between issues at
// m = 1..16 are warps at the barrier behind it, with DRAM at 25-44% (profiles/README.md there).
#pragma once
#include "single_pass.cuh"

namespace lp::multiscan {

namespace perthread_scan_detail {

constexpr int kThreads = single_pass_detail::kRunThreads, kWarps = kThreads / 32;
// The columns take m x 256 x value bytes of shared memory: 64 KiB at the largest m of each width,
// which leaves three blocks an SM.
constexpr std::uint32_t kMaxM4 = 64, kMaxM8 = 32, kMaxM = kMaxM4;
inline std::uint32_t max_m(std::size_t value_bytes) { return value_bytes == 4 ? kMaxM4 : kMaxM8; }

// The register cap by default (blocks_per_sm = 0): three blocks an SM with 4-byte values (80
// registers, no spills; four blocks, 64 registers, spill 256 bytes a thread), four with 8-byte ones
// (64 registers, no spills; their 8 inputs a thread leave fewer live). Uncapped, the 4-byte kernel
// took 96 registers and two blocks an SM fitted (n = 2^26 uniform int32: 0.48 ms at m = 2 and 0.71
// at m = 16 against 0.39 and 0.59 at three blocks, results/h200/multiscan/probes/probe_perthread_blocks.json).
template <class T>
constexpr int default_min_blocks() {
  return sizeof(T) == 4 ? 3 : 4;
}

using single_pass_detail::run_tiles;

inline std::size_t smem_bytes(std::uint32_t m, std::size_t value_bytes) { return std::size_t(m) * kThreads * value_bytes; }

// Thread t's entry in a row. Rows are 256 entries (a multiple of the 32 banks), so a warp's threads,
// each at its own label's row, never share a bank; within the row, the entries of warp c are
// permuted by c (t ^ c on the low bits), so that the row scan's lane i, reading threads 8i..8i+7,
// meets 32 different banks at every step.
__device__ __forceinline__ int slot(int t) { return t ^ ((t >> 5) & 7); }

// A tile's columns set to the identity: bucket b of thread t at rows[b * kThreads + slot(t)].
template <class Op>
__device__ __forceinline__ typename Op::value_type* clear_column(typename Op::value_type* rows, std::uint32_t m) {
  typename Op::value_type* column = rows + slot(threadIdx.x);
  for (std::uint32_t b = 0; b < m; ++b) column[b * kThreads] = Op::identity();
  return column;
}

// The thread's bucket sets, in input order (Alg 2.3 on its own column).
template <class Op, int ITEMS>
__device__ __forceinline__ void fold_column(typename Op::value_type* column, const std::uint32_t (&l)[ITEMS], const typename Op::value_type (&x)[ITEMS],
                                            std::uint32_t m) {
#pragma unroll
  for (int k = 0; k < ITEMS; ++k)
    if (l[k] < m) column[l[k] * kThreads] = Op::apply(column[l[k] * kThreads], x[k]);
}

// Each row's exclusive scan over the threads: warp w takes rows w, w + 8, ..; lane i folds the
// entries of threads 8i..8i+7 in order, the lanes scan their folds with shuffles (lower lanes on
// the left), and each entry becomes the fold of the threads before it (only the row's fold, into
// agg[b], where kEntries is off). Between two barriers of the block.
template <class Op, bool kEntries>
__device__ __forceinline__ void scan_rows(typename Op::value_type* rows, std::uint32_t m, typename Op::value_type* agg) {
  using T = typename Op::value_type;
  const int w = threadIdx.x / 32, lane = threadIdx.x & 31;
  for (std::uint32_t b = w; b < m; b += kWarps) {
    T* row = rows + b * kThreads;
    T v[8];
#pragma unroll
    for (int j = 0; j < 8; ++j) v[j] = row[slot(8 * lane + j)];
#pragma unroll
    for (int j = 1; j < 8; ++j) v[j] = Op::apply(v[j - 1], v[j]);
    T run = v[7];
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const T left = multireduce::shfl_up(run, d);
      if (lane >= d) run = Op::apply(left, run);
    }
    if (lane == 31) agg[b] = run;
    if (kEntries) {
      const T up = multireduce::shfl_up(run, 1);
      const T before = lane == 0 ? Op::identity() : up;
      row[slot(8 * lane)] = before;
#pragma unroll
      for (int j = 1; j < 8; ++j) row[slot(8 * lane + j)] = Op::apply(before, v[j - 1]);
    }
  }
}

// The second walk: each input's result is the tile's prefix, then its bucket's column entry (the
// threads before, then this thread's inputs before), then the input itself where inclusive.
template <class Op, int ITEMS>
__device__ __forceinline__ void column_results(typename Op::value_type* column, const std::uint32_t (&l)[ITEMS], typename Op::value_type (&x)[ITEMS],
                                               std::uint32_t m, const typename Op::value_type* pre, bool inclusive) {
  using T = typename Op::value_type;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const std::uint32_t b = l[k];
    if (b < m) {
      const T before = column[b * kThreads];
      const T next = Op::apply(before, x[k]);
      column[b * kThreads] = next;
      x[k] = Op::apply(pre[b], inclusive ? next : before);
    }
  }
}

// MINB: the resident blocks an SM the registers are capped for (blocks_per_sm).
template <class Op, int MINB>
__global__ void __launch_bounds__(kThreads, MINB) perthread_scan_kernel(const std::uint32_t* __restrict__ labels,
                                                                  const typename Op::value_type* __restrict__ values, std::int64_t n,
                                                                  std::uint32_t m, bool inclusive, typename Op::value_type* __restrict__ out,
                                                                  unsigned* status, typename Op::value_type* aggregates,
                                                                  typename Op::value_type* prefixes, unsigned long long* words,
                                                                  std::int64_t ahead, int windows) {
  using T = typename Op::value_type;
  constexpr int ITEMS = single_pass_detail::run_items<T>();
  extern __shared__ __align__(16) unsigned char perthread_scan_smem[];
  T* rows = reinterpret_cast<T*>(perthread_scan_smem);  // m rows of kThreads entries
  __shared__ T agg[kMaxM], pre[kMaxM];
  __shared__ T fold_parts[kThreads];  // exchange_prefix's, m <= kThreads / 2
  __shared__ unsigned shared_word[2];

  // Tiles in the order blocks start (single_pass's reason: no tile waits for one not yet running).
  if (threadIdx.x == 0) shared_word[0] = atomicAdd(status, 1u);
  if (threadIdx.x < m) pre[threadIdx.x] = Op::identity();
  T* column = clear_column<Op>(rows, m);
  __syncthreads();
  const std::int64_t tile = shared_word[0];
  prefetch_tile_l2(labels, values, tile, ahead, std::int64_t(kThreads) * ITEMS, n);
  const std::int64_t start = (tile * kThreads + threadIdx.x) * ITEMS;

  std::uint32_t l[ITEMS];
  T x[ITEMS];
  load_run<std::uint32_t, ITEMS>(labels, start, n, 0xffffffffu, l);  // past the end: no bucket
  load_run<T, ITEMS>(values, start, n, Op::identity(), x);
  fold_column<Op>(column, l, x, m);
  __syncthreads();
  scan_rows<Op, true>(rows, m, agg);
  __syncthreads();
  single_pass_detail::exchange_prefix<Op>(tile, tile == 0, m, agg, pre, status, aggregates, prefixes, words, windows, shared_word, fold_parts);
  column_results<Op>(column, l, x, m, pre, inclusive);
  store_run<T, ITEMS>(out, start, n, x);
}

}  // namespace perthread_scan_detail

inline std::string perthread_scan_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  using namespace perthread_scan_detail;
  if (t.blocks_per_sm != 0 && t.blocks_per_sm != 1 && t.blocks_per_sm != 3 && t.blocks_per_sm != 4)
    return "blocks_per_sm = " + std::to_string(t.blocks_per_sm) + ": perthread_scan is built for 1, 3 or 4";
  const std::uint32_t most = max_m(value_bytes);
  if (m > most)
    return "m = " + std::to_string(m) + ": perthread_scan keeps at most " + std::to_string(most) + " buckets a thread in shared memory (" +
           std::to_string(value_bytes) + "-byte values)";
  return single_pass_detail::run_tiles_unsupported(n, m, value_bytes);
}

template <class T>
std::size_t perthread_scan_scratch_bytes(std::int64_t n, std::uint32_t m) {
  return single_pass_detail::run_tiles_scratch_bytes<T>(n, m);
}

template <class Op>
void perthread_scan(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                    typename Op::value_type* out, void* scratch, const Tuning& t, cudaStream_t stream) {
  using T = typename Op::value_type;
  using namespace perthread_scan_detail;
  if (n <= 0) return;
  const std::int64_t tiles = run_tiles(n, sizeof(T));
  const auto x = single_pass_detail::look_back_state<T>(scratch, tiles, single_pass_detail::run_tile_inputs(sizeof(T)), m, stream);
  const std::size_t smem = smem_bytes(std::max<std::uint32_t>(m, 1), sizeof(T));
  auto run = [&](auto kernel) {
    lp::allow_dynamic_shared(kernel, smem);
    const std::int64_t ahead = lookahead_tiles(lp::max_active_blocks(reinterpret_cast<const void*>(kernel), kThreads, smem), single_pass_detail::kRunLookahead);
    kernel<<<static_cast<unsigned>(tiles), kThreads, smem, stream>>>(labels, values, n, m, inclusive, out, x.status, x.aggregates,
                                                                      x.prefixes, x.words, ahead, x.windows);
    LP_CUDA_LAUNCH("perthread_scan_kernel");
  };
  switch (t.blocks_per_sm == 0 ? default_min_blocks<T>() : t.blocks_per_sm) {
    case 1: return run(perthread_scan_kernel<Op, 1>);
    case 3: return run(perthread_scan_kernel<Op, 3>);
    default: return run(perthread_scan_kernel<Op, 4>);
  }
}

}  // namespace lp::multiscan
