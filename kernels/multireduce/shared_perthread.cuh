// Thesis 4.3.6 (Fig 4.12, 4.13): Nugteren-style per-thread bucket sets in shared memory, bucket b
// of thread t at b * nThreads + t; non-commutative form with transposed loads (Alg 4.7 / 4.6 /
// 4.5), commutative "simple implementation" with batched register loads (TRISH) and atomics; and,
// beyond the thesis, the commutative form over a row source (quads), for wide buckets over few labels.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "../common/launch_cache.cuh"
#include "common.cuh"
#include "transpose.cuh"

namespace lp::multireduce {

namespace shared_perthread_detail {

constexpr int kDefaultThreads = 256;
constexpr int kDefaultItems = 8;  // the thesis's multiples of 8 (Fig 4.13)
constexpr int kBatch = 8;         // inputs a thread loads into registers before its updates (TRISH)
constexpr std::size_t kMaxPartialBytes = std::size_t(4) << 30;

inline std::size_t shared_per_sm() { return std::size_t(lp::device_attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor)); }
inline std::size_t reserved_shared_per_block() { return std::size_t(lp::device_attribute(cudaDevAttrReservedSharedMemoryPerBlock)); }

struct Grid {
  int threads = 0, blocks = 0, n_items = 0;
  std::int64_t seg_len = 0;  // non-commutative: inputs per thread segment
  std::size_t smem = 0;      // dynamic shared memory per block
  std::string why;           // non-empty: cannot run
  std::int64_t sets() const { return std::int64_t(threads) * blocks; }
};

// Shared memory per thread: its m buckets, plus (non-commutative) its share of the label and value
// staging buffers of the transposition. Threads per block: the tuning's, or 256 cut to whole warps
// that fit; blocks: the tuning's per SM, or as many as fit in an SM's shared memory (the thesis:
// bucket space limits parallelism), never more than the work.
inline Grid grid(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t, bool transposed) {
  Grid g;
  g.n_items = transposed ? (t.n_items > 0 ? t.n_items : kDefaultItems) : kBatch;
  const std::size_t per_thread =
      std::size_t(m) * value_bytes + (transposed ? std::size_t(transpose_stride(t.transpose, g.n_items)) * (value_bytes + 4) : 0);
  const std::size_t have = max_shared_per_block();
  if (t.threads > 0) {
    g.threads = t.threads;
    if (g.threads > 1024) g.why = "threads = " + std::to_string(g.threads) + " exceeds 1024 per block";
    else if (!transposed && g.threads % 32 != 0)
      g.why = "threads = " + std::to_string(g.threads) + ": whole warps are needed (warp-wide fold of the sets)";
    else if (g.threads * per_thread > have)
      g.why = std::to_string(g.threads) + " per-thread sets of " + std::to_string(m) + " buckets need " +
              std::to_string(g.threads * per_thread) + " B of shared memory; a block has " + std::to_string(have) + " B";
  } else {
    const std::size_t fit = have / per_thread / 32 * 32;
    if (fit < 32)
      g.why = "32 per-thread sets of " + std::to_string(m) + " buckets need " + std::to_string(32 * per_thread) +
              " B of shared memory; a block has " + std::to_string(have) + " B";
    g.threads = static_cast<int>(std::min<std::size_t>(kDefaultThreads, std::max<std::size_t>(fit, 32)));
  }
  if (!g.why.empty()) return g;
  g.smem = g.threads * per_thread;
  int per_sm = t.blocks_per_sm;
  if (per_sm <= 0) {
    const std::size_t by_smem = shared_per_sm() / (g.smem + reserved_shared_per_block());
    per_sm = static_cast<int>(std::clamp<std::size_t>(std::min<std::size_t>(by_smem, 2048 / g.threads), 1, 32));
  }
  g.blocks = grid_for(ceil_div(std::max<std::int64_t>(n, 1), g.n_items), g.threads, per_sm);
  if (transposed) {
    if (std::size_t(g.sets()) * m * value_bytes > kMaxPartialBytes)
      g.why = std::to_string(g.sets()) + " per-thread bucket sets of " + std::to_string(m) + " buckets exceed " +
              std::to_string(kMaxPartialBytes >> 30) + " GiB of global memory";
    g.seg_len = per_thread_segment_length(n, g.sets(), g.n_items);
  }
  return g;
}

template <class T>
__device__ __forceinline__ T* shared_sets() {
  extern __shared__ __align__(16) unsigned char shared_perthread_smem[];
  return reinterpret_cast<T*>(shared_perthread_smem);
}

// (a) Non-commutative: global thread g folds its contiguous segment [g * seg_len, ...) in order
// into its own set (only it touches bucket b * nThreads + t, so no atomics and no races), then
// writes it to partials[b * nThreadsTotal + g]: sets in thread order are in input order, which is
// what reduce_partials needs.
template <class Op, Tuning::Transpose S>
__global__ void __launch_bounds__(1024) shared_perthread_noncomm_kernel(const std::uint32_t* __restrict__ labels,
                                                                        const typename Op::value_type* __restrict__ values,
                                                                        std::int64_t n, std::uint32_t m, std::int64_t seg_len,
                                                                        int n_items, typename Op::value_type* partials) {
  using T = typename Op::value_type;
  const int nt = blockDim.x, t = threadIdx.x;
  const int stride = transpose_stride(S, n_items);
  T* sets = shared_sets<T>();
  T* stage_values = sets + m * nt;
  std::uint32_t* stage_labels = reinterpret_cast<std::uint32_t*>(stage_values + stride * nt);
  for (std::uint32_t b = 0; b < m; ++b) sets[b * nt + t] = Op::identity();
  const SegmentTransposer<S> tr(std::int64_t(blockIdx.x) * nt * seg_len, seg_len, n, n_items);
  fold_segment_in_order<Op>(tr, labels, values, stage_labels, stage_values, n_items, sets + t, nt);
  const std::int64_t total = std::int64_t(gridDim.x) * nt;
  T* mine = partials + std::int64_t(blockIdx.x) * nt + t;
  for (std::uint32_t b = 0; b < m; ++b) mine[b * total] = sets[b * nt + t];  // coalesced across the warp
}

// The end of the commutative forms: each warp folds whole buckets across the block's sets (lane l
// reads sets l, l + 32, ...: conflict-free) and applies the fold atomically to out.
template <class Op>
__device__ __forceinline__ void fold_sets(const typename Op::value_type* sets, std::uint32_t m, typename Op::value_type* out) {
  using T = typename Op::value_type;
  __syncthreads();  // the folds read every thread's set
  const int nt = blockDim.x, lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = nt >> 5;
  for (std::uint32_t b = warp; b < m; b += warps) {
    T acc = Op::identity();
    for (int s = lane; s < nt; s += 32) acc = Op::apply(acc, sets[b * nt + s]);
#pragma unroll
    for (int off = 16; off > 0; off /= 2) acc = Op::apply(acc, shfl_down(acc, off));
    if (lane == 0 && !(acc == Op::identity())) atomic_apply<Op>(out + b, acc);  // x ⊙ e = x: skip
  }
}

// (b) Commutative: no transposition. A block takes tiles of kBatch * nThreads inputs (grid-stride);
// thread t loads inputs tile + k * nThreads + t for all k (each k one coalesced run) into registers,
// then updates its own set; fold_sets ends it.
template <class Op>
__global__ void __launch_bounds__(1024) shared_perthread_comm_kernel(const std::uint32_t* __restrict__ labels,
                                                                     const typename Op::value_type* __restrict__ values,
                                                                     std::int64_t n, std::uint32_t m, typename Op::value_type* out) {
  using T = typename Op::value_type;
  const int nt = blockDim.x, t = threadIdx.x;
  T* sets = shared_sets<T>();
  for (std::uint32_t b = 0; b < m; ++b) sets[b * nt + t] = Op::identity();
  const std::int64_t tile = std::int64_t(kBatch) * nt;
  for (std::int64_t base = std::int64_t(blockIdx.x) * tile; base < n; base += std::int64_t(gridDim.x) * tile) {
    std::uint32_t l[kBatch];
    T v[kBatch];
    bool ok[kBatch];
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      const std::int64_t i = base + std::int64_t(k) * nt + t;
      ok[k] = i < n;
      l[k] = ok[k] ? labels[i] : 0u;
      v[k] = ok[k] ? values[i] : Op::identity();
    }
#pragma unroll
    for (int k = 0; k < kBatch; ++k) {
      if (ok[k]) {
        T* p = sets + l[k] * nt + t;
        *p = Op::apply(*p, v[k]);
      }
    }
  }
  fold_sets<Op>(sets, m, out);
}

// (c) Commutative over a row source (common.cuh: quad, label, value), beyond the thesis: the same
// per-thread sets, the inputs read a quad at a time (16-byte loads of each column), two quads a
// thread in flight, as register_privatized reads them. Its use is wide buckets over few labels,
// where register_privatized's predicated adds (one a bucket an input) and shared_privatized's
// returning atomics on a replica's few buckets both bind: every update here is a plain load, add
// and store on the thread's own bucket. With bucket b of thread t at b * nThreads + t, a warp's
// 16-byte buckets are 16-byte steps whatever the labels, so no update has a bank conflict.
template <class Op, class Src>
__global__ void __launch_bounds__(1024) shared_perthread_rows_kernel(const Src src, std::int64_t n, std::uint32_t m,
                                                                     typename Op::value_type* out) {
  using T = typename Op::value_type;
  const int nt = blockDim.x, t = threadIdx.x;
  T* sets = shared_sets<T>();
  for (std::uint32_t b = 0; b < m; ++b) sets[b * nt + t] = Op::identity();
  T* mine = sets + t;
  auto add = [&](std::uint32_t label, const T& v) {
    T* p = mine + label * nt;
    *p = Op::apply(*p, v);
  };
  const std::int64_t quads = n / 4, stride = std::int64_t(gridDim.x) * nt;
  std::int64_t q = blockIdx.x * std::int64_t(nt) + t;
  for (; q + stride < quads; q += 2 * stride) {
    const Quad<T> a = src.quad(q), b = src.quad(q + stride);
#pragma unroll
    for (int k = 0; k < 4; ++k) add(a.label[k], a.value[k]);
#pragma unroll
    for (int k = 0; k < 4; ++k) add(b.label[k], b.value[k]);
  }
  if (q < quads) {
    const Quad<T> a = src.quad(q);
#pragma unroll
    for (int k = 0; k < 4; ++k) add(a.label[k], a.value[k]);
  }
  if (blockIdx.x == 0 && t < n - quads * 4) add(src.label(quads * 4 + t), src.value(quads * 4 + t));  // the n mod 4 tail
  fold_sets<Op>(sets, m, out);
}

template <class Op, Tuning::Transpose S>
void launch_noncomm(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                    typename Op::value_type* partials, const Grid& g, cudaStream_t stream) {
  auto kernel = shared_perthread_noncomm_kernel<Op, S>;
  lp::allow_dynamic_shared(kernel, g.smem);
  kernel<<<g.blocks, g.threads, g.smem, stream>>>(labels, values, n, m, g.seg_len, g.n_items, partials);
  LP_CUDA_LAUNCH("shared_perthread_noncomm_kernel");
}

}  // namespace shared_perthread_detail

inline std::string shared_perthread_noncomm_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  return shared_perthread_detail::grid(n, m, value_bytes, t, true).why;
}

template <class T>
std::size_t shared_perthread_noncomm_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  return std::size_t(shared_perthread_detail::grid(n, m, sizeof(T), t, true).sets()) * m * sizeof(T);
}

template <class Op>
void shared_perthread_noncomm(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                              typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, const Tuning& t,
                              cudaStream_t stream) {
  using T = typename Op::value_type;
  using namespace shared_perthread_detail;
  (void)scratch_bytes;
  const Grid g = grid(n, m, sizeof(T), t, true);
  T* partials = static_cast<T*>(scratch);
  switch (t.transpose) {
    case Tuning::Transpose::Padded: launch_noncomm<Op, Tuning::Transpose::Padded>(labels, values, n, m, partials, g, stream); break;
    case Tuning::Transpose::Segment: launch_noncomm<Op, Tuning::Transpose::Segment>(labels, values, n, m, partials, g, stream); break;
    case Tuning::Transpose::Baxter: launch_noncomm<Op, Tuning::Transpose::Baxter>(labels, values, n, m, partials, g, stream); break;
  }
  reduce_partials<Op>(partials, static_cast<int>(g.sets()), m, out, stream);
}

inline std::string shared_perthread_comm_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  return shared_perthread_detail::grid(n, m, value_bytes, t, false).why;
}

inline std::size_t shared_perthread_comm_scratch_bytes(std::int64_t, std::uint32_t, const Tuning&) { return 0; }

template <class Op>
void shared_perthread_comm(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                           typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, const Tuning& t,
                           cudaStream_t stream) {
  using T = typename Op::value_type;
  using namespace shared_perthread_detail;
  (void)scratch, (void)scratch_bytes;
  const Grid g = grid(n, m, sizeof(T), t, false);
  fill(out, m, Op::identity(), stream);
  auto kernel = shared_perthread_comm_kernel<Op>;
  lp::allow_dynamic_shared(kernel, g.smem);
  kernel<<<g.blocks, g.threads, g.smem, stream>>>(labels, values, n, m, out);
  LP_CUDA_LAUNCH("shared_perthread_comm_kernel");
}

// (c) keeps (b)'s sets, so what stops one stops the other.
inline std::string shared_perthread_rows_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  return shared_perthread_comm_unsupported(n, m, value_bytes, t);
}

// Launcher of (c) over any source (common.cuh); commutative operators only, no scratch.
template <class Op, class Src>
void shared_perthread_rows(const Src& src, std::int64_t n, std::uint32_t m, typename Op::value_type* out, const Tuning& t,
                           cudaStream_t stream) {
  using T = typename Op::value_type;
  using namespace shared_perthread_detail;
  static_assert(Op::commutative, "shared_perthread_rows folds each thread's set out of input order");
  const Grid g = grid(n, m, sizeof(T), t, false);
  if (!g.why.empty()) throw std::invalid_argument("shared_perthread_rows: " + g.why);
  fill(out, m, Op::identity(), stream);
  if (n <= 0) return;
  // One wave of the blocks that reside (the occupancy calculator's, registers included): grid()
  // counts shared memory alone, and 64 registers a thread leave 4 blocks of 256 an SM where the sets
  // would let 6-8; the wave that follows left a tail (H200, 2^26 doubles over 16 ids: 0.88 of the
  // copy ceiling against 1.00 over 24, results/h200/decimal/perthread_limits_smem_grid.json).
  auto kernel = shared_perthread_rows_kernel<Op, Src>;
  lp::allow_dynamic_shared(kernel, g.smem);  // also where the tuning's blocks_per_sm skips the occupancy query
  const int per_sm = t.blocks_per_sm > 0 ? t.blocks_per_sm : max_active_blocks(kernel, g.threads, g.smem);
  const int blocks = grid_for(ceil_div(n, 8), g.threads, std::max(1, per_sm));
  kernel<<<blocks, g.threads, g.smem, stream>>>(src, n, m, out);
  LP_CUDA_LAUNCH("shared_perthread_rows_kernel");
}

}  // namespace lp::multireduce
