// Thesis 4.3.1, Podlozhnyuk's 64-bin histogram: per-thread 8-bit sub-histograms of byte inputs in
// shared memory, each on one bank, at most 63 words per thread, per-block partials merged by a second kernel.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "common.cuh"

namespace lp::histogram {

namespace podlozhnyuk64_detail {

constexpr int kBins = 64;
constexpr int kDefaultThreads = 192;  // Podlozhnyuk's block size
constexpr int kWordsPerThread = 63;   // 8-bit counters: 63 words x 4 bytes <= 255 inputs per thread

inline int threads(const Tuning& t) { return t.threads > 0 ? t.threads : kDefaultThreads; }

// Counter b of thread j is byte b mod 4 of the word (b / 4) * T + j: thread j's 16 words are all
// on bank j mod 32, so the lanes of a warp never conflict, whatever the data.
__device__ __forceinline__ int at(int b, int j) { return 4 * ((b >> 2) * int(blockDim.x) + j) + (b & 3); }

static __global__ void __launch_bounds__(1024) podlozhnyuk64_kernel(const std::uint32_t* __restrict__ words, std::int64_t n_words,
                                                             const std::uint8_t* tail, int n_tail,
                                                             std::uint32_t* __restrict__ partials) {
  extern __shared__ __align__(16) std::uint8_t counters[];
  const int t = threadIdx.x, T = blockDim.x;
  for (int i = t; i < kBins / 4 * T; i += T) reinterpret_cast<std::uint32_t*>(counters)[i] = 0;
  __syncthreads();
  // The grid is sized so that this loop runs at most 63 times per thread.
  for (std::int64_t p = std::int64_t(blockIdx.x) * T + t; p < n_words; p += std::int64_t(gridDim.x) * T) {
    const std::uint32_t w = __ldg(words + p);
#pragma unroll
    for (int j = 0; j < 4; ++j) ++counters[at((w >> (8 * j)) & 63u, t)];
  }
  if (blockIdx.x == 0 && t < n_tail) ++counters[at(tail[t] & 63u, t)];
  __syncthreads();
  // Bin b summed over the block's T threads; starting at thread b / 4 puts the warp's 8 distinct
  // words on 8 banks.
  for (int b = t; b < kBins; b += T) {
    std::uint32_t sum = 0;
    for (int k = 0; k < T; ++k) sum += counters[at(b, (k + (b >> 2)) % T)];
    partials[std::int64_t(blockIdx.x) * kBins + b] = sum;
  }
}

inline int grid(std::int64_t n, const Tuning& t) {
  const std::int64_t per_block = std::int64_t(threads(t)) * kWordsPerThread;
  return static_cast<int>(std::max<std::int64_t>(1, ceil_div(n / 4, per_block)));
}

}  // namespace podlozhnyuk64_detail

inline std::string podlozhnyuk64_unsupported(bool u8, std::uint32_t bins, const Tuning& t) {
  if (!u8) return "byte samples only (four samples per fetched word)";
  if (bins > 64) return "64 bins at most (bins = " + std::to_string(bins) + ")";
  const int T = podlozhnyuk64_detail::threads(t);
  if (T % 32 || T > 1024) return "threads = " + std::to_string(T) + ": whole warps, at most 1024";
  return "";
}

inline std::size_t podlozhnyuk64_scratch_bytes(std::int64_t n, const Tuning& t) {
  return partials_bytes(podlozhnyuk64_detail::grid(n, t), podlozhnyuk64_detail::kBins);
}

// bins <= 64 (samples < bins); out receives `bins` counts.
inline void podlozhnyuk64(const std::uint8_t* samples, std::int64_t n, std::uint32_t bins, std::uint32_t* out, void* scratch,
                          std::size_t scratch_bytes, const Tuning& t, cudaStream_t s) {
  using namespace podlozhnyuk64_detail;
  const int blocks = grid(n, t), T = threads(t);
  if (partials_bytes(blocks, kBins) > scratch_bytes) throw std::invalid_argument("podlozhnyuk64: scratch too small");
  auto* partials = static_cast<std::uint32_t*>(scratch);
  const std::size_t smem = std::size_t(T) * kBins;
  podlozhnyuk64_kernel<<<blocks, T, smem, s>>>(reinterpret_cast<const std::uint32_t*>(samples), n / 4, samples + n / 4 * 4,
                                               int(n % 4), partials);
  LP_CUDA_LAUNCH("podlozhnyuk64_kernel");
  // The first `bins` of each 64-bin partial: merge with a row stride of 64.
  merge_partials(partials, blocks, kBins, out, bins, s);
}

}  // namespace lp::histogram
