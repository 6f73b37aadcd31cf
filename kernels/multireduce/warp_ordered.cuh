// Beyond the thesis, for non-commutative operators: each warp folds a contiguous chunk of the
// input in order into its own bucket set in shared memory; within a 32-input step, lanes with equal
// labels (found by match.any for m < 64, by a per-warp table of lane masks from there) combine in
// lane order by pointer jumping, and only the group's last lane touches the bucket. The per-thread
// sets of Alg 4.8/Fig 4.13 become per-warp sets, so 32x fewer sets and coalesced, untransposed
// loads. Block sets and then blocks fold in chunk order (Fig 4.2's final reduction).
#pragma once
#include "common.cuh"

namespace lp::multireduce {

constexpr int kWarpOrderedUnroll = 4;  // steps whose loads are issued before the first is folded
constexpr std::uint32_t kWarpOrderedTableFrom = 64;  // smallest m given the lane-mask table

struct WarpOrderedPlan {
  int threads = 0, blocks = 0;
  std::size_t smem = 0;  // 0: the per-warp sets do not fit
  bool table = false;    // equal labels found through a per-warp table of lane masks, not match.any
};

// Lanes of this warp whose label equals this lane's, through a table of m lane masks per warp:
// one shared atomic OR, one load and one clearing store, where match.any costs the shared-memory
// pipe about two cycles per distinct label in the warp (ncu at m = 256 uniform: that pipe 93% busy,
// the warp stalled on it 74% of the time). Lanes past the end (label 2^32 - 1) stand alone.
__device__ __forceinline__ unsigned table_peers(std::uint32_t label, unsigned* table) {
  const unsigned bit = 1u << (threadIdx.x & 31);
  const bool valid = label != 0xffffffffu;
  if (valid) atomicOr(table + label, bit);
  __syncwarp();
  const unsigned peers = valid ? table[label] : bit;
  __syncwarp();
  if (valid && (peers >> (threadIdx.x & 31)) == 1u) table[label] = 0;  // the group's last lane clears its mask
  __syncwarp();
  return peers;
}

template <class Op, bool kTable>
__global__ void __launch_bounds__(1024) warp_ordered_kernel(const std::uint32_t* __restrict__ labels,
                                                            const typename Op::value_type* __restrict__ values, std::int64_t n,
                                                            std::uint32_t m, typename Op::value_type* partials) {
  using T = typename Op::value_type;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* sets = reinterpret_cast<T*>(smem_raw);
  const int warps = blockDim.x / 32, w = threadIdx.x / 32, lane = threadIdx.x & 31;
  // kTable: the warps' lane-mask tables follow the sets (unused otherwise).
  unsigned* const tables = reinterpret_cast<unsigned*>(sets + std::int64_t(warps) * m);
  unsigned* const table = tables + std::int64_t(w) * m;
  for (std::int64_t i = threadIdx.x; i < std::int64_t(warps) * m; i += blockDim.x) sets[i] = Op::identity();
  if constexpr (kTable)
    for (std::int64_t i = threadIdx.x; i < std::int64_t(warps) * m; i += blockDim.x) tables[i] = 0;
  __syncthreads();

  T* mine = sets + std::int64_t(w) * m;
  const std::int64_t chunks = std::int64_t(gridDim.x) * warps, chunk = blockIdx.x * std::int64_t(warps) + w;
  const std::int64_t len = ceil_div(ceil_div(n, chunks), 32) * 32;
  const std::int64_t begin = std::min(n, chunk * len), end = std::min(n, begin + len);
  for (std::int64_t base = begin; base < end; base += 32 * kWarpOrderedUnroll) {
    std::uint32_t l[kWarpOrderedUnroll];
    T v[kWarpOrderedUnroll];
#pragma unroll
    for (int u = 0; u < kWarpOrderedUnroll; ++u) {
      const std::int64_t i = base + 32 * u + lane;
      l[u] = i < end ? __ldg(labels + i) : 0xffffffffu;  // past the end: a label no input has
      v[u] = i < end ? values[i] : Op::identity();
    }
    // The steps' group folds touch no bucket, so all of them are issued before the first update:
    // their shuffle chains overlap instead of waiting on each other's updates.
    bool last[kWarpOrderedUnroll];
    T x[kWarpOrderedUnroll];
    if constexpr (kTable) {
      // A warp of one label (degenerate input, long runs) would serialise 32 OR's on one table
      // word: a shuffle and a vote ask first, for the four steps together to overlap their latency.
      bool same[kWarpOrderedUnroll];
#pragma unroll
      for (int u = 0; u < kWarpOrderedUnroll; ++u) same[u] = l[u] == __shfl_sync(0xffffffffu, l[u], 0);
#pragma unroll
      for (int u = 0; u < kWarpOrderedUnroll; ++u) same[u] = __all_sync(0xffffffffu, same[u]);
#pragma unroll
      for (int u = 0; u < kWarpOrderedUnroll; ++u)
        x[u] = warp_group_fold_peers<Op>(same[u] ? 0xffffffffu : table_peers(l[u], table), v[u], last[u]);
    } else {
      // match.any answers a one-label warp cheaply; the fold then takes an up-sweep.
#pragma unroll
      for (int u = 0; u < kWarpOrderedUnroll; ++u) x[u] = warp_group_fold<Op>(l[u], v[u], last[u]);
    }
#pragma unroll
    for (int u = 0; u < kWarpOrderedUnroll; ++u) {
      if (l[u] != 0xffffffffu && last[u]) mine[l[u]] = Op::apply(mine[l[u]], x[u]);
      __syncwarp();  // the next step's group leader may be another lane of this warp
    }
  }
  __syncthreads();

  // This block's chunks are consecutive: fold the warps' sets in warp order.
  for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) {
    T acc = sets[b];
    for (int k = 1; k < warps; ++k) acc = Op::apply(acc, sets[std::int64_t(k) * m + b]);
    partials[std::int64_t(blockIdx.x) * m + b] = acc;
  }
}

// The table is taken from m = 64 (below, a warp's 32 labels share few values, which match.any
// handles quickly while the table's OR's collide: m = 16 zipf 0.34 -> 0.40 ms with it) where it fits
// with at least two blocks resident per SM (it doubles the shared memory of a 4-byte value's sets,
// so at large m it would cost more occupancy than it saves).
template <class Op>
WarpOrderedPlan warp_ordered_plan(std::int64_t n, std::uint32_t m, const Tuning& t) {
  WarpOrderedPlan p;
  p.threads = t.threads > 0 ? t.threads : 256;
  const std::size_t sets = std::size_t(p.threads / 32) * m * sizeof(typename Op::value_type);
  if (p.threads % 32 || sets > max_shared_per_block()) return p;
  const std::size_t with_table = sets + std::size_t(p.threads / 32) * m * sizeof(unsigned);
  int fit = 0;
  if (m >= kWarpOrderedTableFrom && with_table <= max_shared_per_block()) fit = lp::max_active_blocks(warp_ordered_kernel<Op, true>, p.threads, with_table);
  p.table = fit >= 2;
  p.smem = p.table ? with_table : sets;
  // Resident blocks per SM at this shared-memory size: the grid is one wave.
  if (!p.table) fit = lp::max_active_blocks(warp_ordered_kernel<Op, false>, p.threads, sets);
  int per_sm = t.blocks_per_sm > 0 ? std::min(t.blocks_per_sm, fit) : fit;
  p.blocks = static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(std::int64_t(sm_count()) * std::max(1, per_sm),
                                                                              ceil_div(n, std::int64_t(p.threads) * 4))));
  return p;
}

template <class Op>
std::size_t warp_ordered_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  auto p = warp_ordered_plan<Op>(n, m, t);
  return std::size_t(p.blocks) * m * sizeof(typename Op::value_type);
}

template <class Op>
void warp_ordered(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                  typename Op::value_type* out, void* scratch, const Tuning& t, cudaStream_t s) {
  using T = typename Op::value_type;
  auto p = warp_ordered_plan<Op>(n, m, t);
  if (!p.smem) throw std::invalid_argument("warp_ordered: the per-warp bucket sets do not fit in shared memory");
  if (p.table)
    warp_ordered_kernel<Op, true><<<p.blocks, p.threads, p.smem, s>>>(labels, values, n, m, static_cast<T*>(scratch));
  else
    warp_ordered_kernel<Op, false><<<p.blocks, p.threads, p.smem, s>>>(labels, values, n, m, static_cast<T*>(scratch));
  LP_CUDA_LAUNCH("warp_ordered_kernel");
  reduce_columns<Op>(static_cast<T*>(scratch), p.blocks, m, out, s);
}

}  // namespace lp::multireduce
