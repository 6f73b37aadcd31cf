// Thesis 4.5.2 (BankTRISH, Fig 4.23): TRISH with factor x 64 threads sharing its 64 histograms
// (threadId mod 64 picks the histogram), atomic updates, and bundling of equal bytes within a word.
#pragma once
#include "trish.cuh"

namespace lp::histogram {

namespace banktrish_detail {

using trish_detail::kColumns;

// Threads t, t + 64, ... share histogram t mod 64, so updates are atomic; a word's four bytes are
// bundled first (bundle4), so equal bytes and bins of the same counter word cost one atomic.
static __global__ void __launch_bounds__(512) banktrish_kernel(const std::uint32_t* __restrict__ words, std::int64_t n_words,
                                                        const std::uint8_t* tail, int n_tail, int factor,
                                                        std::uint32_t* __restrict__ partials) {
  trish_detail::run(words, n_words, tail, n_tail, factor, partials, [](std::uint32_t* sh, int column, std::uint32_t word) {
    std::uint32_t bin[4];
    bytes_of(word, bin);
    const Bundle u = bundle4<8>(bin);
#pragma unroll
    for (int k = 0; k < 4; ++k)
      if (u.live[k]) atomicAdd(sh + u.index[k] * kColumns + column, u.inc[k]);
  });
}

inline int factor_of(const Tuning& t) { return t.factor > 0 ? t.factor : 8; }

inline int grid(const Tuning& t) {
  return trish_detail::trish_grid(banktrish_kernel, 64 * factor_of(t), t);
}

}  // namespace banktrish_detail

inline std::string banktrish_unsupported(bool u8, std::uint32_t bins, const Tuning& t) {
  std::string why = trish_unsupported(u8, bins);
  if (!why.empty()) return why;
  const int f = banktrish_detail::factor_of(t);
  return f >= 1 && f <= 8 ? "" : "factor = " + std::to_string(f) + " outside 1..8 (factor x 64 threads, at most 512)";
}

inline std::size_t banktrish_scratch_bytes(const Tuning& t) { return partials_bytes(banktrish_detail::grid(t), 256); }

// BankTRISH with factor x 64 threads per block (the thesis's best: 8), then the partials' sum.
inline void banktrish(const std::uint8_t* samples, std::int64_t n, std::uint32_t* out, void* scratch, std::size_t scratch_bytes,
                      const Tuning& t, cudaStream_t s) {
  const int f = banktrish_detail::factor_of(t), grid = banktrish_detail::grid(t);
  if (partials_bytes(grid, 256) > scratch_bytes) throw std::invalid_argument("banktrish: scratch too small");
  auto* partials = static_cast<std::uint32_t*>(scratch);
  banktrish_detail::banktrish_kernel<<<grid, 64 * f, 0, s>>>(reinterpret_cast<const std::uint32_t*>(samples), n / 4,
                                                             samples + n / 4 * 4, int(n % 4), f, partials);
  LP_CUDA_LAUNCH("banktrish_kernel");
  merge_partials(partials, grid, 256, out, s);
}

}  // namespace lp::histogram
