// The CPU apply of a PatchedArray (Vortex's patched arrays, docs/references.md): decode a chunk,
// then overwrite it with its lanes' patches, chunk by chunk so the chunk is still in cache when it
// is patched; on one thread, and on all threads (chunks split evenly). The `cpu_apply` and
// `cpu_apply_mt` baselines of the patched study. Plain C++.
#pragma once
#include <cstdint>
#include <vector>

#include "../cpu_memory/multithreaded.hpp"
#include "bitpack.hpp"
#include "layout.hpp"

namespace lp::cpu::patched {

// Chunks [c0, c1): decode, then apply every lane's patches.
template <class T>
void apply_chunks(const Packed<T>& p, const PatchLayout<T>& patches, std::int64_t c0, std::int64_t c1, T* out) {
  for (std::int64_t c = c0; c < c1; ++c) {
    T* o = out + c * kChunk;
    decode_chunk(p, c, o);
    const auto [first, last] = chunk_patches(patches, c);
    for (std::uint32_t k = first; k < last; ++k) o[patches.indices[k]] = patches.values[k];
  }
}

template <class T>
void apply(const Packed<T>& p, const PatchLayout<T>& patches, T* out) {
  apply_chunks(p, patches, 0, p.chunks, out);
}

// threads <= 0: every core.
template <class T>
void apply_mt(const Packed<T>& p, const PatchLayout<T>& patches, T* out, int threads = 0) {
  threads = lp::cpu::resolve_threads(threads);
  lp::cpu::run_threads(threads, [&](int t) { apply_chunks(p, patches, p.chunks * t / threads, p.chunks * (t + 1) / threads, out); });
}

// The oracle: every value read bit by bit from the definition of the layout (lane p % lanes, row
// p / lanes, bit row * w of the lane's stream, word j of lane l at j * lanes + l), no shared
// routine; then the plain (position, value) list applied in order.
template <class T>
std::vector<T> brute_force(const Packed<T>& p, const std::vector<Exception<T>>& ex) {
  constexpr int W = kBits<T>, L = kLanes<T>;
  std::vector<T> out(std::size_t(p.n));
  for (std::int64_t i = 0; i < p.n; ++i) {
    const std::int64_t c = i / 1024;
    const int q = int(i % 1024), lane = q % L, row = q / L;
    std::uint64_t v = 0;
    for (int b = 0; b < p.w; ++b) {
      const std::int64_t bit = std::int64_t(row) * p.w + b;
      const T word = p.words[std::size_t(c * std::int64_t(p.w) * L + (bit / W) * L + lane)];
      v |= std::uint64_t((word >> (bit % W)) & 1u) << b;
    }
    out[std::size_t(i)] = T(p.bases[std::size_t(c)] + T(v));
  }
  for (const auto& e : ex) out[std::size_t(e.pos)] = e.value;
  return out;
}

}  // namespace lp::cpu::patched
