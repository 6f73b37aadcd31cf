// Bundling of the updates of one fetched word (thesis 4.5.2, BankTRISH): the four samples of a word
// are compared before any shared-memory update, and samples that hit the same counter word (the same
// bin, or, with 8-bit counters packed four to a word, bins of the same word) become one update.
// Host and device share it, so the CPU tests cover what the kernels run.
#pragma once
#include <cstdint>

#include "../common/hd.hpp"

namespace lp::histogram {

// Up to four (counter word, increment) updates; live[k] is false for those merged into an earlier one.
struct Bundle {
  std::uint32_t index[4];
  std::uint32_t inc[4];
  bool live[4];
};

// bin[k] are the four samples' bins. Counters are `counter_bits` wide (8: four bins per 32-bit word,
// bin b in byte b & 3 of word b >> 2; 32: one bin per word), so an update adds inc to word index.
template <int CounterBits>
LP_HD Bundle bundle4(const std::uint32_t (&bin)[4]) {
  static_assert(CounterBits == 8 || CounterBits == 16 || CounterBits == 32, "counters of 8, 16 or 32 bits");
  constexpr std::uint32_t per_word = 32 / CounterBits;
  Bundle u;
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int k = 0; k < 4; ++k) {
    u.index[k] = bin[k] / per_word;
    u.inc[k] = 1u << (CounterBits * (bin[k] % per_word));
    u.live[k] = true;
  }
  // Merge each later update into the first earlier live one on the same word: six compares, no
  // shared-memory traffic, and a word of four equal bytes (degenerate data, flat image regions)
  // becomes one update of 4.
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
  for (int j = 1; j < 4; ++j) {
#if defined(__CUDA_ARCH__)
#pragma unroll
#endif
    for (int i = 0; i < j; ++i)
      if (u.live[i] && u.live[j] && u.index[i] == u.index[j]) {
        u.inc[i] += u.inc[j];
        u.live[j] = false;
      }
  }
  return u;
}

// The four bytes of a little-endian word, as bins.
LP_HD void bytes_of(std::uint32_t w, std::uint32_t (&bin)[4]) {
  bin[0] = w & 0xffu, bin[1] = (w >> 8) & 0xffu, bin[2] = (w >> 16) & 0xffu, bin[3] = w >> 24;
}

// TRISH's paired 16-bit adds (Alg 4.3's flush): a word of four 8-bit counters is split into two
// words of two 16-bit lanes each (bytes 0 and 2, bytes 1 and 3), so one 32-bit add accumulates two
// counters. 64 histograms x 255 < 2^16: the lanes never carry into each other within a flush.
struct PairedSums {
  std::uint32_t even = 0;  // bins 0 and 2 of the word, in the low and high 16 bits
  std::uint32_t odd = 0;   // bins 1 and 3
};
LP_HD void add_paired(PairedSums& s, std::uint32_t counters) {
  s.even += counters & 0x00ff00ffu;
  s.odd += (counters >> 8) & 0x00ff00ffu;
}
// Bin k (0..3) of the word from the paired sums.
LP_HD std::uint32_t paired_bin(const PairedSums& s, int k) {
  const std::uint32_t w = (k & 1) ? s.odd : s.even;
  return (k & 2) ? (w >> 16) : (w & 0xffffu);
}

}  // namespace lp::histogram
