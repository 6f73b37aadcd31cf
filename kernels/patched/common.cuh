// What every patched-array kernel takes (device pointers of one PatchedArray: the FastLanes-packed
// column and the seed's patch layout) and how a warp is cut over chunks. No configs, no files.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

#include "fastlanes.hpp"

namespace lp::patched {

// One PatchedArray on the device (Vortex's patched arrays, docs/references.md): the inner array
// (bit-packed words and per-chunk bases, exceptions stored as filler 0) and its patches.
template <class T>
struct DevicePatched {
  std::int64_t n = 0;
  int w = 0;                                   // bit width, 1..W
  const T* words = nullptr;                    // chunks * w * lanes
  const T* bases = nullptr;                    // one per chunk
  const std::uint32_t* lane_offsets = nullptr; // chunks * lanes + 1
  const std::uint16_t* indices = nullptr;      // in-chunk positions, sorted by (chunk, lane, position)
  const T* values = nullptr;
  std::int64_t count = 0;                      // patches
};

// The patches of a column (itself, for integers; alp_decode.cuh has the float column's): what the
// apply passes and auto's look read, whatever the decode.
template <class T>
const DevicePatched<T>& patches_of(const DevicePatched<T>& a) { return a; }
template <class T>
constexpr bool is_alp(const DevicePatched<T>&) { return false; }

struct Tuning {
  int threads = 0;  // threads per block (0: kDefaultThreads)
  int dense = 0;    // auto: patches per patched lane, times a chunk's lanes, above which they count as clustered (0: auto_rule::kDefaultDense)
};
constexpr int kDefaultThreads = 256;

// How a warp covers chunks. A thread owns V adjacent lanes, so that each row a thread produces is
// one wide store and each chunk's row is 128 contiguous bytes: u16 2 lanes x 32 threads = 64 lanes,
// u32 1 x 32, u64 1 x 16 lanes (two chunks a warp), and u8 16 lanes x 8 threads, four chunks a warp
// (16-byte stores: with 4 lanes a thread, one 1 KiB chunk a warp, u8 moved too few bytes an
// instruction to stream, 0.60 of the read ceiling on the H100; with 16, the decode of a 2^26 u8
// column takes 54 us instead of 69 on the H200, still bound by the SMs' issue, 83%, and 33 us,
// the loads its largest stall, with its rows unpacked four lanes a word (fastlanes.hpp, unpack4_u8;
// results/h200/patched/profiles/)). But 16 lane cursors a thread (G-ALP's patching, fused) made
// fused 1.2-2.3x slower on u8 (results/h200/patched/probes/compare_cursors_16_lanes.txt): the
// cursors' kernel keeps 4 lanes a thread (kCursorLanesU8), as fast as before again
// (results/h200/patched/compare/compare.txt). The warp's apply keeps 16: 1.2-1.3x faster over spread
// patches up to 5%, 1.25-1.8x slower over 5-10% clustered ones and 10% spread ones.
constexpr int kCursorLanesU8 = 4;
template <class T>
constexpr int default_lanes_per_thread() { return sizeof(T) == 1 ? 16 : sizeof(T) >= 4 ? 1 : 4 / int(sizeof(T)); }

template <class T, int VT = default_lanes_per_thread<T>()>
struct WarpShape {
  static constexpr int W = kBits<T>;
  static constexpr int L = kLanes<T>;
  static constexpr int V = VT;         // lanes per thread
  static constexpr int TPC = L / V;    // threads per chunk
  static constexpr int CPW = 32 / TPC; // chunks per warp
  static constexpr int kVecBytes = V * int(sizeof(T));
  using Vec = std::conditional_t<kVecBytes == 16, uint4, std::conditional_t<kVecBytes == 8, std::uint64_t, std::uint32_t>>;  // V values
  static_assert(TPC * CPW == 32 && sizeof(Vec) == V * sizeof(T), "a warp covers whole chunks");

  __device__ static T get(Vec x, int k) {
    if constexpr (kVecBytes == 16) {
      const std::uint32_t w[4] = {x.x, x.y, x.z, x.w};
      return T(w[k / 4] >> (8 * (k % 4)));
    } else {
      return T(x >> (8 * int(sizeof(T)) * k));
    }
  }
  __device__ static Vec put(const T (&v)[V]) {
    if constexpr (kVecBytes == 16) {
      std::uint32_t w[4] = {0, 0, 0, 0};
#pragma unroll
      for (int k = 0; k < V; ++k) w[k / 4] |= std::uint32_t(v[k]) << (8 * (k % 4));
      return make_uint4(w[0], w[1], w[2], w[3]);
    } else {
      Vec x = 0;
#pragma unroll
      for (int k = 0; k < V; ++k) x |= Vec(v[k]) << (8 * int(sizeof(T)) * k);
      return x;
    }
  }
};

}  // namespace lp::patched
