// Pieces every multiscan kernel family shares (thesis 1.2: exclusive and inclusive multiscan): the
// knobs, the sequential step of Alg 2.3 in both modes, the store half of the transposition schemes
// (kernels/multireduce/transpose.cuh stages loads only) and an in-order scan of equal labels within
// a warp step.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "../common/cuda_check.cuh"
#include "../multireduce/common.cuh"
#include "../multireduce/operators.hpp"
#include "../multireduce/transpose.cuh"
#include "step.hpp"

namespace lp::multiscan {

using multireduce::ceil_div;
using multireduce::grid_for;

// Scratch carving: every array starts on a 256-byte boundary.
inline std::size_t align256(std::size_t x) { return (x + 255) & ~std::size_t(255); }

// The multireduce knobs (threads, blocks_per_sm, n_items, transpose, sort_bits) plus the multiscan
// ones. 0 = the variant's default.
struct Tuning : multireduce::Tuning {
  int side = 0;                         // Sheffler: threads per block = side, segment = side^2 (5.4.2)
  std::uint32_t partials_switch = 1024;  // Alg 5.2 add-back: partials in shared below this m, else global
};

// The inverse of SegmentTransposer::stage: thread t's k-th item of this step sits at slot(k) of
// `buf`; every existing item goes back to its global position, consecutive threads writing
// consecutive addresses of one chunk. All threads of the block call it after a __syncthreads().
template <multireduce::Tuning::Transpose S, class T>
__device__ void unstage(const multireduce::SegmentTransposer<S>& tr, const T* buf, T* __restrict__ dst, std::int64_t step) {
  const int tile = tr.n_items * int(blockDim.x);
  for (int i = threadIdx.x; i < tile; i += blockDim.x) {
    int seg, off;
    const std::int64_t pos = tr.position(step, i, seg, off);
    if (pos >= 0) dst[pos] = buf[seg * tr.stride + off];
  }
}

// Asks L2 for inputs [first, first + count) of `p` (clipped to n; the whole 16-byte pieces inside):
// one bulk prefetch (sm_90's cp.async.bulk.prefetch.L2), nothing to wait for. The look-back
// kernels (tiles numbered in the order blocks start) call it for a tile some way ahead of their
// own, so that DRAM keeps streaming while resident blocks wait in their look-backs and the tile's
// own loads later come from L2. Too far ahead, the lines are evicted before use (measured).
template <class T>
__device__ __forceinline__ void prefetch_l2(const T* p, std::int64_t first, std::int64_t count, std::int64_t n) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if (first >= n) return;
  const std::int64_t end = first + count < n ? first + count : n;
  const unsigned long long a = (reinterpret_cast<unsigned long long>(p + first) + 15) & ~15ull;
  const unsigned long long b = reinterpret_cast<unsigned long long>(p + end) & ~15ull;
  if (b > a) asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(a), "r"(unsigned(b - a)) : "memory");
#endif
}

// A look-back kernel's L2 lookahead, by thread 0: the labels and values of the tile `ahead` tiles
// past `tile` (tiles of `size` inputs).
template <class T>
__device__ __forceinline__ void prefetch_tile_l2(const std::uint32_t* labels, const T* values, std::int64_t tile, std::int64_t ahead,
                                                 std::int64_t size, std::int64_t n) {
  if (threadIdx.x != 0 || ahead <= 0) return;
  const std::int64_t first = (tile + ahead) * size;
  prefetch_l2(labels, first, size, n);
  prefetch_l2(values, first, size, n);
}

// The distance, in tiles, of a look-back kernel's L2 prefetch: a fraction of the tiles resident at
// once (sm_count x blocks per SM), at least one.
inline std::int64_t lookahead_tiles(int resident_per_sm, double fraction) {
  return std::max<std::int64_t>(1, std::int64_t(fraction * multireduce::sm_count() * resident_per_sm));
}

// Loads a thread's ITEMS consecutive elements (register_scan, perthread_scan): 16-byte loads where the whole run lies inside the
// input (its start is 64-byte aligned), else one guarded load each.
template <class T, int ITEMS>
__device__ __forceinline__ void load_run(const T* __restrict__ p, std::int64_t start, std::int64_t n, T fill, T (&x)[ITEMS]) {
  if (start + ITEMS <= n) {
    constexpr int vecs = ITEMS * int(sizeof(T)) / 16;
    uint4 w[vecs];
#pragma unroll
    for (int k = 0; k < vecs; ++k) w[k] = __ldg(reinterpret_cast<const uint4*>(p + start) + k);
    memcpy(x, w, sizeof(w));
  } else {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) x[k] = start + k < n ? multireduce::ldg_any(p + start + k) : fill;
  }
}

template <class T, int ITEMS>
__device__ __forceinline__ void store_run(T* __restrict__ p, std::int64_t start, std::int64_t n, const T (&x)[ITEMS]) {
  if (start + ITEMS <= n) {
    constexpr int vecs = ITEMS * int(sizeof(T)) / 16;
    uint4 w[vecs];
    memcpy(w, x, sizeof(w));
#pragma unroll
    for (int k = 0; k < vecs; ++k) reinterpret_cast<uint4*>(p + start)[k] = w[k];
  } else {
#pragma unroll
    for (int k = 0; k < ITEMS; ++k)
      if (start + k < n) p[start + k] = x[k];
  }
}

// One 32-input step of a warp that scans its inputs in order: lanes with equal labels (match.any)
// form a group; `x` becomes the inclusive fold of the lane's group up to and including itself, in
// lane order (pointer jumping); the return value is the exclusive fold (identity for the group's
// first lane). `last` tells the group's highest lane, the one that carries the group on. Lanes past
// the end pass a label no input has (0xffffffff) and form their own groups.
template <class Op>
__device__ __forceinline__ typename Op::value_type warp_group_scan(std::uint32_t label, typename Op::value_type& x, bool& last) {
  using T = typename Op::value_type;
  const int lane = threadIdx.x & 31;
  // One label across the warp (m = 1, degenerate labels, long runs): a plain shuffle scan, without
  // match.any and the pointer jumping.
  if (__all_sync(0xffffffffu, label == __shfl_sync(0xffffffffu, label, 0))) {
    for (int d = 1; d < 32; d *= 2) {
      const T y = multireduce::shfl_up(x, d);
      if (lane >= d) x = Op::apply(y, x);
    }
    last = lane == 31;
    const T before = multireduce::shfl_up(x, 1);
    return lane == 0 ? Op::identity() : before;
  }
  const unsigned peers = __match_any_sync(0xffffffffu, label);
  const unsigned below = (1u << lane) - 1u, above = ~((2u << lane) - 1u);  // 2u << 31 wraps to 0
  const int first_pred = (peers & below) ? 31 - __clz(peers & below) : -1;
  const int size = __reduce_max_sync(0xffffffffu, unsigned(__popc(peers)));
  int pred = first_pred;
  for (int d = 1; d < size; d *= 2) {
    const int src = pred < 0 ? lane : pred;
    const T px = multireduce::shfl(x, src);
    const int pp = __shfl_sync(0xffffffffu, pred, src);
    if (pred >= 0) x = Op::apply(px, x), pred = pp;
  }
  last = (peers & above) == 0;
  const T before = multireduce::shfl(x, first_pred < 0 ? lane : first_pred);
  return first_pred < 0 ? Op::identity() : before;
}

}  // namespace lp::multiscan
