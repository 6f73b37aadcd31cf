// Thesis Alg 4.13 (4.4.3, Fig 4.20-4.22): per tile, block radix sort of the pairs in shared memory, then a three-phase segmented reduce into the block's bucket set; Fig 4.2's final reduce.
#pragma once
#include <cuda_runtime.h>

#include <cub/block/block_load.cuh>
#include <cub/block/block_radix_sort.cuh>
#include <cub/block/block_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <stdexcept>
#include <type_traits>

#include "common.cuh"

namespace lp::multireduce {

// A key no label takes (labels are < m <= 2^32 - 1): pads a tail tile, and is the "next label" after
// a tile's last item, so that item always ends a run.
constexpr std::uint32_t kPadLabel = 0xffffffffu;

// The flag-value pair of the segmented scan (phase 2 of Alg 4.13): `open` is the reduction of the
// items after the last run end seen, `ended` whether a run end was seen at all.
template <class T>
struct SegCarry {
  T open;
  std::uint32_t ended;
};

// (a then b): b's open value continues a's unless a run ended inside b. Associative, not commutative.
template <class Op>
struct SegCarryOp {
  using T = typename Op::value_type;
  __device__ __forceinline__ SegCarry<T> operator()(const SegCarry<T>& a, const SegCarry<T>& b) const {
    return {b.ended ? b.open : Op::apply(a.open, b.open), a.ended | b.ended};
  }
};

// The segmented reduce of Alg 4.13 over a tile held in a blocked arrangement and sorted by label:
// thread i holds ranks i*ITEMS .. i*ITEMS+ITEMS-1, `next_label` is the label of rank (i+1)*ITEMS
// (kPadLabel after the tile). Calls emit(label, reduction, first_run_of_tile, last_run_of_tile) once
// per run of real labels, in the thread holding the run's last item. The fold of a run keeps the
// tile's order, so non-commutative operators stay exact.
template <class Op, int THREADS, int ITEMS, class Emit>
__device__ __forceinline__ void block_reduce_runs(const std::uint32_t (&labels)[ITEMS], const typename Op::value_type (&vals)[ITEMS],
                                                  std::uint32_t next_label,
                                                  typename cub::BlockScan<SegCarry<typename Op::value_type>, THREADS,
                                                                          cub::BLOCK_SCAN_WARP_SCANS>::TempStorage& scan_storage,
                                                  Emit&& emit) {
  using T = typename Op::value_type;
  static_assert(ITEMS <= 32, "run ends are kept as a bit mask");
  // Phase 1: local inclusive scan that restarts after every run end. The thesis stores the flags
  // over the values to save registers; a bit mask does the same.
  T scan[ITEMS];
  std::uint32_t ends = 0;
  T x = Op::identity();
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    x = Op::apply(x, vals[k]);
    scan[k] = x;
    const std::uint32_t next = k + 1 < ITEMS ? labels[k + 1] : next_label;
    if (labels[k] != next) {
      ends |= 1u << k;
      x = Op::identity();
    }
  }
  // Phase 2: exclusive segmented scan of the threads' carries; y is what the runs continuing into
  // this thread accumulated in the threads before it. (false, identity) is the scan's identity.
  SegCarry<T> in{x, ends != 0}, prefix;
  cub::BlockScan<SegCarry<T>, THREADS, cub::BLOCK_SCAN_WARP_SCANS>(scan_storage)
      .ExclusiveScan(in, prefix, SegCarry<T>{Op::identity(), 0u}, SegCarryOp<Op>{});
  // Phase 3: the thread's first run gets the carry on its left; every run end emits its reduction.
  bool first_in_thread = true;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    if ((ends >> k) & 1u) {
      const std::uint32_t next = k + 1 < ITEMS ? labels[k + 1] : next_label;
      if (labels[k] != kPadLabel)
        emit(labels[k], first_in_thread ? Op::apply(prefix.open, scan[k]) : scan[k], first_in_thread && !prefix.ended,
             next == kPadLabel);
      first_in_thread = false;
    }
  }
}

// The block-wide pieces of a sort-in-shared-memory tile, shared with the multiscan's Alg 5.4:
// `SortValue` is what the radix sort carries with each label (the value here; index and value
// there).
template <class Op, int THREADS, int ITEMS, class SortValue = typename Op::value_type>
struct SortSharedTypes {
  using T = typename Op::value_type;
  // Baxter's transposition (Alg 4.5): coalesced striped reads, exchanged to blocked through shared memory.
  using LoadLabels = cub::BlockLoad<std::uint32_t, THREADS, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
  using LoadValues = cub::BlockLoad<T, THREADS, ITEMS, cub::BLOCK_LOAD_TRANSPOSE>;
  // Stable, so equal labels keep the order the threads hold them in (Alg 4.12's precondition).
  using Sort = cub::BlockRadixSort<std::uint32_t, THREADS, ITEMS, SortValue>;
  using Scan = cub::BlockScan<SegCarry<T>, THREADS, cub::BLOCK_SCAN_WARP_SCANS>;
  // The phases never overlap, so they share one allocation (separated by __syncthreads).
  union Storage {
    typename LoadLabels::TempStorage load_labels;
    typename LoadValues::TempStorage load_values;
    typename Sort::TempStorage sort;
    struct {
      typename Scan::TempStorage scan;
      std::uint32_t first_label[THREADS];
    } reduce;
  };

  // Baxter's transposed loads of one tile (`valid` items from `base`) into a blocked arrangement.
  // Pads sit at the tile's end, after every real label, so the stable sort keeps them there even
  // when their low `bits` equal label m-1's.
  static __device__ __forceinline__ void load_blocked(Storage& st, const std::uint32_t* labels, const T* values, std::int64_t base,
                                                      int valid, std::uint32_t (&keys)[ITEMS], T (&vals)[ITEMS]) {
    if (valid == THREADS * ITEMS) LoadLabels(st.load_labels).Load(labels + base, keys);
    else LoadLabels(st.load_labels).Load(labels + base, keys, valid, kPadLabel);
    __syncthreads();
    if (valid == THREADS * ITEMS) LoadValues(st.load_values).Load(values + base, vals);
    else LoadValues(st.load_values).Load(values + base, vals, valid, Op::identity());
    __syncthreads();
  }

  // The label after this thread's last item in the sorted tile: thread i+1's first (kPadLabel after
  // the last thread), so that thread i finds its last run end (Alg 4.13).
  static __device__ __forceinline__ std::uint32_t next_label(Storage& st, std::uint32_t first_key) {
    st.reduce.first_label[threadIdx.x] = first_key;
    __syncthreads();
    return threadIdx.x + 1 < THREADS ? st.reduce.first_label[threadIdx.x + 1] : kPadLabel;
  }
};

// One bucket set per block (Fig 4.2): block `set` takes a contiguous range of tiles in order, so the
// sets, folded in block order, give every bucket's inputs in input order. partials[b * n_sets + set]
// starts at the identity; each tile's runs are applied on its right.
// TRANSPOSED = false is the thesis's commutative version: thread i takes items i, i + THREADS, ...
// of the tile (coalesced without shared memory) and the sort sees them as ranks i*ITEMS + k, which
// reorders the inputs of a bucket.
template <class Op, int THREADS, int ITEMS, bool TRANSPOSED>
__global__ void __launch_bounds__(THREADS)
    sort_shared_kernel(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, int bits,
                       std::int64_t n_tiles, typename Op::value_type* partials, int n_sets) {
  using Ty = SortSharedTypes<Op, THREADS, ITEMS>;
  using T = typename Op::value_type;
  constexpr int TILE = THREADS * ITEMS;
  extern __shared__ __align__(16) unsigned char sort_shared_smem[];
  auto& st = *reinterpret_cast<typename Ty::Storage*>(sort_shared_smem);
  const int tid = threadIdx.x;
  const int set = blockIdx.x;
  const std::int64_t t_begin = n_tiles * set / n_sets, t_end = n_tiles * (set + 1) / n_sets;
  for (std::int64_t t = t_begin; t < t_end; ++t) {
    const std::int64_t base = t * TILE;
    const int valid = static_cast<int>(std::min<std::int64_t>(TILE, n - base));
    std::uint32_t keys[ITEMS];
    T vals[ITEMS];
    if (t > t_begin) __syncthreads();  // the previous tile is done with the shared storage
    if constexpr (TRANSPOSED) {
      Ty::load_blocked(st, labels, values, base, valid, keys, vals);
    } else {
      if (valid == TILE) {
        cub::LoadDirectStriped<THREADS>(tid, labels + base, keys);
        cub::LoadDirectStriped<THREADS>(tid, values + base, vals);
      } else {
        // The tail tile is read blocked, so its pads rank last (see above); it is read once.
        cub::LoadDirectBlocked(tid, labels + base, keys, valid, kPadLabel);
        cub::LoadDirectBlocked(tid, values + base, vals, valid, Op::identity());
      }
    }
    if (bits > 0) {  // m = 1: every label is 0, nothing to sort
      typename Ty::Sort(st.sort).Sort(keys, vals, 0, bits);
      __syncthreads();
    }
    const std::uint32_t next_label = Ty::next_label(st, keys[0]);
    block_reduce_runs<Op, THREADS, ITEMS>(keys, vals, next_label, st.reduce.scan, [&](std::uint32_t label, T v, bool, bool) {
      // One run per label in a sorted tile: this thread alone touches the bucket in this tile, and
      // the __syncthreads between tiles orders the block's updates of it.
      T* p = partials + std::size_t(label) * n_sets + set;
      *p = Op::apply(*p, v);
    });
  }
}

// The instantiated shapes: threads in {128, 256, 512} x items in {4, 8, 12, 16}; a request picks
// the nearest (ties go to the smaller). The thesis's best: 12 items (4.4.3), 256 threads here.
inline int sort_shared_threads(const Tuning& t) {
  const int want = t.threads > 0 ? t.threads : 256;
  return want < 192 ? 128 : want < 384 ? 256 : 512;
}
inline int sort_shared_items(const Tuning& t) {
  const int want = t.n_items > 0 ? t.n_items : 12;
  return want <= 6 ? 4 : want <= 10 ? 8 : want <= 14 ? 12 : 16;
}

template <int THREADS, class F>
void sort_shared_items_dispatch(int items, F&& f) {
  switch (items) {
    case 4: f(std::integral_constant<int, THREADS>{}, std::integral_constant<int, 4>{}); break;
    case 8: f(std::integral_constant<int, THREADS>{}, std::integral_constant<int, 8>{}); break;
    case 16: f(std::integral_constant<int, THREADS>{}, std::integral_constant<int, 16>{}); break;
    default: f(std::integral_constant<int, THREADS>{}, std::integral_constant<int, 12>{}); break;
  }
}

template <class F>
void sort_shared_dispatch(const Tuning& t, F&& f) {
  const int items = sort_shared_items(t);
  switch (sort_shared_threads(t)) {
    case 128: sort_shared_items_dispatch<128>(items, f); break;
    case 512: sort_shared_items_dispatch<512>(items, f); break;
    default: sort_shared_items_dispatch<256>(items, f); break;
  }
}

// Shared memory of one shape; the large ones (512 x 16 with 8-byte values) need the opt-in above
// the 48 KiB default (made once per device and kernel by the launch cache).
template <class Op, int THREADS, int ITEMS, bool TRANSPOSED>
std::size_t sort_shared_smem() {
  const std::size_t bytes = sizeof(typename SortSharedTypes<Op, THREADS, ITEMS>::Storage);
  lp::allow_dynamic_shared(sort_shared_kernel<Op, THREADS, ITEMS, TRANSPOSED>, bytes);
  return bytes;
}

// Resident blocks per SM of one shape (registers and shared memory decide).
template <class Op, int THREADS, int ITEMS, bool TRANSPOSED>
int sort_shared_occupancy() {
  return std::max(1, lp::max_active_blocks(sort_shared_kernel<Op, THREADS, ITEMS, TRANSPOSED>, THREADS,
                                           sort_shared_smem<Op, THREADS, ITEMS, TRANSPOSED>()));
}

// Blocks of one resident wave over `tiles` tiles: Tuning::blocks_per_sm per SM, or as many as
// `occupancy` says fit; never more blocks than tiles.
inline std::int64_t wave_blocks(std::int64_t tiles, const Tuning& t, int occupancy) {
  const int per_sm = t.blocks_per_sm > 0 ? t.blocks_per_sm : occupancy;
  return std::min<std::int64_t>({tiles, std::int64_t(sm_count()) * per_sm, std::int64_t(1) << 30});
}

// Bucket sets = blocks. Thesis: one tile per block. Default here: one resident wave (occupancy x
// SMs), each block looping over consecutive tiles, which keeps the partials and the final reduce
// small; Tuning::blocks_per_sm overrides (a large value gives the thesis's one tile per block).
template <class Op, bool TRANSPOSED>
int sort_shared_sets(std::int64_t n, std::uint32_t, const Tuning& t) {
  int sets = 1;
  sort_shared_dispatch(t, [&](auto th, auto it) {
    constexpr int THREADS = decltype(th)::value, ITEMS = decltype(it)::value;
    const std::int64_t tiles = ceil_div(std::max<std::int64_t>(n, 1), std::int64_t(THREADS) * ITEMS);
    sets = static_cast<int>(wave_blocks(tiles, t, t.blocks_per_sm > 0 ? 0 : sort_shared_occupancy<Op, THREADS, ITEMS, TRANSPOSED>()));
  });
  return sets;
}

// The partial bucket sets: n_sets x m values (the thesis's allocation limit for large m).
template <class Op, bool TRANSPOSED>
std::size_t sort_shared_partials_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  return std::size_t(sort_shared_sets<Op, TRANSPOSED>(n, m, t)) * m * sizeof(typename Op::value_type);
}

// The partial sets the variants allow: the thesis hit an allocation error for large m; beyond this
// the variants refuse the point (and auto does not take them).
constexpr std::size_t kSortSharedMaxPartialsBytes = std::size_t(4) << 30;

template <class Op, bool TRANSPOSED>
std::size_t sort_shared_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  return sort_shared_partials_bytes<Op, TRANSPOSED>(n, m, t);
}

template <class Op, bool TRANSPOSED>
void sort_shared(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                 typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, const Tuning& t, cudaStream_t s) {
  using T = typename Op::value_type;
  const int sets = sort_shared_sets<Op, TRANSPOSED>(n, m, t);
  if (scratch_bytes < std::size_t(sets) * m * sizeof(T)) throw std::invalid_argument("sort_shared: scratch smaller than the partial bucket sets");
  T* partials = static_cast<T*>(scratch);
  fill(partials, std::int64_t(sets) * m, Op::identity(), s);
  sort_shared_dispatch(t, [&](auto th, auto it) {
    constexpr int THREADS = decltype(th)::value, ITEMS = decltype(it)::value;
    const std::size_t smem = sort_shared_smem<Op, THREADS, ITEMS, TRANSPOSED>();
    const std::int64_t tiles = ceil_div(n, std::int64_t(THREADS) * ITEMS);
    sort_shared_kernel<Op, THREADS, ITEMS, TRANSPOSED>
        <<<sets, THREADS, smem, s>>>(labels, values, n, label_bits(m), tiles, partials, sets);
    LP_CUDA_LAUNCH("sort_shared_kernel");
  });
  reduce_partials<Op>(partials, sets, m, out, s);
}

}  // namespace lp::multireduce
