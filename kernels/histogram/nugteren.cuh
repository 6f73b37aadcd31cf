// Thesis Alg 4.2 (Nugteren et al.'s second algorithm, section 4.3.1): one warp per block, per-thread
// 16-bit bins, each thread's histogram on its own bank (Fig 4.3): data-independent, no atomics.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "common.cuh"

namespace lp::histogram {

namespace nugteren_detail {

constexpr int kThreads = 32;
constexpr int kBins = 256;
// A thread's 16-bit bins hold 65535: at most 4 * threadWork + 3 (the tail) samples per thread.
constexpr std::int64_t kMaxThreadWork = (65535 - 3) / 4;

// Fig 4.3: 16-bit bin b of thread t at halfword 2 * (t + 32 * (b / 2)) + b mod 2, i.e. the 32-bit
// word (b / 2) * 32 + t: thread t's histogram is all on bank t.
static __global__ void __launch_bounds__(kThreads) nugteren_kernel(const std::uint32_t* __restrict__ words, std::int64_t n_words,
                                                            std::int64_t thread_work, const std::uint8_t* tail, int n_tail,
                                                            std::uint32_t* __restrict__ partials) {
  __shared__ std::uint16_t hist[kBins * kThreads];
  const int t = threadIdx.x;
  for (int i = t; i < kBins * kThreads; i += kThreads) hist[i] = 0;
  __syncwarp();
  const std::uint32_t* block_words = words + std::int64_t(blockIdx.x) * kThreads * thread_work;
  const std::int64_t block_n = std::min<std::int64_t>(n_words - std::int64_t(blockIdx.x) * kThreads * thread_work,
                                                      kThreads * thread_work);
  for (std::int64_t i = 0; i < thread_work; ++i) {
    const std::int64_t at = i * kThreads + t;
    if (at >= block_n) break;  // the last blocks' share is short
    const std::uint32_t w = __ldg(block_words + at);
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const std::uint32_t b = (w >> (8 * j)) & 0xffu;
      ++hist[2 * (t + kThreads * (b / 2)) + (b % 2)];
    }
  }
  if (blockIdx.x == 0 && t < n_tail) {
    const std::uint32_t b = tail[t];
    ++hist[2 * (t + kThreads * (b / 2)) + (b % 2)];
  }
  __syncwarp();
  // Thread t sums bins t, t + 32, ... over the 32 histograms, starting at histogram t so that the
  // warp's 32 reads are on 32 banks.
  for (int b = t; b < kBins; b += kThreads) {
    std::uint32_t bin = 0;
    for (int k = 0; k < kThreads; ++k) {
      const int j = (k + t) % kThreads;
      bin += hist[2 * (j + kThreads * (b / 2)) + (b % 2)];
    }
    partials[std::int64_t(blockIdx.x) * kBins + b] = bin;
  }
}

// nBlocks = SMs x blocks per SM (the thesis: 3; default here: as many 16 KiB blocks as fit), and
// at least enough that no thread's 16-bit bins can overflow.
inline int grid(std::int64_t n, const Tuning& t) {
  const std::int64_t n_words = n / 4;
  std::int64_t blocks = std::int64_t(sm_count()) * resident_blocks(nugteren_kernel, kThreads, 0, t, 0);
  blocks = std::max(blocks, ceil_div(n_words, kThreads * kMaxThreadWork));
  return static_cast<int>(std::max<std::int64_t>(blocks, 1));
}

}  // namespace nugteren_detail

inline std::size_t nugteren_scratch_bytes(std::int64_t n, const Tuning& t) { return partials_bytes(nugteren_detail::grid(n, t), 256); }

// Alg 4.2: threadWork = ceil(words / (nBlocks x 32)) contiguous words per thread (strided by 32),
// then the per-bin sum of the partials.
inline void nugteren(const std::uint8_t* samples, std::int64_t n, std::uint32_t* out, void* scratch, std::size_t scratch_bytes,
                     const Tuning& t, cudaStream_t s) {
  using namespace nugteren_detail;
  const int blocks = grid(n, t);
  if (partials_bytes(blocks, kBins) > scratch_bytes) throw std::invalid_argument("nugteren: scratch too small");
  const std::int64_t n_words = n / 4, thread_work = std::max<std::int64_t>(1, ceil_div(n_words, std::int64_t(blocks) * kThreads));
  auto* partials = static_cast<std::uint32_t*>(scratch);
  nugteren_kernel<<<blocks, kThreads, 0, s>>>(reinterpret_cast<const std::uint32_t*>(samples), n_words, thread_work,
                                              samples + n_words * 4, int(n % 4), partials);
  LP_CUDA_LAUNCH("nugteren_kernel");
  merge_partials(partials, blocks, kBins, out, s);
}

}  // namespace lp::histogram
