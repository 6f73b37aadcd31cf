// Thesis Alg 4.8 inside the transposition loop of Alg 4.7 (or 4.6 / 4.5), 4.3.5 "partitioning in
// global memory, non-commutative operators" (Fig 4.7, 4.8), and its fully sorted form (Fig 4.9).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include <cub/device/device_radix_sort.cuh>

#include "common.cuh"
#include "transpose.cuh"

namespace lp::multireduce {

namespace global_noncomm_detail {

// The thesis's best was 6144 threads in 16 blocks on 8 SMs (384 threads per block, two blocks
// per SM); the same per-SM figures here, scaled to this GPU's SMs.
constexpr int kDefaultThreads = 384;
constexpr int kDefaultBlocksPerSm = 2;
constexpr int kDefaultItems = 8;  // a multiple of 8: 32-byte global chunks (Alg 4.7)
constexpr std::size_t kMaxPartialBytes = std::size_t(4) << 30;

inline std::size_t align256(std::size_t x) { return (x + 255) & ~std::size_t(255); }

struct Grid {
  int threads = 0, blocks = 0, n_items = 0;
  std::int64_t seg_len = 0;
  std::string why;  // non-empty: cannot run
  std::int64_t sets() const { return std::int64_t(threads) * blocks; }
};

// nThreads * nBlocks bucket sets of m buckets in global memory: the thesis notes DRAM limits the
// thread count for large m. With default knobs the grid shrinks (blocks first, then threads per
// block, in warps) until the sets fit; explicit knobs are honoured or refused.
inline Grid grid(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  Grid g;
  g.threads = t.threads > 0 ? t.threads : kDefaultThreads;
  g.n_items = t.n_items > 0 ? t.n_items : kDefaultItems;
  if (g.threads > 1024) {
    g.why = "threads = " + std::to_string(g.threads) + " exceeds 1024 per block";
    return g;
  }
  const std::size_t stage = transpose_buffer_bytes<std::uint32_t>(t.transpose, g.n_items, g.threads) +
                            std::size_t(transpose_stride(t.transpose, g.n_items)) * g.threads * value_bytes;
  if (stage > max_shared_per_block()) {
    g.why = "transposition buffers of " + std::to_string(stage) + " B exceed " + std::to_string(max_shared_per_block()) +
            " B of shared memory per block (threads * n_items too large)";
    return g;
  }
  g.blocks = grid_for(ceil_div(std::max<std::int64_t>(n, 1), g.n_items), g.threads,
                      t.blocks_per_sm > 0 ? t.blocks_per_sm : kDefaultBlocksPerSm);
  const std::size_t set_bytes = std::size_t(std::max<std::uint32_t>(m, 1)) * value_bytes;
  const std::size_t fit = kMaxPartialBytes / set_bytes;  // threads in total whose sets fit
  if (std::size_t(g.sets()) > fit && t.blocks_per_sm == 0) g.blocks = static_cast<int>(std::max<std::size_t>(1, fit / g.threads));
  if (std::size_t(g.sets()) > fit && t.blocks_per_sm == 0 && t.threads == 0) g.threads = static_cast<int>(std::max<std::size_t>(32, fit / 32 * 32));
  if (std::size_t(g.sets()) > fit) {
    g.why = std::to_string(g.sets()) + " per-thread bucket sets of " + std::to_string(m) + " buckets exceed " +
            std::to_string(kMaxPartialBytes >> 30) + " GiB of global memory";
    return g;
  }
  g.seg_len = per_thread_segment_length(n, g.sets(), g.n_items);
  return g;
}

inline int sort_end_bit(std::uint32_t m) { return std::max(1, label_bits(m)); }
// Tuning::sort_bits > 0 sorts by the top sort_bits label bits only; 0 sorts by all of them (the
// thesis's Fig 4.9). Radix sort is stable, so every bucket keeps its inputs in input order either way.
inline int sort_begin_bit(std::uint32_t m, const Tuning& t) {
  const int end = sort_end_bit(m);
  return t.sort_bits > 0 && t.sort_bits < end ? end - t.sort_bits : 0;
}

template <class T>
std::size_t cub_temp_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  std::size_t bytes = 0;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
                                          static_cast<const T*>(nullptr), static_cast<T*>(nullptr), n, sort_begin_bit(m, t),
                                          sort_end_bit(m)));
  return bytes;
}

// Each thread owns a contiguous segment (global thread g: [g * seg_len, (g + 1) * seg_len)) and
// its own bucket set buckets[label * nThreadsTotal + g] (Alg 4.8), which is also reduce_partials's
// layout with the sets in thread order, i.e. in input order. Every update is a read-modify-write
// in global memory, as in the thesis: threads of a warp hitting the same label hit adjacent words.
template <class Op, Tuning::Transpose S>
__global__ void __launch_bounds__(1024) global_noncomm_kernel(const std::uint32_t* __restrict__ labels,
                                                              const typename Op::value_type* __restrict__ values, std::int64_t n,
                                                              std::uint32_t m, std::int64_t seg_len, int n_items,
                                                              typename Op::value_type* buckets) {
  using T = typename Op::value_type;
  extern __shared__ __align__(16) unsigned char global_noncomm_smem[];
  const int stride = transpose_stride(S, n_items);
  T* stage_values = reinterpret_cast<T*>(global_noncomm_smem);
  std::uint32_t* stage_labels = reinterpret_cast<std::uint32_t*>(stage_values + stride * blockDim.x);
  const std::int64_t sets = std::int64_t(gridDim.x) * blockDim.x;
  T* mine = buckets + std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::uint32_t b = 0; b < m; ++b) mine[b * sets] = Op::identity();  // coalesced across the warp
  const SegmentTransposer<S> tr(std::int64_t(blockIdx.x) * blockDim.x * seg_len, seg_len, n, n_items);
  fold_segment_in_order<Op>(tr, labels, values, stage_labels, stage_values, n_items, mine, sets);
}

template <class Op, Tuning::Transpose S>
void launch(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
            typename Op::value_type* buckets, const Grid& g, cudaStream_t stream) {
  using T = typename Op::value_type;
  const std::size_t smem = transpose_buffer_bytes<T>(S, g.n_items, g.threads) + transpose_buffer_bytes<std::uint32_t>(S, g.n_items, g.threads);
  auto kernel = global_noncomm_kernel<Op, S>;
  lp::allow_dynamic_shared(kernel, smem);
  kernel<<<g.blocks, g.threads, smem, stream>>>(labels, values, n, m, g.seg_len, g.n_items, buckets);
  LP_CUDA_LAUNCH("global_noncomm_kernel");
}

template <class Op>
void run(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
         typename Op::value_type* out, typename Op::value_type* buckets, const Grid& g, Tuning::Transpose scheme,
         cudaStream_t stream) {
  switch (scheme) {
    case Tuning::Transpose::Padded: launch<Op, Tuning::Transpose::Padded>(labels, values, n, m, buckets, g, stream); break;
    case Tuning::Transpose::Segment: launch<Op, Tuning::Transpose::Segment>(labels, values, n, m, buckets, g, stream); break;
    case Tuning::Transpose::Baxter: launch<Op, Tuning::Transpose::Baxter>(labels, values, n, m, buckets, g, stream); break;
  }
  reduce_partials<Op>(buckets, static_cast<int>(g.sets()), m, out, stream);
}

}  // namespace global_noncomm_detail

inline std::string global_noncomm_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  return global_noncomm_detail::grid(n, m, value_bytes, t).why;
}

template <class T>
std::size_t global_noncomm_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  return std::size_t(global_noncomm_detail::grid(n, m, sizeof(T), t).sets()) * m * sizeof(T);
}

template <class Op>
void global_noncomm(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                    typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, const Tuning& t, cudaStream_t stream) {
  using T = typename Op::value_type;
  (void)scratch_bytes;
  const global_noncomm_detail::Grid g = global_noncomm_detail::grid(n, m, sizeof(T), t);
  global_noncomm_detail::run<Op>(labels, values, n, m, out, static_cast<T*>(scratch), g, t.transpose, stream);
}

// Fig 4.9: a stable radix sort of the pairs by their label bits first, then the same kernel on
// the sorted pairs. Scratch: sorted labels, sorted values, the bucket sets, CUB's temporary storage.
inline std::string global_noncomm_sorted_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  return global_noncomm_unsupported(n, m, value_bytes, t);
}

template <class T>
std::size_t global_noncomm_sorted_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  using namespace global_noncomm_detail;
  return align256(std::size_t(n) * sizeof(std::uint32_t)) + align256(std::size_t(n) * sizeof(T)) +
         align256(global_noncomm_scratch_bytes<T>(n, m, t)) + cub_temp_bytes<T>(n, m, t);
}

template <class Op>
void global_noncomm_sorted(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                           typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, const Tuning& t,
                           cudaStream_t stream) {
  using T = typename Op::value_type;
  using namespace global_noncomm_detail;
  const Grid g = grid(n, m, sizeof(T), t);
  char* p = static_cast<char*>(scratch);
  auto* sorted_labels = reinterpret_cast<std::uint32_t*>(p);
  p += align256(std::size_t(n) * sizeof(std::uint32_t));
  auto* sorted_values = reinterpret_cast<T*>(p);
  p += align256(std::size_t(n) * sizeof(T));
  auto* buckets = reinterpret_cast<T*>(p);
  p += align256(std::size_t(g.sets()) * m * sizeof(T));
  std::size_t temp_bytes = scratch_bytes - static_cast<std::size_t>(p - static_cast<char*>(scratch));
  LP_CUDA(cub::DeviceRadixSort::SortPairs(p, temp_bytes, labels, sorted_labels, values, sorted_values, n, sort_begin_bit(m, t),
                                          sort_end_bit(m), stream));
  run<Op>(sorted_labels, sorted_values, n, m, out, buckets, g, t.transpose, stream);
}

}  // namespace lp::multireduce
