// Beyond the thesis: register_scan's tile (m = 1) and perthread_scan's (m up to 64) with the loads
// of the block's next tile in flight while this one waits in the decoupled look-back. Both kernels
// read a tile, fold it, then wait for their predecessors' prefixes with the block at a barrier; with
// three 256-thread blocks an SM, 46-59% of the cycles between a warp's issues were spent there and
// DRAM ran at 25-50% (H200, n = 2^26 int32: 0.57 of the copy ceiling at m = 1, 0.44 at 4, 0.33 at
// 16; results/h200/multiscan/profiles/README.md). Here blocks stay resident and take tiles in the
// order they ask for them, one ahead; once every thread has folded its tile, each copies
// its run of the next tile into shared memory with cp.async (16-byte pieces, a slot a thread, no
// registers held), so the DRAM traffic of tile i + 1 overlaps the row scans, the look-back, the
// second walk and the stores of tile i. Inputs are read once and results written once.
#pragma once
#include <stdexcept>

#include "perthread_scan.cuh"
#include "register_scan.cuh"

namespace lp::multiscan {

namespace pipelined_scan_detail {

constexpr int kThreads = single_pass_detail::kRunThreads;

__device__ __forceinline__ void copy16_async(void* smem, const void* gmem) {
  const unsigned s = static_cast<unsigned>(__cvta_generic_to_shared(smem));
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(gmem) : "memory");
}
// Waits for every cp.async this thread issued.
__device__ __forceinline__ void copies_wait() { asm volatile("cp.async.wait_all;" ::: "memory"); }

// A tile's inputs staged in shared memory: thread t's q-th 16-byte piece (labels first, then
// values) at slot q * kThreads + t, so that a warp's copies and reads touch consecutive slots (no
// bank conflicts). Each thread reads back only what it copied: no barrier between copy and read.
template <class T, int ITEMS>
struct Stage {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "4- or 8-byte values");
  static constexpr int kLabelPieces = ITEMS * 4 / 16, kValuePieces = ITEMS * int(sizeof(T)) / 16;
  static constexpr std::size_t kBytes = std::size_t(kLabelPieces + kValuePieces) * kThreads * 16;

  // The run from `start`: copied where it lies whole inside the input, else left to take's guarded loads.
  __device__ static void issue(uint4* stage, const std::uint32_t* labels, const T* values, std::int64_t start, std::int64_t n) {
    if (start + ITEMS > n) return;
    const uint4* lp = reinterpret_cast<const uint4*>(labels + start);
    const uint4* vp = reinterpret_cast<const uint4*>(values + start);
#pragma unroll
    for (int q = 0; q < kLabelPieces; ++q) copy16_async(stage + q * kThreads + threadIdx.x, lp + q);
#pragma unroll
    for (int q = 0; q < kValuePieces; ++q) copy16_async(stage + (kLabelPieces + q) * kThreads + threadIdx.x, vp + q);
  }

  __device__ static void take(const uint4* stage, const std::uint32_t* labels, const T* values, std::int64_t start, std::int64_t n,
                              T fill, std::uint32_t (&l)[ITEMS], T (&x)[ITEMS]) {
    if (start + ITEMS > n) {  // past the end: no bucket
      load_run<std::uint32_t, ITEMS>(labels, start, n, 0xffffffffu, l);
      load_run<T, ITEMS>(values, start, n, fill, x);
      return;
    }
    copies_wait();
    uint4 a[kLabelPieces], b[kValuePieces];
#pragma unroll
    for (int q = 0; q < kLabelPieces; ++q) a[q] = stage[q * kThreads + threadIdx.x];
#pragma unroll
    for (int q = 0; q < kValuePieces; ++q) b[q] = stage[(kLabelPieces + q) * kThreads + threadIdx.x];
    memcpy(l, a, sizeof(a));
    memcpy(x, b, sizeof(b));
  }
};

// The resident blocks an SM the registers are capped for: perthread_scan's (three with 4-byte
// values, four with 8-byte ones).
template <class T>
constexpr int min_blocks() {
  return perthread_scan_detail::default_min_blocks<T>();
}

// COLUMNS: perthread_scan's tile (m up to 64); else register_scan's with one bucket (m = 1).
template <class Op, bool COLUMNS>
__global__ void __launch_bounds__(kThreads, min_blocks<typename Op::value_type>())
    pipelined_scan_kernel(const std::uint32_t* __restrict__ labels, const typename Op::value_type* __restrict__ values, std::int64_t n,
                          std::uint32_t m, bool inclusive, typename Op::value_type* __restrict__ out, unsigned* status,
                          typename Op::value_type* aggregates, typename Op::value_type* prefixes, unsigned long long* words,
                          std::int64_t tiles, std::int64_t ahead) {
  using T = typename Op::value_type;
  constexpr int ITEMS = single_pass_detail::run_items<T>();
  using S = Stage<T, ITEMS>;
  constexpr std::int64_t kSize = std::int64_t(kThreads) * ITEMS;
  extern __shared__ __align__(16) unsigned char pipelined_scan_smem[];
  uint4* stage = reinterpret_cast<uint4*>(pipelined_scan_smem);
  T* rows = reinterpret_cast<T*>(pipelined_scan_smem + S::kBytes);  // COLUMNS: m rows of kThreads entries
  using Shared = std::conditional_t<COLUMNS, perthread_scan_detail::TileShared<T>, register_scan_detail::TileShared<T, 1>>;
  __shared__ Shared sh;
  __shared__ unsigned taken[2];  // alternately: a slow warp may still read the first when thread 0 writes the next

  // A block asks for its next tile when it starts this one and works it when this one is done.
  // Asking further ahead chains the tiles: a tile held but not started keeps every later tile
  // waiting in its look-back (with two held a block, tile 2k waited for the whole of tile 2k - 2:
  // 70x slower, results/h200/multiscan/probes/ceiling_rows_pipelined_two_ahead.json). A block only
  // waits for tiles already taken by running blocks, each of which works its tiles in order, so the
  // look-back cannot deadlock, whether all blocks are resident or not.
  if (threadIdx.x == 0) taken[0] = atomicAdd(status, 1u);
  __syncthreads();
  std::int64_t tile = taken[0];
  if (tile >= tiles) return;
  S::issue(stage, labels, values, (tile * kThreads + threadIdx.x) * ITEMS, n);
  for (int parity = 1;; parity ^= 1) {
    unsigned asked = 0;
    if (threadIdx.x == 0) asked = atomicAdd(status, 1u);
    const std::int64_t start = (tile * kThreads + threadIdx.x) * ITEMS;
    std::uint32_t l[ITEMS];
    T x[ITEMS];
    S::take(stage, labels, values, start, n, Op::identity(), l, x);
    std::int64_t next = 0;
    auto before_barrier = [&] {
      if (threadIdx.x == 0) taken[parity] = asked;
    };
    // Every thread has read its staged run and folded it: the slots take the next tile's run.
    auto after_barrier = [&] {
      next = taken[parity];
      if (next >= tiles) return;
      S::issue(stage, labels, values, (next * kThreads + threadIdx.x) * ITEMS, n);
      prefetch_tile_l2(labels, values, next, ahead, kSize, n);
    };
    if constexpr (COLUMNS)
      perthread_scan_detail::perthread_tile<Op, ITEMS>(sh, rows, tile, start, n, m, inclusive, l, x, out, status, aggregates, prefixes,
                                                       words, before_barrier, after_barrier);
    else
      register_scan_detail::register_tile<Op, 1, ITEMS>(sh, tile, start, n, m, inclusive, l, x, out, status, aggregates, prefixes, words,
                                                        before_barrier, after_barrier);
    if (next >= tiles) break;
    __syncthreads();  // the tile's shared memory is free again
    tile = next;
  }
}

}  // namespace pipelined_scan_detail

inline std::string pipelined_scan_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes) {
  const std::uint32_t most = perthread_scan_detail::max_m(value_bytes);
  if (m > most)
    return "m = " + std::to_string(m) + ": pipelined_scan keeps at most " + std::to_string(most) + " buckets a thread in shared memory (" +
           std::to_string(value_bytes) + "-byte values)";
  return single_pass_detail::run_tiles_unsupported(n, m, value_bytes);
}

template <class T>
std::size_t pipelined_scan_scratch_bytes(std::int64_t n, std::uint32_t m) {
  return single_pass_detail::run_tiles_scratch_bytes<T>(n, m);
}

template <class Op>
void pipelined_scan(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                    typename Op::value_type* out, void* scratch, cudaStream_t stream) {
  using T = typename Op::value_type;
  using namespace pipelined_scan_detail;
  if (n <= 0) return;
  const std::int64_t tiles = single_pass_detail::run_tiles(n, sizeof(T));
  const auto x = single_pass_detail::look_back_state<T>(scratch, tiles, m, stream);
  const bool columns = m > 1;
  const std::size_t smem = Stage<T, single_pass_detail::run_items<T>()>::kBytes + (columns ? perthread_scan_detail::smem_bytes(m, sizeof(T)) : 0);
  auto run = [&](auto kernel) {
    const int per_sm = lp::max_active_blocks(reinterpret_cast<const void*>(kernel), kThreads, smem);  // grants the dynamic shared memory
    if (per_sm < 1) throw std::runtime_error("pipelined_scan: no block of " + std::to_string(smem) + " B of shared memory fits an SM");
    const std::int64_t blocks = std::min<std::int64_t>(tiles, std::int64_t(per_sm) * multireduce::sm_count());
    const std::int64_t ahead = lookahead_tiles(per_sm, single_pass_detail::kRunLookahead);
    kernel<<<static_cast<unsigned>(blocks), kThreads, smem, stream>>>(labels, values, n, m, inclusive, out, x.status, x.aggregates,
                                                                       x.prefixes, x.words, tiles, ahead);
    LP_CUDA_LAUNCH("pipelined_scan_kernel");
  };
  if (columns) run(pipelined_scan_kernel<Op, true>);
  else run(pipelined_scan_kernel<Op, false>);
}

}  // namespace lp::multiscan
