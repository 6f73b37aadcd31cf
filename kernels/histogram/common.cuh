// Pieces the histogram kernels share: their knobs, the merge of per-block partial histograms (the
// second kernel of Algs 4.2 and 4.3), and launch sizing built on the multireduce helpers.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "../common/cuda_check.cuh"
#include "../multireduce/common.cuh"
#include "bundle.hpp"

namespace lp::histogram {

using multireduce::ceil_div;
using multireduce::grid_for;
using multireduce::max_shared_per_block;
using multireduce::sm_count;

// Knobs (0 = the variant's default). Kernels read only these; where they come from is the study's
// business.
struct Tuning {
  int threads = 0;        // threads per block
  int blocks_per_sm = 0;  // resident blocks per SM the grid is sized for
  int factor = 0;         // BankTRISH: factor x 64 threads per block (2..8; default 8)
  int cluster = 0;        // thread-block cluster size (cluster_privatized)
};

// The multireduce knobs that correspond, for the kernels reused from there.
inline multireduce::Tuning as_multireduce(const Tuning& t) {
  multireduce::Tuning m;
  m.threads = t.threads;
  m.blocks_per_sm = t.blocks_per_sm;
  m.cluster = t.cluster;
  return m;
}

// Partial histograms, set-major (partials[s * bins + b], as blocks write them coalesced), summed
// per bin. One block per bin: the thesis-era variants make thousands of partials of 64 or 256 bins,
// too few bins for one thread per bin to fill the GPU.
static __global__ void merge_partials_kernel(const std::uint32_t* __restrict__ partials, int sets, std::uint32_t stride,
                                      std::uint32_t bins, std::uint32_t* __restrict__ out) {
  __shared__ std::uint32_t warp_sum[32];
  for (std::uint32_t b = blockIdx.x; b < bins; b += gridDim.x) {
    std::uint32_t acc = 0;
    for (int s = threadIdx.x; s < sets; s += blockDim.x) acc += partials[std::int64_t(s) * stride + b];
#pragma unroll
    for (int off = 16; off > 0; off /= 2) acc += __shfl_down_sync(0xffffffffu, acc, off);
    if ((threadIdx.x & 31) == 0) warp_sum[threadIdx.x / 32] = acc;
    __syncthreads();
    if (threadIdx.x < 32) {
      acc = threadIdx.x < blockDim.x / 32 ? warp_sum[threadIdx.x] : 0;
#pragma unroll
      for (int off = 16; off > 0; off /= 2) acc += __shfl_down_sync(0xffffffffu, acc, off);
      if (threadIdx.x == 0) out[b] = acc;
    }
    __syncthreads();  // warp_sum is reused by the next bin
  }
}

// Rows of `stride` bins, of which the first `bins` are wanted. Few sets (one wave of blocks) and
// many bins: one thread per bin is enough and reads coalesced.
inline void merge_partials(const std::uint32_t* partials, int sets, std::uint32_t stride, std::uint32_t* out, std::uint32_t bins,
                           cudaStream_t s) {
  if (sets <= 1024 && bins >= 4096 && stride == bins) {
    multireduce::reduce_columns<multireduce::Add<std::uint32_t>>(partials, sets, bins, out, s);
    return;
  }
  merge_partials_kernel<<<static_cast<int>(std::min<std::uint32_t>(bins, 65535u)), 256, 0, s>>>(partials, sets, stride, bins, out);
  LP_CUDA_LAUNCH("merge_partials_kernel");
}
inline void merge_partials(const std::uint32_t* partials, int sets, std::uint32_t bins, std::uint32_t* out, cudaStream_t s) {
  merge_partials(partials, sets, bins, out, bins, s);
}

inline std::size_t partials_bytes(std::int64_t sets, std::uint32_t bins) { return std::size_t(sets) * bins * sizeof(std::uint32_t); }

// Resident blocks per SM: the tuning's, else `fallback`, capped by what the occupancy calculator
// allows (so a thesis default of 3 never over-subscribes a smaller device). The query is
// remembered per (device, kernel, threads, smem) by the launch cache.
template <class Kernel>
int resident_blocks(Kernel kernel, int threads, std::size_t smem, const Tuning& t, int fallback) {
  const int fit = lp::max_active_blocks(kernel, threads, smem);
  const int want = t.blocks_per_sm > 0 ? t.blocks_per_sm : fallback > 0 ? fallback : fit;
  return std::max(1, std::min(want, std::max(fit, 1)));
}

inline std::string need_u8_256(std::uint32_t bins, bool u8, std::uint32_t max_bins = 256) {
  if (!u8) return "byte samples only (the algorithm packs four samples per fetched word)";
  if (bins > max_bins) return "bins = " + std::to_string(bins) + " exceeds " + std::to_string(max_bins);
  return "";
}

}  // namespace lp::histogram
