// Thesis Alg 4.3 (Brown and Snoeyink's TRISH, section 4.3.1): per-thread 8-bit counters in shared
// memory, flushed to per-thread register buckets every 63 words with paired 16-bit adds, batched loads.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "common.cuh"

namespace lp::histogram {

namespace trish_detail {

// 64 histograms of 256 8-bit counters, four counters to a word: word (w, h) = bins 4w..4w+3 of
// histogram h lives at w * 64 + h, so histogram h is all on bank h mod 32 and the 32 lanes of a
// warp (32 consecutive h) never conflict, whatever the data (Fig 4.3's idea with 8-bit bins).
constexpr int kColumns = 64;
constexpr int kWords = 64;  // 256 bins / 4
constexpr int kBins = 256;
// Words a thread loads before binning them: the loads are in flight together (Alg 4.3's batching).
constexpr int kBatch = 4;

// Words one thread may bin between flushes: a counter may reach 255, a word adds up to 4 to one
// counter, and `factor` threads share each histogram (BankTRISH), so 63 / factor (63 for TRISH).
__host__ __device__ inline int words_per_flush(int factor) { return 63 / factor; }

// The flush (Alg 4.3): thread t owns the four bins of word w = t mod 64 and sums them over its
// share of the 64 histograms (all of them for TRISH; every factor-th for BankTRISH), two counters
// per 32-bit add, resetting them to 0. Histogram h = (w + j) mod 64: at each step the lanes of a
// warp read 32 consecutive histograms, i.e. 32 different banks.
__device__ __forceinline__ void flush(std::uint32_t* sh, int factor, std::uint32_t (&regs)[4]) {
  const int w = threadIdx.x % kColumns, g = threadIdx.x / kColumns;
  PairedSums acc;
  for (int j = g; j < kColumns; j += factor) {
    std::uint32_t* p = sh + w * kColumns + ((w + j) % kColumns);
    add_paired(acc, *p);
    *p = 0;
  }
#pragma unroll
  for (int k = 0; k < 4; ++k) regs[k] += paired_bin(acc, k);
}

// Alg 4.3's main loop, shared by TRISH and BankTRISH (which differ only in how a fetched word is
// binned: `bin_word(sh, column, word)`). Rounds of blockDim.x * per_flush words go to blocks in
// turn; in a round thread t takes words i * blockDim.x + t (coalesced) for i < per_flush, then the
// block flushes. The n % 4 tail bytes go to block 0. partials[blockIdx.x * 256 + b] gets the block's
// histogram.
template <class BinWord>
__device__ __forceinline__ void run(const std::uint32_t* __restrict__ words, std::int64_t n_words, const std::uint8_t* tail,
                                    int n_tail, int factor, std::uint32_t* __restrict__ partials, BinWord bin_word) {
  __shared__ std::uint32_t sh[kWords * kColumns];
  for (int i = threadIdx.x; i < kWords * kColumns; i += blockDim.x) sh[i] = 0;
  __syncthreads();
  const int per_flush = words_per_flush(factor), column = threadIdx.x % kColumns;
  const std::int64_t round_words = std::int64_t(blockDim.x) * per_flush;
  std::uint32_t regs[4] = {0, 0, 0, 0};
  for (std::int64_t base = blockIdx.x * round_words; base < n_words; base += gridDim.x * round_words) {
    for (int i0 = 0; i0 < per_flush; i0 += kBatch) {
      std::uint32_t w[kBatch];
      bool ok[kBatch];
#pragma unroll
      for (int k = 0; k < kBatch; ++k) {
        const std::int64_t at = base + std::int64_t(i0 + k) * blockDim.x + threadIdx.x;
        ok[k] = i0 + k < per_flush && at < n_words;
        w[k] = ok[k] ? __ldg(words + at) : 0u;
      }
#pragma unroll
      for (int k = 0; k < kBatch; ++k)
        if (ok[k]) bin_word(sh, column, w[k]);
    }
    __syncthreads();  // every update of the round is in before any histogram is read
    flush(sh, factor, regs);
    __syncthreads();  // the zeroed counters are in before the next round's updates
  }
  // The block's 256 bins: the register buckets of the threads sharing a word are added in shared
  // memory. Every flush zeroed all counters (and the last __syncthreads made that visible), so the
  // first 256 words are free and already 0.
  const int w = threadIdx.x % kColumns;
#pragma unroll
  for (int k = 0; k < 4; ++k)
    if (regs[k]) atomicAdd(sh + 4 * w + k, regs[k]);
  if (blockIdx.x == 0 && threadIdx.x < n_tail) atomicAdd(sh + tail[threadIdx.x], 1u);
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) partials[std::int64_t(blockIdx.x) * kBins + b] = sh[b];
}

// TRISH bins byte by byte into the thread's own histogram: no atomics (no other thread writes it),
// one add of 1 << 8 * (b mod 4) to the word holding bin b.
static __global__ void __launch_bounds__(64) trish_kernel(const std::uint32_t* __restrict__ words, std::int64_t n_words,
                                                   const std::uint8_t* tail, int n_tail, std::uint32_t* __restrict__ partials) {
  run(words, n_words, tail, n_tail, 1, partials, [](std::uint32_t* sh, int column, std::uint32_t word) {
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const std::uint32_t b = (word >> (8 * j)) & 0xffu;
      sh[(b >> 2) * kColumns + column] += 1u << (8 * (b & 3u));
    }
  });
}

// Blocks: the tuning's per SM, else as many 16 KiB blocks as fit (the thesis's 3 per SM were what
// 48 KiB allowed on its GPU).
template <class Kernel>
int trish_grid(Kernel kernel, int threads, const Tuning& t) {
  return sm_count() * resident_blocks(kernel, threads, 0, t, 0);
}

}  // namespace trish_detail

inline std::string trish_unsupported(bool u8, std::uint32_t bins) {
  if (!u8) return "byte samples only (four samples per fetched word)";
  return bins == 256 ? "" : "256 bins only (bins = " + std::to_string(bins) + ")";
}

inline std::size_t trish_scratch_bytes(const Tuning& t) {
  return partials_bytes(trish_detail::trish_grid(trish_detail::trish_kernel, 64, t), 256);
}

// Alg 4.3 with nThreads = 64, then the partials' per-bin sum (its second kernel).
inline void trish(const std::uint8_t* samples, std::int64_t n, std::uint32_t* out, void* scratch, std::size_t scratch_bytes,
                  const Tuning& t, cudaStream_t s) {
  const int grid = trish_detail::trish_grid(trish_detail::trish_kernel, 64, t);
  if (partials_bytes(grid, 256) > scratch_bytes) throw std::invalid_argument("trish: scratch too small");
  auto* partials = static_cast<std::uint32_t*>(scratch);
  trish_detail::trish_kernel<<<grid, 64, 0, s>>>(reinterpret_cast<const std::uint32_t*>(samples), n / 4, samples + n / 4 * 4,
                                                 int(n % 4), partials);
  LP_CUDA_LAUNCH("trish_kernel");
  merge_partials(partials, grid, 256, out, s);
}

}  // namespace lp::histogram
