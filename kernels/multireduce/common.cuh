// Pieces every multireduce kernel family shares: tuning knobs, launch sizing, the identity fill of
// the buckets, atomic application of a commutative operator, and the final step of the thesis's
// partitioning scheme (Fig 4.2: nSets partial bucket sets reduced per bucket, in order).
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "../common/cuda_check.cuh"
#include "../common/device_facts.cuh"
#include "../common/label_bits.hpp"
#include "../common/launch_cache.cuh"
#include "operators.hpp"

namespace lp::multireduce {

// Knobs a variant may take (0 = the variant's own default). Kernels read only these; where they
// come from (a config axis) is the study's business.
struct Tuning {
  int threads = 0;        // threads per block
  int blocks_per_sm = 0;  // resident blocks per SM the grid is sized for
  int n_items = 0;        // items per thread per step (transposition schemes, sort_shared)
  int n_sets = 0;         // bucket sets (global_comm, Table 4.1)
  int sort_bits = 0;      // top label bits sorted by first (Alg 2.4 / Table 4.2 / Alg 4.11)
  int cluster = 0;        // thread-block cluster size (distributed shared memory variants)
  enum class Transpose { Padded, Segment, Baxter } transpose = Transpose::Padded;  // Alg 4.7 / 4.6 / 4.5
};

// The shared device facts and label arithmetic (kernels/common), under the names the family and
// its users (histogram, multiscan, the apps) have always called them by.
using lp::ceil_div;
using lp::l2_bytes;
using lp::label_bits;
using lp::max_shared_per_block;
using lp::sm_count;

// Blocks for a grid-stride kernel: `per_sm` resident blocks on every SM, never more than the work.
inline int grid_for(std::int64_t work_items, int threads, int per_sm) {
  std::int64_t want = std::int64_t(sm_count()) * std::max(1, per_sm);
  return static_cast<int>(std::max<std::int64_t>(1, std::min(want, ceil_div(std::max<std::int64_t>(work_items, 1), threads))));
}

// Warp shuffles of any trivially copyable value (the affine pairs too), word by word.
template <class T>
__device__ __forceinline__ T shfl_words(T v, int arg, int mode, unsigned mask = 0xffffffffu) {
  static_assert(sizeof(T) % 4 == 0, "shuffled values are whole words");
  constexpr int words = sizeof(T) / 4;
  std::uint32_t w[words];
  memcpy(w, &v, sizeof(T));
#pragma unroll
  for (int i = 0; i < words; ++i)
    w[i] = mode == 0 ? __shfl_sync(mask, w[i], arg) : mode == 1 ? __shfl_down_sync(mask, w[i], arg) : __shfl_up_sync(mask, w[i], arg);
  memcpy(&v, w, sizeof(T));
  return v;
}
template <class T>
__device__ __forceinline__ T shfl(T v, int src, unsigned mask = 0xffffffffu) { return shfl_words(v, src, 0, mask); }
template <class T>
__device__ __forceinline__ T shfl_down(T v, int off, unsigned mask = 0xffffffffu) { return shfl_words(v, off, 1, mask); }
template <class T>
__device__ __forceinline__ T shfl_up(T v, int off, unsigned mask = 0xffffffffu) { return shfl_words(v, off, 2, mask); }

template <class T>
__global__ void fill_kernel(T* out, std::int64_t count, T value) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count; i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = value;
}

// Buckets start at the identity (thesis 1.2). Timed with the variant: it is part of its cost.
template <class T>
void fill(T* out, std::int64_t count, T value, cudaStream_t s) {
  if (count <= 0) return;
  fill_kernel<<<grid_for(count, 256, 4), 256, 0, s>>>(out, count, value);
  LP_CUDA_LAUNCH("fill_kernel");
}

// One atomic read-modify-write with a commutative operator, on global or shared memory (generic
// addresses). Only the operators with a native atomic are offered: a variant that needs this for
// another operator does not compile, which is the point.
// An operator with no native atomic may bring its own: a static `atomic(T*, T)` (the decimal
// study's 128-bit sums carry from one 64-bit word into the next).
template <class Op, class = void>
struct has_own_atomic : std::false_type {};
template <class Op>
struct has_own_atomic<Op, std::void_t<decltype(&Op::atomic)>> : std::true_type {};

template <class Op>
__device__ __forceinline__ void atomic_apply(typename Op::value_type* p, typename Op::value_type v) {
  using T = typename Op::value_type;
  static_assert(Op::commutative, "atomic updates reorder inputs: commutative operators only");
  if constexpr (has_own_atomic<Op>::value) {
    Op::atomic(p, v);
  } else if constexpr (std::is_same_v<Op, Add<T>>) {
    if constexpr (std::is_same_v<T, std::int64_t>)
      atomicAdd(reinterpret_cast<unsigned long long*>(p), static_cast<unsigned long long>(v));
    else
      atomicAdd(p, v);
  } else if constexpr (std::is_same_v<Op, Min<T>>) {
    if constexpr (std::is_same_v<T, std::int64_t>)
      atomicMin(reinterpret_cast<long long*>(p), static_cast<long long>(v));
    else
      atomicMin(p, v);
  } else {
    static_assert(std::is_same_v<Op, Max<T>>, "no atomic for this operator");
    if constexpr (std::is_same_v<T, std::int64_t>)
      atomicMax(reinterpret_cast<long long*>(p), static_cast<long long>(v));
    else
      atomicMax(p, v);
  }
}

// Shared and distributed shared memory do 32-bit integer add/min/max in one atomic instruction;
// other updates (float add, 64-bit, an operator's own atomic) are compare-and-swap loops, which lanes
// contending for one bucket retry one by one: hot labels make them the bottleneck (float32 zipf at
// m = 2^20 once took 191 ms in cluster_privatized). Kernels fold a warp's equal labels first there.
template <class Op>
constexpr bool native_shared_atomic() {
  using T = typename Op::value_type;
  return !has_own_atomic<Op>::value && sizeof(T) == 4 && std::is_integral_v<T>;
}

// Where a kernel folds a warp's equal labels before its compare-and-swap updates: values of at most
// 8 bytes. A 16- or 32-byte value (the decimal study's carry buckets and words) moves in 4-8
// registers per shuffle, and the fold pushed a 1024-thread block past its 64 registers: the
// cluster kernel spilled (decimal128: 52 bytes stored, 132 loaded a thread) and ran 1.1-6.4x slower
// than before it folded, even over one id. Without the fold they still reduce a warp of one label
// in a shuffle tree, and over zipf(1) ids (a 10% id) the cluster runs as fast as before the fold
// (decimal128, 4096 ids, 2^26 rows: 0.59 ms on the H200, 0.60 on the H100).
template <class Op>
constexpr bool folds_equal_labels() {
  return !native_shared_atomic<Op>() && sizeof(typename Op::value_type) <= 8;
}

// The fold of the warp's 32 values in lane order, in lane 31 (an up-sweep: half the shuffles of
// pointer jumping over one group of 32, for warps whose labels are all equal).
template <class Op>
__device__ __forceinline__ typename Op::value_type warp_ordered_fold(typename Op::value_type x) {
  const int lane = threadIdx.x & 31;
#pragma unroll
  for (int off = 1; off < 32; off *= 2) {
    const auto left = shfl_up(x, off);
    if ((lane & (2 * off - 1)) == 2 * off - 1) x = Op::apply(left, x);
  }
  return x;
}

// Lanes of a warp holding equal keys (`peers`: the lanes of this lane's group, itself included)
// fold their values in lane order, and `last` is set where the lane is its group's last: that
// lane returns the group's fold, in input order (exact for non-commutative operators); other lanes
// return partial folds. Pointer jumping, or an up-sweep where one group holds the whole warp
// (degenerate labels, long runs: half the shuffles). Every lane of the warp must call it.
template <class Op>
__device__ __forceinline__ typename Op::value_type warp_group_fold_peers(unsigned peers, typename Op::value_type x, bool& last) {
  const int lane = threadIdx.x & 31;
  const unsigned below = (1u << lane) - 1u, above = ~((2u << lane) - 1u);  // 2u << 31 wraps to 0: nothing above lane 31
  int pred = (peers & below) ? 31 - __clz(peers & below) : -1;
  const int size = __reduce_max_sync(0xffffffffu, unsigned(__popc(peers)));
  if (size == 32) {
    last = lane == 31;
    return warp_ordered_fold<Op>(x);
  }
  // Inclusive scan of each group in lane order: after round k every lane holds the fold of up to
  // 2^k consecutive group members ending at itself.
  for (int d = 1; d < size; d *= 2) {
    const int src = pred < 0 ? lane : pred;
    const auto px = shfl(x, src);
    const int pp = __shfl_sync(0xffffffffu, pred, src);
    if (pred >= 0) x = Op::apply(px, x), pred = pp;
  }
  last = (peers & above) == 0;
  return x;
}

// The same with the groups found by match.any, whose cost grows with the distinct keys in the warp.
template <class Op>
__device__ __forceinline__ typename Op::value_type warp_group_fold(std::uint32_t key, typename Op::value_type x, bool& last) {
  return warp_group_fold_peers<Op>(__match_any_sync(0xffffffffu, key), x, last);
}

// update(key, v) once per group of equal keys in the warp (by its last lane, with the group's
// fold) where the atomic is a CAS loop; once per valid lane where it is native. Every lane calls.
template <class Op, class Update>
__device__ __forceinline__ void warp_folded_update(std::uint32_t key, typename Op::value_type v, bool valid, Update&& update) {
  if constexpr (native_shared_atomic<Op>()) {
    if (valid) update(key, v);
  } else {
    // A warp of one label (degenerate input, long runs): a shuffle tree is cheaper than match.any.
    const std::uint32_t first = __shfl_sync(0xffffffffu, key, 0);
    if (__all_sync(0xffffffffu, valid && key == first)) {
#pragma unroll
      for (int off = 16; off > 0; off /= 2) v = Op::apply(v, shfl_down(v, off));
      if ((threadIdx.x & 31) == 0) update(key, v);
      return;
    }
    bool last = false;
    const auto x = warp_group_fold<Op>(valid ? key : 0xffffffffu, v, last);  // no label is 2^32 - 1
    if (valid && last) update(key, x);
  }
}

// Beyond the thesis: a hot label (zipf skew) puts most of a warp's lanes on one bucket, and their
// atomics serialise on its address (double sums over zipf 2.9 ids: 18x behind a sort). Up to two
// candidate labels, the first valid lane's and then the first lane's left over, gather their lanes'
// values in a shuffle tree and update once by lane 0; every other lane updates on its own. Where no
// label repeats it costs two ballots and two shuffles; a label of share p escapes both rounds with
// probability (1 - p)^2. A warp of one label takes one update. Commutative only; every lane calls.
template <class Op, class Update>
__device__ __forceinline__ void hot_aggregated_update(std::uint32_t key, typename Op::value_type v, bool valid, Update&& update) {
  using T = typename Op::value_type;
  const int lane = threadIdx.x & 31;
  unsigned own = __ballot_sync(0xffffffffu, valid);  // lanes still to update on their own
  unsigned unseen = own;                             // lanes whose label no round has tried (warp-uniform)
#pragma unroll
  for (int round = 0; round < 2 && unseen; ++round) {
    const std::uint32_t candidate = __shfl_sync(0xffffffffu, key, __ffs(unseen) - 1);
    const unsigned same = __ballot_sync(0xffffffffu, key == candidate) & unseen;
    unseen &= ~same;
    if (__popc(same) < 2) continue;  // a label of its own: that lane updates alone below
    T x = (same >> lane) & 1u ? v : Op::identity();
#pragma unroll
    for (int off = 16; off > 0; off /= 2) x = Op::apply(x, shfl_down(x, off));
    if (lane == 0) update(candidate, x);
    own &= ~same;
  }
  if ((own >> lane) & 1u) update(key, v);
}

// Fig 4.2's final step: partials[b * n_sets + s] holds set s's reduction of bucket b; out[b] is
// their fold in set order (so non-commutative operators stay exact). One warp per bucket: each lane
// folds a contiguous run of sets, then an order-preserving shuffle tree joins the lanes (lower lanes
// on the left). This is the thesis's segmented reduce with segments of equal length n_sets.
template <class Op>
__global__ void reduce_partials_kernel(const typename Op::value_type* partials, int n_sets, std::uint32_t m,
                                       typename Op::value_type* out) {
  using T = typename Op::value_type;
  const int lane = threadIdx.x & 31;
  const std::int64_t warps = std::int64_t(gridDim.x) * (blockDim.x / 32);
  const int per_lane = (n_sets + 31) / 32;
  for (std::int64_t b = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) / 32; b < m; b += warps) {
    const T* row = partials + b * n_sets;
    T acc = Op::identity();
    for (int k = 0, s = lane * per_lane; k < per_lane && s < n_sets; ++k, ++s) acc = Op::apply(acc, row[s]);
    for (int off = 1; off < 32; off *= 2) {
      T right = shfl_down(acc, off);
      if ((lane & (2 * off - 1)) == 0 && lane + off < 32) acc = Op::apply(acc, right);
    }
    if (lane == 0) out[b] = acc;
  }
}

template <class Op>
void reduce_partials(const typename Op::value_type* partials, int n_sets, std::uint32_t m, typename Op::value_type* out,
                     cudaStream_t s) {
  reduce_partials_kernel<Op><<<grid_for(std::int64_t(m) * 32, 256, 8), 256, 0, s>>>(partials, n_sets, m, out);
  LP_CUDA_LAUNCH("reduce_partials_kernel");
}

// The same final step for set-major partials (partials[s * m + b], as blocks write them
// coalesced). Where m alone leaves the GPU idle (m = 256 with a thousand sets: 256 threads folding a
// thousand loads each, in order, took longer than the whole input pass), `parts` threads share a
// bucket: each folds a contiguous run of the sets in order, and the runs are joined in run order
// through shared memory, so non-commutative operators stay exact. A block holds 256 / parts buckets,
// and consecutive threads read consecutive buckets of one set.
template <class Op>
__global__ void __launch_bounds__(256) reduce_columns_kernel(const typename Op::value_type* __restrict__ partials, int n_sets,
                                                             std::uint32_t m, int parts, typename Op::value_type* __restrict__ out) {
  using T = typename Op::value_type;
  __shared__ __align__(16) unsigned char raw[256 * sizeof(T)];
  T* runs = reinterpret_cast<T*>(raw);
  const int width = blockDim.x / parts, j = threadIdx.x % width, p = threadIdx.x / width;
  const int per = (n_sets + parts - 1) / parts, s0 = std::min(n_sets, p * per), s1 = std::min(n_sets, s0 + per);
  for (std::int64_t b0 = std::int64_t(blockIdx.x) * width; b0 < m; b0 += std::int64_t(gridDim.x) * width) {
    const std::int64_t b = b0 + j;
    T acc = Op::identity();
    if (b < m) {
#pragma unroll 8
      for (int s = s0; s < s1; ++s) acc = Op::apply(acc, partials[std::int64_t(s) * m + b]);
    }
    if (parts == 1) {
      if (b < m) out[b] = acc;
      continue;
    }
    runs[threadIdx.x] = acc;
    __syncthreads();
    if (p == 0 && b < m) {
      for (int k = 1; k < parts; ++k) acc = Op::apply(acc, runs[k * width + j]);
      out[b] = acc;
    }
    __syncthreads();  // runs is reused by the next group of buckets
  }
}

template <class Op>
void reduce_columns(const typename Op::value_type* partials, int n_sets, std::uint32_t m, typename Op::value_type* out,
                    cudaStream_t s) {
  // Threads to fill the GPU twice over; more runs per bucket only where m leaves them idle.
  const std::int64_t want = std::int64_t(sm_count()) * 4096;
  int parts = 1;
  while (parts < 32 && parts * 2 <= n_sets && std::int64_t(m) * parts < want) parts *= 2;
  const int width = 256 / parts;
  const auto blocks = static_cast<int>(std::min<std::int64_t>(ceil_div(std::int64_t(m), std::int64_t(width)), std::int64_t(sm_count()) * 64));
  reduce_columns_kernel<Op><<<std::max(1, blocks), 256, 0, s>>>(partials, n_sets, m, parts, out);
  LP_CUDA_LAUNCH("reduce_columns_kernel");
}

// Four consecutive labels and values with 16-byte loads (the arrays come from cudaMalloc, so a
// group of four is 16-byte aligned): fewer, wider requests keep more bytes in flight per thread.
template <class T>
struct Quad {
  std::uint32_t label[4];
  T value[4];
};

template <class T>
__device__ __forceinline__ Quad<T> load_quad(const std::uint32_t* labels, const T* values, std::int64_t quad) {
  Quad<T> q;
  uint4 l = __ldg(reinterpret_cast<const uint4*>(labels) + quad);
  q.label[0] = l.x, q.label[1] = l.y, q.label[2] = l.z, q.label[3] = l.w;
  constexpr int vecs = sizeof(T) * 4 / 16;
  static_assert(sizeof(T) * 4 % 16 == 0, "four values are whole 16-byte words");
  uint4 w[vecs];
#pragma unroll
  for (int k = 0; k < vecs; ++k) w[k] = __ldg(reinterpret_cast<const uint4*>(values) + quad * vecs + k);
  memcpy(q.value, w, sizeof(w));
  return q;
}

// A read-only (non-coherent cache) load of any 4-, 8- or 16-byte value: what `const T* __restrict__`
// kernel parameters let the compiler emit, stated, now that the pointers sit in a source struct.
// Elements of a cudaMalloc'd array of T are aligned to sizeof(T) for these sizes.
template <class T>
__device__ __forceinline__ T ldg_any(const T* p) {
  T v;
  if constexpr (sizeof(T) == 4) {
    const unsigned w = __ldg(reinterpret_cast<const unsigned*>(p));
    memcpy(&v, &w, 4);
  } else if constexpr (sizeof(T) == 8) {
    const unsigned long long w = __ldg(reinterpret_cast<const unsigned long long*>(p));
    memcpy(&v, &w, 8);
  } else {
    static_assert(sizeof(T) == 16, "4-, 8- or 16-byte values");
    const uint4 w = __ldg(reinterpret_cast<const uint4*>(p));
    memcpy(&v, &w, 16);
  }
  return v;
}

// What a kernel of this family reads: a source hands it four consecutive inputs (quad) or one
// (label, value). PairSource is every study's labels and values side by side; a study whose
// values are computed from its rows (the decimal study's price × quantity) passes its own source
// with the same three calls instead of copying the kernels.
template <class T>
struct PairSource {
  using value_type = T;
  const std::uint32_t* labels;
  const T* values;
  __device__ __forceinline__ Quad<T> quad(std::int64_t q) const { return load_quad(labels, values, q); }
  __device__ __forceinline__ std::uint32_t label(std::int64_t i) const { return __ldg(labels + i); }
  __device__ __forceinline__ T value(std::int64_t i) const { return ldg_any(values + i); }
};

}  // namespace lp::multireduce
