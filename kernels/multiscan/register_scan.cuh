// Beyond the thesis: a single-pass multiscan for m <= 16 whose tile work is register arithmetic.
// single_pass scans 32-input warp steps in order through shared-memory bucket sets (match.any,
// pointer jumping, a shared read-modify-write per step: a latency chain per warp); here each thread
// owns ITEMS consecutive inputs and keeps its m bucket sums in registers (one compare and select
// per bucket and input), the block scans those m-vectors with shuffles, and the tiles exchange
// m-vectors through single_pass's decoupled look-back (exchange_prefix). A second walk over the
// thread's inputs from its exclusive prefix vector gives the results, written with 16-byte stores.
// Blocks are persistent and copy their next tile's inputs into shared memory (cp.async) while they
// scan the current one, so the reads overlap the look-back's wait. Inputs are read once and
// results written once.
#pragma once
#include <cuda_pipeline.h>

#include "../common/launch_cache.cuh"
#include "single_pass.cuh"

namespace lp::multiscan {

namespace register_scan_detail {

constexpr int kThreads = 256, kWarps = kThreads / 32;
constexpr std::uint32_t kMaxM = 16;

// Inputs per thread: 16 four-byte values (64 B, four 16-byte loads) or 8 eight-byte ones, so that
// the bucket sums, labels and values of m = 16 stay in registers.
template <class T>
constexpr int items() {
  return sizeof(T) == 4 ? 16 : 8;
}

// The bucket count the kernel is built for: the power of two at or above m.
inline int width_for(std::uint32_t m) {
  int k = 1;
  while (std::uint32_t(k) < m) k *= 2;
  return k;
}

inline std::int64_t tiles_for(std::int64_t n, std::size_t value_bytes) {
  const int per = value_bytes == 4 ? 16 : 8;
  return ceil_div(std::max<std::int64_t>(n, 1), std::int64_t(kThreads) * per);
}

// Loads a thread's ITEMS consecutive elements: 16-byte loads where the whole run lies inside the
// input (its start is 64-byte aligned), else one guarded load each.
template <class T, int ITEMS>
__device__ __forceinline__ void load_run(const T* __restrict__ p, std::int64_t start, std::int64_t n, T fill, T (&x)[ITEMS]) {
  if (start + ITEMS <= n) {
    constexpr int vecs = ITEMS * int(sizeof(T)) / 16;
    uint4 w[vecs];
#pragma unroll
    for (int k = 0; k < vecs; ++k) w[k] = __ldg(reinterpret_cast<const uint4*>(p + start) + k);
    memcpy(x, w, sizeof(w));
  } else {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) x[k] = start + k < n ? multireduce::ldg_any(p + start + k) : fill;
  }
}

template <class T, int ITEMS>
__device__ __forceinline__ void store_run(T* __restrict__ p, std::int64_t start, std::int64_t n, const T (&x)[ITEMS]) {
  if (start + ITEMS <= n) {
    constexpr int vecs = ITEMS * int(sizeof(T)) / 16;
    uint4 w[vecs];
    memcpy(w, x, sizeof(w));
#pragma unroll
    for (int k = 0; k < vecs; ++k) reinterpret_cast<uint4*>(p + start)[k] = w[k];
  } else {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
      if (start + k < n) p[start + k] = x[k];
  }
}

// A tile's inputs in shared memory, fetched by asynchronous 16-byte copies (cp.async) while the
// block still scans the tile before it. Global chunk c (16 bytes) of the tile's labels or values is
// copied by thread c % kThreads (each copy instruction of a warp reads 512 contiguous bytes) into
// slot(c); thread t then takes its own C consecutive chunks. The slot swizzle (XOR of the low two
// bits) makes both the copies and the reads free of bank conflicts, where the plain layout gives
// the reads a 4-way conflict (lanes 64 bytes apart).
template <class T, int ITEMS>
struct Stage {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "values are one 4- or 8-byte word");
  static constexpr int CL = ITEMS * 4 / 16, CV = ITEMS * int(sizeof(T)) / 16;  // chunks per thread: labels, values
  uint4 labels[CL * kThreads], values[CV * kThreads];

  template <int C>
  static __device__ __forceinline__ int slot(int c) {
    return c ^ ((c >> 3) & (C - 1));
  }
  template <int C>
  static __device__ __forceinline__ void copy(uint4* dst, const void* src) {
    const uint4* g = static_cast<const uint4*>(src);
#pragma unroll
    for (int k = 0; k < C; ++k) {
      const int c = k * kThreads + int(threadIdx.x);
      __pipeline_memcpy_async(dst + slot<C>(c), g + c, 16);
    }
  }
  // Starts the copies of the whole tile that begins at input `first`.
  __device__ __forceinline__ void fetch(const std::uint32_t* l, const T* v, std::int64_t first) {
    copy<CL>(labels, l + first);
    copy<CV>(values, v + first);
    __pipeline_commit();
  }
  // The thread's ITEMS labels and values, once every thread's copies have landed.
  __device__ __forceinline__ void take(std::uint32_t (&l)[ITEMS], T (&x)[ITEMS]) const {
#pragma unroll
    for (int k = 0; k < CL; ++k) unpack(labels[slot<CL>(CL * int(threadIdx.x) + k)], l + 4 * k);
#pragma unroll
    for (int k = 0; k < CV; ++k) unpack(values[slot<CV>(CV * int(threadIdx.x) + k)], x + 16 / int(sizeof(T)) * k);
  }
  // A chunk's words into consecutive elements (element by element: a memcpy of whole arrays put
  // them on the stack).
  template <class U>
  static __device__ __forceinline__ void unpack(const uint4 c, U* e) {
    const unsigned w[4] = {c.x, c.y, c.z, c.w};
    if constexpr (sizeof(U) == 4) {
#pragma unroll
      for (int i = 0; i < 4; ++i) e[i] = bit_cast<U>(w[i]);
    } else {
#pragma unroll
      for (int i = 0; i < 2; ++i) e[i] = bit_cast<U>((static_cast<unsigned long long>(w[2 * i + 1]) << 32) | w[2 * i]);
    }
  }
  template <class U, class W>
  static __device__ __forceinline__ U bit_cast(W w) {
    static_assert(sizeof(U) == sizeof(W), "same size");
    U u;
    memcpy(&u, &w, sizeof(U));
    return u;
  }
};

// M: the bucket count built for (m <= M; labels are below m, so buckets m..M-1 stay empty).
// Persistent blocks: each takes tiles in the order of a global counter (single_pass's reason: no
// tile waits for one not yet running) and fetches its next tile's inputs before scanning the one it
// holds, so that the DRAM reads go on while the block waits in the look-back. (A block per tile
// that loaded its own inputs first, as before, left the look-back's wait exposed: 41% of the
// cycles at the barrier around it and 53% of DRAM at m = 1; results/h100/issue15/README.md.) A
// block's next tile is always later than the one it holds, so the earliest unfinished tile is
// always being scanned: the look-back cannot deadlock.
// MINB: the resident blocks per SM the registers are capped for (1: uncapped).
template <class Op, int M, int MINB>
__global__ void __launch_bounds__(kThreads, MINB) register_scan_kernel(const std::uint32_t* __restrict__ labels,
                                                                  const typename Op::value_type* __restrict__ values, std::int64_t n,
                                                                  std::int64_t tiles, std::uint32_t m, bool inclusive,
                                                                  typename Op::value_type* __restrict__ out, unsigned* status,
                                                                  typename Op::value_type* aggregates, typename Op::value_type* prefixes,
                                                                  unsigned long long* words, const std::uint32_t* __restrict__ map) {
  using T = typename Op::value_type;
  constexpr int ITEMS = items<T>();
  constexpr std::int64_t kTile = std::int64_t(kThreads) * ITEMS;
  __shared__ Stage<T, ITEMS> stage;
  __shared__ T warp_sums[kWarps][M];
  __shared__ T agg[M], pre[M];
  __shared__ unsigned shared_word[2], next_tile;
  const int w = threadIdx.x / 32, lane = threadIdx.x & 31;
  auto whole = [&](std::int64_t t) { return (t + 1) * kTile <= n; };  // the last tile may be partial: loaded directly

  if (threadIdx.x == 0) next_tile = atomicAdd(status, 1u);
  __syncthreads();
  std::int64_t tile = next_tile;
  if (tile < tiles && whole(tile)) stage.fetch(labels, values, tile * kTile);

  while (tile < tiles) {
    if (whole(tile)) __pipeline_wait_prior(0);
    __syncthreads();  // every thread's copies have landed, and the tile before is done with pre, agg and warp_sums
    const std::int64_t start = tile * kTile + std::int64_t(threadIdx.x) * ITEMS;
    std::uint32_t l[ITEMS];
    T x[ITEMS];
    if (whole(tile)) {
      stage.take(l, x);
    } else {
      load_run<std::uint32_t, ITEMS>(labels, start, n, 0xffffffffu, l);  // past the end: no bucket
      load_run<T, ITEMS>(values, start, n, Op::identity(), x);
    }
    if (threadIdx.x == 0) next_tile = atomicAdd(status, 1u);
    if (threadIdx.x < M) pre[threadIdx.x] = Op::identity();
    __syncthreads();  // the stage is free for the next tile, whose number is in next_tile
    const std::int64_t next = next_tile;
    if (next < tiles && whole(next)) stage.fetch(labels, values, next * kTile);
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
    single_pass_detail::exchange_prefix<Op>(tile, m, agg, pre, status, aggregates, prefixes, words, shared_word);

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
      const T next_value = Op::apply(cur, x[k]);
#pragma unroll
      for (int b = 0; b < M; ++b) acc[b] = l[k] == std::uint32_t(b) ? next_value : acc[b];
      x[k] = inclusive ? next_value : cur;
    }
    store_run<T, ITEMS>(out, start, n, x);
    tile = next;
  }
}

}  // namespace register_scan_detail

inline std::string register_scan_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes) {
  using namespace register_scan_detail;
  if (m > kMaxM) return "m = " + std::to_string(m) + ": register_scan keeps at most " + std::to_string(kMaxM) + " bucket sums in registers";
  if (n > (std::int64_t(1) << 31) * kThreads * 8) return "n too large for 32-bit tile numbers";
  if (2 * std::size_t(tiles_for(n, value_bytes)) * m * value_bytes > single_pass_detail::kMaxVectorBytes) return "the tiles' vectors exceed 4 GiB";
  return "";
}

template <class T>
std::size_t register_scan_scratch_bytes(std::int64_t n, std::uint32_t m) {
  return single_pass_detail::look_back_bytes<T>(register_scan_detail::tiles_for(n, sizeof(T)), m);
}

// `map` non-null: each label is read through it (m is then the number of dense labels).
// t.blocks_per_sm: the persistent blocks per SM (0: as many as fit).
template <class Op>
void register_scan(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                   typename Op::value_type* out, void* scratch, const Tuning& t, cudaStream_t stream, const std::uint32_t* map = nullptr) {
  using T = typename Op::value_type;
  using namespace register_scan_detail;
  if (n <= 0) return;
  const std::int64_t tiles = tiles_for(n, sizeof(T));
  const auto x = single_pass_detail::look_back_state<T>(scratch, tiles, m, stream);
  auto run = [&](auto kernel) {
    const int per_sm = t.blocks_per_sm > 0 ? t.blocks_per_sm : std::max(1, lp::max_active_blocks(reinterpret_cast<const void*>(kernel), kThreads, 0));
    const auto blocks = static_cast<unsigned>(std::min<std::int64_t>(tiles, std::int64_t(multireduce::sm_count()) * per_sm));
    kernel<<<blocks, kThreads, 0, stream>>>(labels, values, n, tiles, m, inclusive, out, x.status, x.aggregates, x.prefixes, x.words, map);
    LP_CUDA_LAUNCH("register_scan_kernel");
  };
  // Three blocks per SM (registers capped at 85) where the tuning asks for at least three; else
  // uncapped (two blocks of 256 threads fit at up to 128 registers).
  auto run_m = [&](auto minb) {
    constexpr int B = decltype(minb)::value;
    switch (width_for(m)) {
      case 1: return run(register_scan_kernel<Op, 1, B>);
      case 2: return run(register_scan_kernel<Op, 2, B>);
      case 4: return run(register_scan_kernel<Op, 4, B>);
      case 8: return run(register_scan_kernel<Op, 8, B>);
      default: return run(register_scan_kernel<Op, 16, B>);
    }
  };
  if (t.blocks_per_sm >= 3) run_m(std::integral_constant<int, 3>());
  else run_m(std::integral_constant<int, 1>());
}

}  // namespace lp::multiscan
