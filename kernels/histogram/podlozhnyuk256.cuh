// Thesis 4.3.1, Podlozhnyuk's 256-bin histogram: one 256-bin sub-histogram per warp in shared memory,
// updated with his software tagging (lane id in the top 5 bits) or, as Nugteren et al. suggest, shared atomics.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "common.cuh"

namespace lp::histogram {

namespace podlozhnyuk256_detail {

constexpr int kBins = 256;
constexpr int kDefaultThreads = 192;  // Podlozhnyuk's 6 warps per block
constexpr std::uint32_t kCountMask = (1u << 27) - 1;  // the low 27 bits count; the top 5 hold the tag

inline int threads(const Tuning& t) { return t.threads > 0 ? t.threads : kDefaultThreads; }

// Software tagging: every lane with a sample writes (count + 1) | (lane << 27) to its bin; of
// several lanes writing one bin only one write survives, and a lane that reads back another lane's
// tag tries again. The original relied on the lanes of a warp executing in lockstep; since Volta
// they need not, so __syncwarp separates the reads, the writes and the read-backs of each round
// (without it a lane could read a bin after another lane's write and count an input twice). The
// loop is warp-uniform: every lane runs every round, done or not.
__device__ __forceinline__ void tagged_add(volatile std::uint32_t* hist, std::uint32_t bin, bool valid, std::uint32_t tag) {
  bool done = !valid;
  while (__any_sync(0xffffffffu, !done)) {
    std::uint32_t v = 0;
    if (!done) v = ((hist[bin] & kCountMask) + 1) | tag;
    __syncwarp();
    if (!done) hist[bin] = v;
    __syncwarp();
    if (!done) done = hist[bin] == v;
  }
}

// Mode: true = software tagging (Podlozhnyuk), false = shared atomics. The grid-stride loop is
// warp-uniform (a warp takes 32 consecutive words per step), as tagging needs all lanes.
template <bool Tagging>
__global__ void __launch_bounds__(1024) podlozhnyuk256_kernel(const std::uint32_t* __restrict__ words, std::int64_t n_words,
                                                              const std::uint8_t* tail, int n_tail,
                                                              std::uint32_t* __restrict__ partials) {
  extern __shared__ __align__(16) std::uint32_t warp_hists[];
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5, warps = blockDim.x >> 5;
  for (int i = threadIdx.x; i < warps * kBins; i += blockDim.x) warp_hists[i] = 0;
  __syncthreads();
  std::uint32_t* hist = warp_hists + warp * kBins;
  const std::uint32_t tag = std::uint32_t(lane) << 27;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t base = std::int64_t(blockIdx.x) * blockDim.x + warp * 32; base < n_words; base += stride) {
    const std::int64_t p = base + lane;
    const bool ok = p < n_words;
    const std::uint32_t w = ok ? __ldg(words + p) : 0u;
#pragma unroll
    for (int j = 0; j < 4; ++j) {
      const std::uint32_t b = (w >> (8 * j)) & 0xffu;
      if constexpr (Tagging) tagged_add(hist, b, ok, tag);
      else if (ok) atomicAdd(hist + b, 1u);
    }
  }
  // The n % 4 tail bytes: warp 0 of block 0, one lane per byte.
  if (blockIdx.x == 0 && warp == 0) {
    const bool ok = lane < n_tail;
    const std::uint32_t b = ok ? tail[lane] : 0u;
    if constexpr (Tagging) tagged_add(hist, b, ok, tag);
    else if (ok) atomicAdd(hist + b, 1u);
  }
  __syncthreads();
  for (int b = threadIdx.x; b < kBins; b += blockDim.x) {
    std::uint32_t sum = 0;
    for (int w = 0; w < warps; ++w) sum += warp_hists[w * kBins + b] & kCountMask;
    partials[std::int64_t(blockIdx.x) * kBins + b] = sum;
  }
}

// Blocks: as many as fit on every SM (Podlozhnyuk used a fixed 240 partial histograms), and enough
// that no warp counts 2^27 samples in one bin (27-bit counters).
template <bool Tagging>
int grid(std::int64_t n, const Tuning& t) {
  const int T = threads(t);
  const std::size_t smem = std::size_t(T / 32) * kBins * 4;
  std::int64_t blocks = std::int64_t(sm_count()) * resident_blocks(podlozhnyuk256_kernel<Tagging>, T, smem, t, 0);
  blocks = std::max(blocks, ceil_div(n, std::int64_t(T / 32) * kCountMask));
  return static_cast<int>(blocks);
}

}  // namespace podlozhnyuk256_detail

inline std::string podlozhnyuk256_unsupported(bool u8, std::uint32_t bins, const Tuning& t) {
  if (!u8) return "byte samples only (four samples per fetched word)";
  if (bins != 256) return "256 bins only (bins = " + std::to_string(bins) + ")";
  const int T = podlozhnyuk256_detail::threads(t);
  if (T % 32 || T > 1024) return "threads = " + std::to_string(T) + ": whole warps, at most 1024";
  return "";
}

template <bool Tagging>
std::size_t podlozhnyuk256_scratch_bytes(std::int64_t n, const Tuning& t) {
  return partials_bytes(podlozhnyuk256_detail::grid<Tagging>(n, t), 256);
}

template <bool Tagging>
void podlozhnyuk256(const std::uint8_t* samples, std::int64_t n, std::uint32_t* out, void* scratch, std::size_t scratch_bytes,
                    const Tuning& t, cudaStream_t s) {
  using namespace podlozhnyuk256_detail;
  const int blocks = grid<Tagging>(n, t), T = threads(t);
  if (partials_bytes(blocks, kBins) > scratch_bytes) throw std::invalid_argument("podlozhnyuk256: scratch too small");
  auto* partials = static_cast<std::uint32_t*>(scratch);
  const std::size_t smem = std::size_t(T / 32) * kBins * 4;
  podlozhnyuk256_kernel<Tagging><<<blocks, T, smem, s>>>(reinterpret_cast<const std::uint32_t*>(samples), n / 4,
                                                         samples + n / 4 * 4, int(n % 4), partials);
  LP_CUDA_LAUNCH("podlozhnyuk256_kernel");
  merge_partials(partials, blocks, kBins, out, s);
}

}  // namespace lp::histogram
