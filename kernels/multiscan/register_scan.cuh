// Beyond the thesis: a single-pass multiscan for m <= 16 whose tile work is register arithmetic.
// single_pass scans 32-input warp steps in order through shared-memory bucket sets (match.any,
// pointer jumping, a shared read-modify-write per step: a latency chain per warp); here each thread
// owns ITEMS consecutive inputs, read with 16-byte loads, and keeps its m bucket sums in registers
// (one compare and select per bucket and input), the block scans those m-vectors with shuffles, and
// the tiles exchange m-vectors through single_pass's decoupled look-back (exchange_prefix). A second
// walk over the thread's inputs from its exclusive prefix vector gives the results, written with
// 16-byte stores. Inputs are read once and results written once; each block asks L2 for a tile
// some way ahead of its own (prefetch_l2).
#pragma once
#include "single_pass.cuh"

namespace lp::multiscan {

namespace register_scan_detail {

constexpr int kThreads = single_pass_detail::kRunThreads, kWarps = kThreads / 32;
constexpr std::uint32_t kMaxM = 16;


// The bucket count the kernel is built for: the power of two at or above m.
inline int width_for(std::uint32_t m) {
  int k = 1;
  while (std::uint32_t(k) < m) k *= 2;
  return k;
}

using single_pass_detail::run_tiles;

// M: the bucket count built for (m <= M; labels are below m, so buckets m..M-1 stay empty).
// ITEMS: the inputs a thread (16 or 8: the sums, labels and values of m = 16 stay in registers).
// Twice that at one label (a probe build's only: LP_PROBE_REGISTER_ITEMS) took 116-122 registers,
// two blocks an SM, and ran 1.15-1.32x slower on int32 (H200, results/h200/multiscan/probes/register_items/).
template <class Op, int M, int ITEMS = single_pass_detail::run_items<typename Op::value_type>()>
__global__ void __launch_bounds__(kThreads) register_scan_kernel(const std::uint32_t* __restrict__ labels,
                                                                  const typename Op::value_type* __restrict__ values, std::int64_t n,
                                                                  std::uint32_t m, bool inclusive, typename Op::value_type* __restrict__ out,
                                                                  unsigned* status, typename Op::value_type* aggregates,
                                                                  typename Op::value_type* prefixes, unsigned long long* words,
                                                                  const std::uint32_t* __restrict__ map, std::int64_t ahead, int windows) {
  using T = typename Op::value_type;
  __shared__ T warp_sums[kWarps][M];
  __shared__ T agg[M], pre[M];
  __shared__ T fold_parts[kThreads];  // exchange_prefix's, m <= kThreads / 2
  __shared__ unsigned shared_word[2];
  const int w = threadIdx.x / 32, lane = threadIdx.x & 31;

  // Tiles in the order blocks start (single_pass's reason: no tile waits for one not yet running).
  if (threadIdx.x == 0) shared_word[0] = atomicAdd(status, 1u);
  if (threadIdx.x < M) pre[threadIdx.x] = Op::identity();
  __syncthreads();
  const std::int64_t tile = shared_word[0];
  prefetch_tile_l2(labels, values, tile, ahead, std::int64_t(kThreads) * ITEMS, n);
  const std::int64_t start = (tile * kThreads + threadIdx.x) * ITEMS;

  std::uint32_t l[ITEMS];
  T x[ITEMS];
  load_run<std::uint32_t, ITEMS>(labels, start, n, 0xffffffffu, l);  // past the end: no bucket
  load_run<T, ITEMS>(values, start, n, Op::identity(), x);
  if (map)  // dense relabeling (relabel.cuh)
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
      if (l[k] != 0xffffffffu) l[k] = __ldg(map + l[k]);

  // The thread's bucket sums, in input order. Every bucket applies either the value or the identity:
  // an `if` around the apply compiled to branches, which lanes of different labels took apart
  // (measured: m = 4 uniform 1.05 ms against 0.67 on degenerate labels).
  T acc[M];
#pragma unroll
  for (int b = 0; b < M; ++b) acc[b] = Op::identity();
#pragma unroll
  for (int k = 0; k < ITEMS; ++k)
#pragma unroll
    for (int b = 0; b < M; ++b) acc[b] = Op::apply(acc[b], l[k] == std::uint32_t(b) ? x[k] : Op::identity());

  // Exclusive scan of the threads' vectors: within the warp by shuffles (lower lanes on the left),
  // then the warps before this one, then (below) the tiles before this one.
#pragma unroll
  for (int b = 0; b < M; ++b) {
    T v = acc[b];
#pragma unroll
    for (int d = 1; d < 32; d *= 2) {
      const T left = multireduce::shfl_up(v, d);
      if (lane >= d) v = Op::apply(left, v);
    }
    if (lane == 31) warp_sums[w][b] = v;
    const T before = multireduce::shfl_up(v, 1);
    acc[b] = lane == 0 ? Op::identity() : before;
  }
  __syncthreads();
  if (threadIdx.x < M) {
    T a = Op::identity();
#pragma unroll
    for (int k = 0; k < kWarps; ++k) a = Op::apply(a, warp_sums[k][threadIdx.x]);
    agg[threadIdx.x] = a;
  }
  __syncthreads();
  single_pass_detail::exchange_prefix<Op>(tile, tile == 0, m, agg, pre, status, aggregates, prefixes, words, windows, shared_word, fold_parts);

#pragma unroll
  for (int b = 0; b < M; ++b) {
    T front = pre[b];
    for (int k = 0; k < w; ++k) front = Op::apply(front, warp_sums[k][b]);
    acc[b] = Op::apply(front, acc[b]);
  }
  // The second walk: each input's result is its bucket's running value before (exclusive) or after it.
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    T cur = Op::identity();
#pragma unroll
    for (int b = 0; b < M; ++b) cur = l[k] == std::uint32_t(b) ? acc[b] : cur;
    const T next = Op::apply(cur, x[k]);
#pragma unroll
    for (int b = 0; b < M; ++b) acc[b] = l[k] == std::uint32_t(b) ? next : acc[b];
    x[k] = inclusive ? next : cur;
  }
  store_run<T, ITEMS>(out, start, n, x);
}

}  // namespace register_scan_detail

inline std::string register_scan_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes) {
  using namespace register_scan_detail;
  if (m > kMaxM) return "m = " + std::to_string(m) + ": register_scan keeps at most " + std::to_string(kMaxM) + " bucket sums in registers";
  return single_pass_detail::run_tiles_unsupported(n, m, value_bytes);
}

template <class T>
std::size_t register_scan_scratch_bytes(std::int64_t n, std::uint32_t m) {
  return single_pass_detail::run_tiles_scratch_bytes<T>(n, m);
}

// `map` non-null: each label is read through it (m is then the number of dense labels).
template <class Op>
void register_scan(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                   typename Op::value_type* out, void* scratch, cudaStream_t stream, const std::uint32_t* map = nullptr) {
  using T = typename Op::value_type;
  using namespace register_scan_detail;
  if (n <= 0) return;
  auto run = [&](auto kernel, int items) {
    const std::int64_t tiles = ceil_div(n, std::int64_t(kThreads) * items);  // at most run_tiles: the scratch holds them
    const auto x = single_pass_detail::look_back_state<T>(scratch, tiles, std::int64_t(kThreads) * items, m, stream);
    const std::int64_t ahead = lookahead_tiles(lp::max_active_blocks(reinterpret_cast<const void*>(kernel), kThreads, 0), single_pass_detail::kRunLookahead);
    kernel<<<static_cast<unsigned>(tiles), kThreads, 0, stream>>>(labels, values, n, m, inclusive, out, x.status, x.aggregates, x.prefixes,
                                                                   x.words, map, ahead, x.windows);
    LP_CUDA_LAUNCH("register_scan_kernel");
  };
  constexpr int kItems = single_pass_detail::run_items<T>();
  switch (width_for(m)) {
    case 1:
#ifdef LP_PROBE_REGISTER_ITEMS  // a tuning probe's build only (configs/multiscan/probe_register_items.json)
      if (const char* e = std::getenv("LP_REGISTER_ITEMS_FACTOR"); e && std::atoi(e) == 2)
        return run(register_scan_kernel<Op, 1, 2 * kItems>, 2 * kItems);
#endif
      return run(register_scan_kernel<Op, 1>, kItems);
    case 2: return run(register_scan_kernel<Op, 2>, kItems);
    case 4: return run(register_scan_kernel<Op, 4>, kItems);
    case 8: return run(register_scan_kernel<Op, 8>, kItems);
    default: return run(register_scan_kernel<Op, 16>, kItems);
  }
}

}  // namespace lp::multiscan
