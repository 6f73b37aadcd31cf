// G-ALP's exception patching (Hepkema, Afroozeh, Felius, Boncz, Manegold, DaMoN 2025) on the seed's
// layout: the thread that produces a lane's rows holds one pending patch of that lane in registers
// (its row and value) and swaps it in when the row comes out, then fetches the next: patches are
// applied one value at a time, in the decode, so patched values never take a second trip through
// memory. lane_offsets gives each lane's first patch in constant time (vortex-patched-array.txt).
#pragma once
#include "common.cuh"

namespace lp::patched {

template <class T, int V>
struct LaneCursor {
  std::uint32_t pos[V], end[V];
  int row[V];  // row of the pending patch; W (never reached) when the lane has none left
  T val[V];

  // Lanes slot0 .. slot0 + V - 1 (slot = chunk * lanes + lane).
  __device__ void init(const DevicePatched<T>& a, std::int64_t slot0) {
#pragma unroll
    for (int k = 0; k < V; ++k) {
      pos[k] = __ldg(a.lane_offsets + slot0 + k);
      end[k] = __ldg(a.lane_offsets + slot0 + k + 1);
      fetch(a, k);
    }
  }
  __device__ void fetch(const DevicePatched<T>& a, int k) {
    if (pos[k] < end[k]) {
      row[k] = row_of<T>(__ldg(a.indices + pos[k]));
      val[k] = a.values[pos[k]];
    } else {
      row[k] = kBits<T>;
    }
  }
  // Row r of the thread's V lanes has just been decoded into v: patch it. A lane's patches are in
  // position order (the builder's sort), so rows come in the order the decoder produces them.
  __device__ void apply(const DevicePatched<T>& a, int r, T (&v)[V]) {
#pragma unroll
    for (int k = 0; k < V; ++k)
      if (row[k] == r) {
        v[k] = val[k];
        ++pos[k];
        fetch(a, k);
      }
  }
};

}  // namespace lp::patched
