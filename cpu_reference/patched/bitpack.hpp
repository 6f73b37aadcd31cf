// FastLanes-style frame-of-reference bit packing (Afroozeh and Boncz, VLDB 2023: 1024-element
// vectors, lane-interleaved "transposed" words; kernels/patched/fastlanes.hpp has the layout): each
// chunk stores its base (the minimum of its regular values) and every value as value - base in w
// bits. Exceptions (values the caller flags, which the patch layout carries instead) are stored as
// the filler 0, so they decode to the base until patched. Plain C++.
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "../cpu_memory/multithreaded.hpp"
#include "kernels/patched/fastlanes.hpp"

namespace lp::cpu::patched {

using lp::patched::kBits;
using lp::patched::kChunk;
using lp::patched::kLanes;

template <class T>
struct Packed {
  std::int64_t n = 0;
  int w = 0;                  // bit width, 1..W
  std::int64_t chunks = 0;
  std::vector<T> words;       // chunks * w * lanes; the last chunk padded with zeros
  std::vector<T> bases;       // one per chunk
  double bytes() const { return double(sizeof(T)) * double(words.size() + bases.size()); }
};

template <class T>
void check_width(int w) {
  if (w < 1 || w > kBits<T>)
    throw std::invalid_argument("bit width " + std::to_string(w) + " outside 1.." + std::to_string(kBits<T>));
}

// Packs values[0, n) at width w. exception[i] != 0 marks the positions the patches overwrite: they
// are neither part of the base nor packed (filler 0). Every other value must lie in
// [base, base + 2^w) of its chunk, else std::invalid_argument. Chunks are independent: `threads`
// (0: every core) split them, with the same result for any count.
template <class T>
Packed<T> pack(const T* values, std::int64_t n, int w, const std::uint8_t* exception, int threads = 1) {
  check_width<T>(w);
  constexpr int L = kLanes<T>;
  Packed<T> p;
  p.n = n;
  p.w = w;
  p.chunks = lp::patched::chunks_of(n);
  p.words.assign(std::size_t(p.chunks * lp::patched::words_per_chunk<T>(w)), T(0));
  p.bases.assign(std::size_t(p.chunks), T(0));
  const auto mask = lp::patched::low_mask<T>(w);
  auto pack_chunk = [&](std::int64_t c) {
    const std::int64_t lo = c * kChunk, hi = std::min(n, lo + kChunk);
    bool any = false;
    T base = 0;
    for (std::int64_t i = lo; i < hi; ++i)
      if (!exception[i] && (!any || values[i] < base)) base = values[i], any = true;
    p.bases[std::size_t(c)] = base;
    T* cw = p.words.data() + c * lp::patched::words_per_chunk<T>(w);
    for (std::int64_t i = lo; i < hi; ++i) {
      if (exception[i]) continue;
      const T delta = T(values[i] - base);
      if (lp::patched::Wide<T>(delta) > mask)
        throw std::invalid_argument("pack: value at " + std::to_string(i) + " does not fit " + std::to_string(w) + " bits above its chunk's base");
      const int q = int(i - lo), lane = lp::patched::lane_of<T>(q), row = lp::patched::row_of<T>(q);
      const auto at = lp::patched::bit_at<T>(row, w);
      cw[at.word * L + lane] |= T(lp::patched::Wide<T>(delta) << at.shift);
      if (at.shift + w > kBits<T>) cw[(at.word + 1) * L + lane] |= T(lp::patched::Wide<T>(delta) >> (kBits<T> - at.shift));
    }
  };
  // A value that does not fit is reported from the thread that found it, after all have joined.
  threads = lp::cpu::resolve_threads(threads);
  std::vector<std::string> errors(static_cast<std::size_t>(threads));
  lp::cpu::run_threads(threads, [&](int t) {
    try {
      for (std::int64_t c = p.chunks * t / threads, e = p.chunks * (t + 1) / threads; c < e; ++c) pack_chunk(c);
    } catch (const std::invalid_argument& x) {
      errors[std::size_t(t)] = x.what();
    }
  });
  for (const auto& e : errors)
    if (!e.empty()) throw std::invalid_argument(e);
  return p;
}

// Decodes chunk c into out[0, min(1024, n - c * 1024)) (unpatched: exceptions come out as the
// base). Row by row, all lanes at one bit offset: the inner loop runs over consecutive words and
// consecutive outputs, which compilers vectorise (the reason for the transposed layout).
// The same for one chunk's words cw at width w (1..W) and base, its first `valid` values; a layout
// whose chunks have their own widths (alp_layout.hpp) calls it per chunk.
template <class T>
void decode_chunk_words(const T* cw, int w, T base, int valid, T* out) {
  constexpr int L = kLanes<T>;
  for (int r = 0; r < kBits<T> && r * L < valid; ++r) {
    const auto at = lp::patched::bit_at<T>(r, w);
    const T* lo = cw + at.word * L;
    const bool cross = at.shift + w > kBits<T>;
    const T* hi = cross ? lo + L : lo;  // hi is read only when the row crosses into the next word
    const int lanes = std::min(L, valid - r * L);
    for (int l = 0; l < lanes; ++l) out[r * L + l] = T(base + lp::patched::extract_bits<T>(lo[l], hi[l], at.shift, w));
  }
}

template <class T>
void decode_chunk(const Packed<T>& p, std::int64_t c, T* out) {
  decode_chunk_words(p.words.data() + c * lp::patched::words_per_chunk<T>(p.w), p.w, p.bases[std::size_t(c)],
                     int(std::min<std::int64_t>(kChunk, p.n - c * kChunk)), out);
}

template <class T>
void decode(const Packed<T>& p, T* out) {
  for (std::int64_t c = 0; c < p.chunks; ++c) decode_chunk(p, c, out + c * kChunk);
}

}  // namespace lp::cpu::patched
