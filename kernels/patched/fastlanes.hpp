// The FastLanes layout the patched study decodes (Afroozeh and Boncz, "The FastLanes Compression
// Layout", and the lanes Vortex's `patched` module assigns positions to): 1024-element chunks seen
// as W rows by 1024 / W lanes, W the value type's width in bits. In-chunk position p is lane
// p % lanes, row p / lanes. A lane's rows are bit-packed w bits each, one after the other, into w
// words of type T; word j of lane l is stored at j * lanes + l, so the lanes' j-th words are
// consecutive and a warp reads them in one transaction. Host and device share these routines, so
// the CPU tests cover the arithmetic the kernels run.
#pragma once
#include <cstdint>
#include <type_traits>

#include "../common/hd.hpp"

namespace lp::patched {

constexpr int kChunk = 1024;  // elements per chunk (FastLanes' vector, Vortex's patch chunk)

template <class T>
constexpr int kBits = 8 * int(sizeof(T));  // W: value width in bits = rows per chunk
template <class T>
constexpr int kLanes = kChunk / kBits<T>;   // 1024 bits / W: u8 128, u16 64, u32 32, u64 16

// Lanes of a value of `bytes` bytes (the same as kLanes, for code that has the width at run time).
constexpr int lanes_for_bytes(int bytes) { return kChunk / (8 * bytes); }

// Packed words of one chunk at bit width w: every lane holds W values of w bits = w words.
template <class T>
constexpr std::int64_t words_per_chunk(int w) { return std::int64_t(w) * kLanes<T>; }

constexpr std::int64_t chunks_of(std::int64_t n) { return (n + kChunk - 1) / kChunk; }

// Where row r of a lane starts in the lane's bit stream: word j, bit s.
struct BitAt {
  int word;
  int shift;
};
template <class T>
LP_HD BitAt bit_at(int row, int w) {
  const int b = row * w;
  return {b / kBits<T>, b % kBits<T>};
}

// Arithmetic width for T's shifts: u8/u16 values are shifted in 32 bits so no shift count reaches
// the operand's width (undefined in C++ and on the GPU alike).
template <class T>
using Wide = std::conditional_t<sizeof(T) == 8, std::uint64_t, std::uint32_t>;

template <class T>
LP_HD Wide<T> low_mask(int w) {
  return w >= 8 * int(sizeof(Wide<T>)) ? ~Wide<T>(0) : (Wide<T>(1) << w) - 1;
}

// The w-bit value at bit `shift` of `lo`, continued in `hi` where it crosses the word boundary
// (hi is read only then; the caller may pass anything otherwise).
template <class T>
LP_HD T extract_bits(T lo, T hi, int shift, int w) {
  Wide<T> v = Wide<T>(lo) >> shift;
  if (shift + w > kBits<T>) v |= Wide<T>(hi) << (kBits<T> - shift);
  return T(v & low_mask<T>(w));
}

// Row r of lane `lane` of a chunk whose packed words start at `chunk_words` (random access).
template <class T>
LP_HD T unpack_one(const T* chunk_words, int lane, int row, int w) {
  const BitAt at = bit_at<T>(row, w);
  const T lo = chunk_words[at.word * kLanes<T> + lane];
  const T hi = at.shift + w > kBits<T> ? chunk_words[(at.word + 1) * kLanes<T> + lane] : T(0);
  return extract_bits<T>(lo, hi, at.shift, w);
}

// One row of four adjacent u8 lanes at once (SWAR: four bytes in a 32-bit word): byte k of the
// result is (base + the w-bit value at bit `shift` of lo's byte k, continued in hi's byte k) mod
// 256, what extract_bits and the base give lane by lane. Every lane of a row shares its shift, so
// the shifts and masks act on the four bytes together, and the base is added with the bytes' carries
// kept out of their neighbours. About 7 operations for four values (10 where they cross a byte)
// instead of about 8 a value: the u8 decode was bound by the SMs' issue, not by DRAM
// (results/h200/patched/profiles/README.md). base4: the base in all four bytes.
LP_HD std::uint32_t unpack4_u8(std::uint32_t lo, std::uint32_t hi, int shift, int w, std::uint32_t base4) {
  constexpr std::uint32_t kOnes = 0x01010101u, kLow7 = 0x7f7f7f7fu, kTop = 0x80808080u;
  const std::uint32_t mask = (1u << w) - 1u, keep = 0xffu >> shift;  // keep: lo's bits that stay in their byte
  std::uint32_t v = (lo >> shift) & ((keep & mask) * kOnes);
  if (shift + w > 8) v |= (hi << (8 - shift)) & ((mask & ~keep) * kOnes);
  return ((v & kLow7) + (base4 & kLow7)) ^ ((v ^ base4) & kTop);
}

// In-chunk position <-> (lane, row).
template <class T>
LP_HD int lane_of(int p) { return p % kLanes<T>; }
template <class T>
LP_HD int row_of(int p) { return p / kLanes<T>; }

}  // namespace lp::patched
