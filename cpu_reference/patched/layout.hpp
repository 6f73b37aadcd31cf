// The patch layout of Vortex's PatchedArray (Vortex's patched arrays, docs/references.md, after
// G-ALP, Hepkema et al., DaMoN 2025) and its builder: exceptions are grouped by 1024-element chunk,
// then by FastLanes lane (kernels/patched/fastlanes.hpp), then by position, so that the thread that
// owns a lane of a chunk finds its patches at lane_offsets[chunk * lanes + lane] in constant time.
// Plain C++.
#pragma once
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "kernels/patched/fastlanes.hpp"

namespace lp::cpu::patched {

using lp::patched::kChunk;
using lp::patched::kLanes;

// One exception of the plain form: the value at global position `pos`.
template <class T>
struct Exception {
  std::int64_t pos;
  T value;
};

// The seed's layout: lane_offsets[chunk * lanes + lane] .. [+1] delimit the lane's patches in
// indices (in-chunk positions, u16) and values, which are aligned.
template <class T>
struct PatchLayout {
  std::int64_t n = 0;
  std::int64_t chunks = 0;
  int lanes = kLanes<T>;
  std::vector<std::uint32_t> lane_offsets;  // chunks * lanes + 1 prefix offsets
  std::vector<std::uint16_t> indices;
  std::vector<T> values;

  std::int64_t count() const { return std::int64_t(values.size()); }
  // Bytes of the layout a decoder reads (lane_offsets, indices, values).
  double bytes() const {
    return 4.0 * double(lane_offsets.size()) + 2.0 * double(indices.size()) + double(sizeof(T)) * double(values.size());
  }
};

// Builds the layout of an array of n elements from its exceptions (distinct positions in [0, n), in
// any order). A counting sort by (chunk, lane) after a sort by position leaves each lane's patches
// in position order (= row order), which the fused decoder's one-patch-at-a-time cursor relies on.
template <class T>
PatchLayout<T> build_patches(std::int64_t n, std::vector<Exception<T>> ex) {
  if (n < 0) throw std::invalid_argument("build_patches: n < 0");
  const std::int64_t chunks = lp::patched::chunks_of(n);
  const std::int64_t slots = chunks * kLanes<T>;
  if (ex.size() > std::size_t(UINT32_MAX)) throw std::invalid_argument("build_patches: more patches than u32 lane offsets can address");
  const auto by_pos = [](const Exception<T>& a, const Exception<T>& b) { return a.pos < b.pos; };
  if (!std::is_sorted(ex.begin(), ex.end(), by_pos)) std::sort(ex.begin(), ex.end(), by_pos);
  for (std::size_t i = 0; i < ex.size(); ++i) {
    if (ex[i].pos < 0 || ex[i].pos >= n)
      throw std::invalid_argument("build_patches: position " + std::to_string(ex[i].pos) + " outside [0, " + std::to_string(n) + ")");
    if (i && ex[i].pos == ex[i - 1].pos) throw std::invalid_argument("build_patches: position " + std::to_string(ex[i].pos) + " patched twice");
  }
  auto slot = [](std::int64_t pos) {
    return (pos / kChunk) * kLanes<T> + lp::patched::lane_of<T>(int(pos % kChunk));
  };
  PatchLayout<T> out;
  out.n = n;
  out.chunks = chunks;
  out.lane_offsets.assign(std::size_t(slots) + 1, 0);
  for (const auto& e : ex) ++out.lane_offsets[std::size_t(slot(e.pos)) + 1];
  for (std::int64_t s = 0; s < slots; ++s) out.lane_offsets[std::size_t(s) + 1] += out.lane_offsets[std::size_t(s)];
  out.indices.resize(ex.size());
  out.values.resize(ex.size());
  std::vector<std::uint32_t> at(out.lane_offsets.begin(), out.lane_offsets.end() - 1);
  for (const auto& e : ex) {  // stable: position order within a lane
    const std::uint32_t k = at[std::size_t(slot(e.pos))]++;
    out.indices[k] = std::uint16_t(e.pos % kChunk);
    out.values[k] = e.value;
  }
  return out;
}

// The patches of chunk c: [first, last) in indices and values.
template <class T>
std::pair<std::uint32_t, std::uint32_t> chunk_patches(const PatchLayout<T>& p, std::int64_t c) {
  return {p.lane_offsets[std::size_t(c * p.lanes)], p.lane_offsets[std::size_t((c + 1) * p.lanes)]};
}

// The plain form back (positions ascending): what decode-then-scatter consumes.
template <class T>
std::vector<Exception<T>> to_exceptions(const PatchLayout<T>& p) {
  std::vector<Exception<T>> ex;
  ex.reserve(p.values.size());
  for (std::int64_t s = 0; s + 1 < std::int64_t(p.lane_offsets.size()); ++s)
    for (std::uint32_t k = p.lane_offsets[std::size_t(s)]; k < p.lane_offsets[std::size_t(s) + 1]; ++k)
      ex.push_back({(s / p.lanes) * kChunk + p.indices[k], p.values[k]});
  std::sort(ex.begin(), ex.end(), [](const Exception<T>& a, const Exception<T>& b) { return a.pos < b.pos; });
  return ex;
}

}  // namespace lp::cpu::patched
