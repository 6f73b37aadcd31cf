// Thesis Alg 4.9 (Fig 4.2, Tables 4.1/4.2): nSets atomic bucket sets in global memory, optional partial sort by the top sortBits label bits.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "../common/partial_sort.cuh"
#include "common.cuh"

namespace lp::multireduce {

namespace global_comm_detail {

// Thesis: eight sets shared by all threads give the best degenerate-data time; more never helped.
constexpr int kDefaultSets = 8;
constexpr int kDefaultThreads = 256;
// 8 blocks of 256 threads = 2048 resident threads, an H100 SM's maximum.
constexpr int kDefaultBlocksPerSm = 8;
// Inputs a thread loads before issuing their atomics, so that several loads are in flight.
constexpr int kUnroll = 4;
constexpr std::size_t kMaxBucketBytes = std::size_t(4) << 30;

inline std::size_t align256(std::size_t x) { return (x + 255) & ~std::size_t(255); }

inline int n_sets(const Tuning& t) { return t.n_sets > 0 ? t.n_sets : kDefaultSets; }
inline int threads(const Tuning& t) { return t.threads > 0 ? t.threads : kDefaultThreads; }
// The sorted label bits: the top sort_bits of label_bits(m) (Table 4.2), never more than there are.
inline int sort_bits(std::uint32_t m, const Tuning& t) { return std::clamp(t.sort_bits, 0, label_bits(m)); }

// Alg 4.9: block b owns the contiguous chunk [b * chunk, (b + 1) * chunk) (the partitioning of
// Fig 4.2; on sorted input a block thus sees a narrow label range), its threads stride by
// nThreads through it (coalesced loads), and thread t updates set t mod nSets, so the lanes of a
// warp spread over nSets copies of a bucket when labels repeat. buckets[label * nSets + set].
// Indices are 32-bit: m * nSets <= 2^30 (the 4 GiB limit over >= 4-byte values).
template <class Op>
__global__ void global_comm_kernel(const std::uint32_t* __restrict__ labels, const typename Op::value_type* __restrict__ values,
                                   std::int64_t n, std::int64_t chunk, std::uint32_t n_sets, typename Op::value_type* __restrict__ buckets) {
  using T = typename Op::value_type;
  const std::int64_t begin = blockIdx.x * chunk;
  const std::int64_t end = std::min(n, begin + chunk);
  const std::int64_t step = blockDim.x;
  T* my = buckets + threadIdx.x % n_sets;
  std::int64_t i = begin + threadIdx.x;
  for (; i + (kUnroll - 1) * step < end; i += kUnroll * step) {
    std::uint32_t l[kUnroll];
    T v[kUnroll];
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) {
      l[k] = labels[i + k * step];
      v[k] = values[i + k * step];
    }
#pragma unroll
    for (int k = 0; k < kUnroll; ++k) atomic_apply<Op>(my + l[k] * n_sets, v[k]);
  }
  for (; i < end; i += step) atomic_apply<Op>(my + labels[i] * n_sets, values[i]);
}

}  // namespace global_comm_detail

inline std::string global_comm_unsupported(std::int64_t, std::uint32_t m, std::size_t value_bytes, const Tuning& tuning) {
  namespace d = global_comm_detail;
  const std::size_t bytes = std::size_t(d::n_sets(tuning)) * m * value_bytes;
  if (bytes > d::kMaxBucketBytes)
    return "n_sets * m * sizeof(T) = " + std::to_string(bytes) + " B of bucket sets exceeds 4 GiB";
  if (d::threads(tuning) > 1024) return "threads = " + std::to_string(d::threads(tuning)) + " exceeds 1024 per block";
  return "";
}

template <class T>
std::size_t global_comm_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& tuning) {
  namespace d = global_comm_detail;
  const int sets = d::n_sets(tuning), bits = d::sort_bits(m, tuning);
  std::size_t bytes = sets > 1 ? d::align256(std::size_t(sets) * m * sizeof(T)) : 0;  // one set works on out directly
  if (bits > 0) bytes += d::align256(std::size_t(n) * 4) + d::align256(std::size_t(n) * sizeof(T)) + d::align256(partial_sort_temp_bytes<T>(n, m, bits));
  return bytes;
}

// Fill the nSets bucket sets with the identity, (optionally) sort the pairs by their top sortBits
// label bits, run Alg 4.9, then fold each bucket's nSets partials into out (Fig 4.2's last step).
template <class Op>
void global_comm(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                 typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, const Tuning& tuning, cudaStream_t stream) {
  namespace d = global_comm_detail;
  using T = typename Op::value_type;
  const int sets = d::n_sets(tuning), bits = d::sort_bits(m, tuning), threads = d::threads(tuning);
  char* p = static_cast<char*>(scratch);
  T* buckets = out;
  if (sets > 1) {
    buckets = reinterpret_cast<T*>(p);
    p += d::align256(std::size_t(sets) * m * sizeof(T));
  }
  fill(buckets, std::int64_t(sets) * m, Op::identity(), stream);
  if (n > 0) {
    const std::uint32_t* in_labels = labels;
    const T* in_values = values;
    if (bits > 0) {
      auto* sorted_labels = reinterpret_cast<std::uint32_t*>(p);
      p += d::align256(std::size_t(n) * 4);
      auto* sorted_values = reinterpret_cast<T*>(p);
      p += d::align256(std::size_t(n) * sizeof(T));
      std::size_t temp_bytes = scratch_bytes - std::size_t(p - static_cast<char*>(scratch));
      partial_sort_pairs(p, temp_bytes, labels, sorted_labels, values, sorted_values, n, m, bits, stream);
      in_labels = sorted_labels;
      in_values = sorted_values;
    }
    const int per_sm = tuning.blocks_per_sm > 0 ? tuning.blocks_per_sm : d::kDefaultBlocksPerSm;
    const int grid = grid_for(n, threads, per_sm);
    // Whole multiples of nThreads per block keep every warp's loads aligned runs.
    const std::int64_t chunk = ceil_div(ceil_div(n, grid), threads) * threads;
    d::global_comm_kernel<Op><<<grid, threads, 0, stream>>>(in_labels, in_values, n, chunk, std::uint32_t(sets), buckets);
    LP_CUDA_LAUNCH("global_comm_kernel");
  }
  if (sets > 1) reduce_partials<Op>(buckets, sets, m, out, stream);
}

}  // namespace lp::multireduce
