// Thesis Alg 4.10 (Fig 4.14): per-bank bucket sets in shared memory, pair aggregation, atomic flush.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "common.cuh"

namespace lp::multireduce {

namespace perbank_detail {

// One bucket set per shared-memory bank: bucket b of set s lives at b * kBanks + s, so the set a
// thread uses (threadIdx mod kBanks) is one bank, and the 32 lanes of a warp never conflict.
constexpr int kBanks = 32;
// Pairs (i, i + nThreads) a thread fetches before its updates: the loads of all of them are in
// flight together, which is what hides global-memory latency behind the shared atomics.
constexpr int kPairs = 2;

// Dynamic shared memory of every per-bank kernel, as raw bytes so that instantiations for
// different value types do not declare conflicting extern arrays.
template <class T>
__device__ __forceinline__ T* shared_buckets() {
  extern __shared__ __align__(16) unsigned char perbank_smem[];
  return reinterpret_cast<T*>(perbank_smem);
}

template <class Op>
__device__ __forceinline__ void reset(typename Op::value_type* sh, std::uint32_t n_buckets) {
  for (std::uint32_t i = threadIdx.x; i < n_buckets * kBanks; i += blockDim.x) sh[i] = Op::identity();
}

// One fetched pair (thesis: "check if labels are equal ... if so, perform only one update").
// `my` is the thread's bucket set (sh + lane); labels are made local by subtracting `base`; with
// Filter, labels outside [base, base + range) belong to another pass and are dropped.
template <class Op, bool Filter>
__device__ __forceinline__ void update_pair(typename Op::value_type* my, std::uint32_t l1, typename Op::value_type v1, bool ok1,
                                            std::uint32_t l2, typename Op::value_type v2, bool ok2, std::uint32_t base,
                                            std::uint32_t range) {
  l1 -= base;
  l2 -= base;
  if constexpr (Filter) {
    ok1 = ok1 && l1 < range;
    ok2 = ok2 && l2 < range;
  }
  if (ok1 && ok2 && l1 == l2) {
    v1 = Op::apply(v1, v2);
    ok2 = false;
  }
  if (ok1) atomic_apply<Op>(my + l1 * kBanks, v1);
  if (ok2) atomic_apply<Op>(my + l2 * kBanks, v2);
}

// The block's main loop: tiles of 2 * kPairs * blockDim.x inputs starting at begin + k * tile for
// k = k0, k0 + dk, ... below end. In a tile, thread t takes the pairs (t + 2pT, t + 2pT + T), so
// every load of a warp is one coalesced run. Full tiles skip the bounds checks; only the last,
// partial tile (any n, odd included) pays for them.
template <class Op, bool Filter>
__device__ __forceinline__ void accumulate(typename Op::value_type* my, const std::uint32_t* __restrict__ labels,
                                           const typename Op::value_type* __restrict__ values, std::int64_t begin,
                                           std::int64_t end, std::int64_t k0, std::int64_t dk, std::uint32_t base,
                                           std::uint32_t range) {
  using T = typename Op::value_type;
  const std::int64_t nt = blockDim.x;
  const std::int64_t tile = 2 * kPairs * nt;
  for (std::int64_t s = begin + k0 * tile; s < end; s += dk * tile) {
    std::uint32_t l[2 * kPairs];
    T v[2 * kPairs];
    if (s + tile <= end) {
#pragma unroll
      for (int k = 0; k < 2 * kPairs; ++k) {
        l[k] = labels[s + k * nt + threadIdx.x];
        v[k] = values[s + k * nt + threadIdx.x];
      }
#pragma unroll
      for (int p = 0; p < kPairs; ++p) update_pair<Op, Filter>(my, l[2 * p], v[2 * p], true, l[2 * p + 1], v[2 * p + 1], true, base, range);
    } else {
      bool ok[2 * kPairs];
#pragma unroll
      for (int k = 0; k < 2 * kPairs; ++k) {
        const std::int64_t i = s + k * nt + threadIdx.x;
        ok[k] = i < end;
        l[k] = ok[k] ? labels[i] : 0u;
        v[k] = ok[k] ? values[i] : Op::identity();
      }
#pragma unroll
      for (int p = 0; p < kPairs; ++p)
        update_pair<Op, Filter>(my, l[2 * p], v[2 * p], ok[2 * p], l[2 * p + 1], v[2 * p + 1], ok[2 * p + 1], base, range);
    }
  }
}

// Folds each bucket over the 32 sets and applies it atomically to out[b] (the thesis's final
// optimisation: no second partitioning step). Lane-rotated start (j = lane + k) keeps the 32
// reads of a warp on 32 banks. With `reset`, each bucket goes back to the identity as it is read
// (the sort extension's next segment needs it), which is race-free: in this phase a bucket's 32
// words belong to one thread. Buckets still at the identity are skipped (x ⊙ e = x).
template <class Op>
__device__ __forceinline__ void flush(typename Op::value_type* sh, std::uint32_t n_buckets, typename Op::value_type* out, bool reset) {
  using T = typename Op::value_type;
  const unsigned lane = threadIdx.x % kBanks;
  for (std::uint32_t b = threadIdx.x; b < n_buckets; b += blockDim.x) {
    T* row = sh + b * kBanks;
    T acc = Op::identity();
#pragma unroll 8
    for (unsigned k = 0; k < kBanks; ++k) {
      const unsigned j = (lane + k) % kBanks;
      acc = Op::apply(acc, row[j]);
      if (reset) row[j] = Op::identity();
    }
    if (!(acc == Op::identity())) atomic_apply<Op>(out + b, acc);
  }
}

// Alg 4.10 as one kernel for one label range [base, base + n_buckets): the single-pass variant
// (base 0, n_buckets = m, no filter) and each pass of the multi-pass extension (with filter).
template <class Op, bool Filter>
__global__ void __launch_bounds__(1024) perbank_kernel(const std::uint32_t* __restrict__ labels,
                                                       const typename Op::value_type* __restrict__ values, std::int64_t n,
                                                       std::uint32_t base, std::uint32_t n_buckets, typename Op::value_type* out) {
  using T = typename Op::value_type;
  T* sh = shared_buckets<T>();
  reset<Op>(sh, n_buckets);
  __syncthreads();
  accumulate<Op, Filter>(sh + threadIdx.x % kBanks, labels, values, 0, n, blockIdx.x, gridDim.x, base, n_buckets);
  __syncthreads();
  flush<Op>(sh, n_buckets, out + base, false);
}

inline std::size_t shared_bytes(std::uint32_t n_buckets, std::size_t value_bytes) {
  return std::size_t(kBanks) * n_buckets * value_bytes;
}

// The thesis's nThreads = nBuckets * 4, clamped to [128, 1024] (fewer than four warps cannot hide
// latency; 1024 is CUDA's limit) and rounded to whole warps.
inline int default_threads(std::uint32_t n_buckets) {
  std::int64_t t = std::int64_t(n_buckets) * 4;
  t = std::clamp<std::int64_t>(t, 128, 1024);
  return static_cast<int>((t + 31) / 32 * 32);
}

inline int threads_for(std::uint32_t n_buckets, const Tuning& tuning) {
  return tuning.threads > 0 ? tuning.threads : default_threads(n_buckets);
}

// Resident blocks per SM: the tuning's, or as many as registers, threads and shared memory allow
// (the thesis: "choose nBlocks for best performance", i.e. fill the GPU).
template <class Kernel>
int blocks_per_sm(Kernel kernel, int threads, std::size_t smem, const Tuning& tuning) {
  if (tuning.blocks_per_sm > 0) return tuning.blocks_per_sm;
  return std::max(1, lp::max_active_blocks(kernel, threads, smem));
}

// Why per-bank sets of n_buckets buckets cannot run, or "".
inline std::string unsupported(std::uint32_t n_buckets, std::size_t value_bytes, const Tuning& tuning) {
  const std::size_t need = shared_bytes(n_buckets, value_bytes), have = max_shared_per_block();
  if (need > have)
    return "32 bucket sets of " + std::to_string(n_buckets) + " buckets need " + std::to_string(need) + " B of shared memory; a block has " +
           std::to_string(have) + " B (m <= " + std::to_string(have / (kBanks * value_bytes)) + " for this type)";
  if (tuning.threads > 1024) return "threads = " + std::to_string(tuning.threads) + " exceeds 1024 per block";
  return "";
}

// Launch of one range [base, base + n_buckets) over all n inputs.
template <class Op, bool Filter>
void launch_range(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t base,
                  std::uint32_t n_buckets, typename Op::value_type* out, int threads, const Tuning& tuning, cudaStream_t stream) {
  using T = typename Op::value_type;
  const std::size_t smem = shared_bytes(n_buckets, sizeof(T));
  auto kernel = perbank_kernel<Op, Filter>;
  lp::allow_dynamic_shared(kernel, smem);
  const int grid = grid_for(ceil_div(n, 2 * kPairs), threads, blocks_per_sm(kernel, threads, smem, tuning));
  kernel<<<grid, threads, smem, stream>>>(labels, values, n, base, n_buckets, out);
  LP_CUDA_LAUNCH("perbank_kernel");
}

}  // namespace perbank_detail

inline std::string perbank_unsupported(std::int64_t, std::uint32_t m, std::size_t value_bytes, const Tuning& tuning) {
  return perbank_detail::unsupported(m, value_bytes, tuning);
}

inline std::size_t perbank_scratch_bytes(std::int64_t, std::uint32_t, const Tuning&) { return 0; }

// Single pass over all m buckets (m must fit: see perbank_unsupported). out is filled with the
// identity first, since the blocks apply their partial buckets to it atomically.
template <class Op>
void perbank(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
             typename Op::value_type* out, void* /*scratch*/, std::size_t /*scratch_bytes*/, const Tuning& tuning, cudaStream_t stream) {
  fill(out, m, Op::identity(), stream);
  if (n <= 0) return;
  perbank_detail::launch_range<Op, false>(labels, values, n, 0, m, out, perbank_detail::threads_for(m, tuning), tuning, stream);
}

}  // namespace lp::multireduce
