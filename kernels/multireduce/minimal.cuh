// Thesis Alg 4.4 (minimal multireduce kernel) inside the partitioning scheme of Fig 4.2: threads
// fetch a tile coalesced into shared memory, one thread per block folds it sequentially into the
// block's bucket set in global memory. Order preserving (non-commutative OK).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "common.cuh"

namespace lp::multireduce {

namespace minimal_detail {

// Only thread 0 of a block works, so parallelism is the number of resident blocks: small blocks
// (the tile fetch needs only a few warps) and many of them per SM.
constexpr int kDefaultThreads = 128;
constexpr int kDefaultBlocksPerSm = 16;
// The bucket sets (one per block) live in scratch; beyond this the variant refuses to run.
constexpr std::size_t kMaxPartialBytes = std::size_t(4) << 30;

struct Grid {
  int threads = 0, blocks = 0;
  std::string why;  // non-empty: cannot run
};

inline Grid grid(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  Grid g;
  g.threads = t.threads > 0 ? t.threads : kDefaultThreads;
  if (g.threads > 1024) {
    g.why = "threads = " + std::to_string(g.threads) + " exceeds 1024 per block";
    return g;
  }
  g.blocks = grid_for(n, g.threads, t.blocks_per_sm > 0 ? t.blocks_per_sm : kDefaultBlocksPerSm);
  const std::size_t set_bytes = std::size_t(std::max<std::uint32_t>(m, 1)) * value_bytes;
  const std::size_t fit = kMaxPartialBytes / set_bytes;
  if (std::size_t(g.blocks) > fit) {
    // With the default grid, fewer blocks (fewer bucket sets) is the thesis's own trade-off;
    // an explicit blocks_per_sm is honoured or refused.
    if (t.blocks_per_sm > 0 || fit == 0)
      g.why = std::to_string(g.blocks) + " bucket sets of " + std::to_string(m) + " buckets exceed " +
              std::to_string(kMaxPartialBytes >> 30) + " GiB of global memory";
    else
      g.blocks = static_cast<int>(fit);
  }
  return g;
}

// Block b folds the inputs [b * block_work, (b + 1) * block_work) cut at n, in order, into its set
// partials[label * gridDim.x + b] (Alg 4.4's layout: reduce_partials reads bucket-major rows).
template <class Op>
__global__ void __launch_bounds__(1024) minimal_kernel(const std::uint32_t* __restrict__ labels,
                                                       const typename Op::value_type* __restrict__ values, std::int64_t n,
                                                       std::uint32_t m, std::int64_t block_work, typename Op::value_type* partials) {
  using T = typename Op::value_type;
  extern __shared__ __align__(16) unsigned char minimal_smem[];
  T* tile_values = reinterpret_cast<T*>(minimal_smem);
  std::uint32_t* tile_labels = reinterpret_cast<std::uint32_t*>(tile_values + blockDim.x);
  const std::int64_t sets = gridDim.x;
  T* set = partials + blockIdx.x;
  // The set starts at the identity; all threads write it, thread 0 reads it after the barrier
  // below (a barrier also orders global memory within a block).
  for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) set[b * sets] = Op::identity();
  const std::int64_t begin = std::int64_t(blockIdx.x) * block_work;
  const std::int64_t end = std::min(begin + block_work, n);
  for (std::int64_t base = begin; base < end; base += blockDim.x) {
    __syncthreads();  // thread 0 is done with the previous tile (and the set is initialised)
    const std::int64_t i = base + threadIdx.x;
    if (i < end) {
      tile_labels[threadIdx.x] = labels[i];
      tile_values[threadIdx.x] = values[i];
    }
    __syncthreads();
    if (threadIdx.x == 0) {
      const int count = static_cast<int>(std::min<std::int64_t>(blockDim.x, end - base));
      for (int j = 0; j < count; ++j) {
        T* p = set + std::int64_t(tile_labels[j]) * sets;
        *p = Op::apply(*p, tile_values[j]);
      }
    }
  }
}

}  // namespace minimal_detail

inline std::string minimal_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  return minimal_detail::grid(n, m, value_bytes, t).why;
}

template <class T>
std::size_t minimal_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  return std::size_t(minimal_detail::grid(n, m, sizeof(T), t).blocks) * m * sizeof(T);
}

template <class Op>
void minimal(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
             typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, const Tuning& t, cudaStream_t stream) {
  using T = typename Op::value_type;
  (void)scratch_bytes;
  const minimal_detail::Grid g = minimal_detail::grid(n, m, sizeof(T), t);
  T* partials = static_cast<T*>(scratch);
  const std::int64_t block_work = ceil_div(std::max<std::int64_t>(n, 1), g.blocks);
  const std::size_t smem = std::size_t(g.threads) * (sizeof(T) + sizeof(std::uint32_t));
  minimal_detail::minimal_kernel<Op><<<g.blocks, g.threads, smem, stream>>>(labels, values, n, m, block_work, partials);
  LP_CUDA_LAUNCH("minimal_kernel");
  reduce_partials<Op>(partials, g.blocks, m, out, stream);
}

}  // namespace lp::multireduce
