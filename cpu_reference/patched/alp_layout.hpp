// An ALP-encoded float column (alp.hpp) in the layout a GPU decoder reads, and its CPU decode, the
// reference that decoder is checked against. ALP: per 1024-value chunk its exponent, factor,
// frame base and bit width (widths differ between chunks, so each chunk's packed words start at
// its own offset), the integers' offsets from the base FastLanes-packed at the chunk's width
// (bitpack.hpp), and the exceptions' original bits as the seed's patches (layout.hpp). ALP-RD: the
// right parts packed at r bits, the left parts' dictionary codes packed at their width, the
// dictionary, and the exceptions as patches. A decode is one pass per chunk: unpack, multiply back
// (or shift and or), then the chunk's patches. Plain C++.
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "../cpu_memory/multithreaded.hpp"
#include "alp.hpp"
#include "bitpack.hpp"
#include "layout.hpp"

namespace lp::cpu::patched {

template <class F>
struct AlpPacked {
  using U = typename alp::Traits<F>::Bits;
  alp::Scheme scheme = alp::Scheme::Alp;
  std::int64_t n = 0, chunks = 0;
  // ALP: per chunk.
  std::vector<std::uint8_t> e, f, w;
  std::vector<U> bases;                  // the frame's base, the integer's two's complement bits
  std::vector<std::int64_t> word_offset; // chunks + 1: chunk c's words are [word_offset[c], word_offset[c + 1])
  std::vector<U> words;
  // ALP-RD: one width each for the whole column.
  int right_bits = 0, code_bits = 0;
  Packed<U> right, codes;
  std::vector<std::uint16_t> dictionary;
  // Both: the exceptions, whole.
  PatchLayout<U> patches;

  // Bytes a decoder reads: ALP's words, per-chunk e, f, w (a byte each) and base, and word
  // offsets (8 bytes a chunk); ALP-RD's two packed arrays and the dictionary; the patches.
  double bytes() const {
    double b = patches.bytes();
    if (scheme == alp::Scheme::Alp)
      return b + double(sizeof(U)) * double(words.size() + bases.size()) + 3.0 * double(chunks) + 8.0 * double(word_offset.size());
    return b + right.bytes() + codes.bytes() + 2.0 * double(dictionary.size());
  }
};

// The offsets of n integers from their chunk's base, packed at width w (>= 1), no exception.
template <class U>
Packed<U> pack_plain(const std::vector<U>& v, int w) {
  const std::vector<std::uint8_t> none(v.size(), 0);
  return pack(v.data(), std::int64_t(v.size()), w, none.data());
}

template <class F>
AlpPacked<F> pack_alp(const alp::Encoded<F>& a) {
  using U = typename alp::Traits<F>::Bits;
  AlpPacked<F> p;
  p.scheme = a.scheme;
  p.n = a.n;
  p.chunks = lp::patched::chunks_of(a.n);
  std::vector<Exception<U>> ex;
  if (a.scheme == alp::Scheme::Alp) {
    if (std::int64_t(a.vectors.size()) != p.chunks) throw std::invalid_argument("pack_alp: one vector a chunk");
    p.word_offset.push_back(0);
    for (std::int64_t c = 0; c < p.chunks; ++c) {
      const auto& v = a.vectors[std::size_t(c)];
      p.e.push_back(std::uint8_t(v.c.e));
      p.f.push_back(std::uint8_t(v.c.f));
      p.w.push_back(std::uint8_t(v.w));
      p.bases.push_back(U(v.base));
      if (v.w > 0) {
        std::vector<U> offsets(v.ints.size());
        for (std::size_t i = 0; i < v.ints.size(); ++i) offsets[i] = U(U(v.ints[i]) - U(v.base));
        const Packed<U> one = pack_plain(offsets, v.w);  // one chunk: its base is 0, the frame's is v.base
        p.words.insert(p.words.end(), one.words.begin(), one.words.end());
      }
      p.word_offset.push_back(std::int64_t(p.words.size()));
      for (std::size_t k = 0; k < v.exception_pos.size(); ++k) ex.push_back({c * kChunk + v.exception_pos[k], v.exception_bits[k]});
    }
  } else {
    p.right_bits = a.cut.right_bits;
    p.code_bits = a.cut.code_bits;
    p.dictionary = a.cut.dictionary;
    p.right = pack_plain(a.right, std::max(1, a.cut.right_bits));
    p.codes = pack_plain(std::vector<U>(a.codes.begin(), a.codes.end()), std::max(1, a.cut.code_bits));
    for (std::size_t k = 0; k < a.rd_exception_pos.size(); ++k) ex.push_back({a.rd_exception_pos[k], a.rd_exception_bits[k]});
  }
  p.patches = build_patches(a.n, std::move(ex));
  return p;
}

// The reference decode of the layout, chunks [c0, c1) into out (the column's n values): unpack,
// multiply back (or glue the left part on), then the chunk's patches while it is in cache.
template <class F>
void decode_alp_chunks(const AlpPacked<F>& p, std::int64_t c0, std::int64_t c1, F* out) {
  using U = typename alp::Traits<F>::Bits;
  using Int = typename alp::Traits<F>::Int;
  std::vector<U> a(kChunk), b(kChunk);
  for (std::int64_t c = c0; c < c1; ++c) {
    const int valid = int(std::min<std::int64_t>(kChunk, p.n - c * kChunk));
    F* o = out + c * kChunk;
    if (p.scheme == alp::Scheme::Alp) {
      const alp::Combination comb{p.e[std::size_t(c)], p.f[std::size_t(c)]};
      const U base = p.bases[std::size_t(c)];
      if (p.w[std::size_t(c)] > 0) decode_chunk_words(p.words.data() + p.word_offset[std::size_t(c)], p.w[std::size_t(c)], base, valid, a.data());
      else std::fill(a.begin(), a.begin() + valid, base);
      for (int i = 0; i < valid; ++i) o[i] = alp::decode_value<F>(Int(a[std::size_t(i)]), comb);
    } else {
      decode_chunk(p.right, c, a.data());
      decode_chunk(p.codes, c, b.data());
      for (int i = 0; i < valid; ++i)
        o[i] = alp::from_bits<F>(U(U(p.dictionary[b[std::size_t(i)]]) << p.right_bits) | a[std::size_t(i)]);
    }
    const auto [first, last] = chunk_patches(p.patches, c);
    for (std::uint32_t k = first; k < last; ++k) o[p.patches.indices[k]] = alp::from_bits<F>(p.patches.values[k]);
  }
}

template <class F>
std::vector<F> decode_alp(const AlpPacked<F>& p) {
  std::vector<F> out(std::size_t(p.n));
  decode_alp_chunks(p, 0, p.chunks, out.data());
  return out;
}

// On every core (threads <= 0), chunks split evenly: the float column's `cpu_apply_mt`.
template <class F>
void decode_alp_mt(const AlpPacked<F>& p, F* out, int threads = 0) {
  threads = lp::cpu::resolve_threads(threads);
  lp::cpu::run_threads(threads, [&](int t) { decode_alp_chunks(p, p.chunks * t / threads, p.chunks * (t + 1) / threads, out); });
}

}  // namespace lp::cpu::patched
