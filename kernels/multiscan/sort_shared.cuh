// Thesis Alg 5.4 (5.5.3, Fig 5.8): per tile, Baxter's transposed loads (Alg 4.5), a block radix sort
// of index-value pairs by label, a three-phase segmented scan in shared memory and the results
// written to their indices; inside the partitioning scheme (Alg 5.2). Shapes, the segmented-scan
// carry and the pad label are the multireduce's Alg 4.13 ones.
#pragma once
#include "../multireduce/sort_shared.cuh"
#include "partition.cuh"
#include "sort_global.cuh"

namespace lp::multiscan {

namespace sort_shared_detail {

using multireduce::kPadLabel;
using multireduce::SegCarry;
using multireduce::SegCarryOp;
constexpr std::size_t kMaxPartialBytes = std::size_t(4) << 30;

template <class Op, int THREADS, int ITEMS>
using Types = multireduce::SortSharedTypes<Op, THREADS, ITEMS, IndexValue<typename Op::value_type>>;

// Block `set` takes the tiles [set * tiles_per_set, ...) in order and keeps its running bucket
// totals in partials[b * sets + set] (identity at the start): each result is the running total of
// its label, then its place in the tile's run. After the last tile the running totals are the
// set's partials for Alg 5.2.
template <class Op, int THREADS, int ITEMS>
__global__ void __launch_bounds__(THREADS)
    sort_shared_kernel(const std::uint32_t* __restrict__ labels, const typename Op::value_type* __restrict__ values, std::int64_t n,
                       int bits, std::int64_t tiles_per_set, bool inclusive, typename Op::value_type* out,
                       typename Op::value_type* partials) {
  using Ty = Types<Op, THREADS, ITEMS>;
  using T = typename Op::value_type;
  constexpr int TILE = THREADS * ITEMS;
  extern __shared__ __align__(16) unsigned char sort_shared_smem[];
  auto& st = *reinterpret_cast<typename Ty::Storage*>(sort_shared_smem);
  const int tid = threadIdx.x;
  const std::int64_t sets = gridDim.x, set = blockIdx.x;
  for (std::int64_t t = set * tiles_per_set; t < (set + 1) * tiles_per_set && t * TILE < n; ++t) {
    const std::int64_t base = t * TILE;
    const int valid = static_cast<int>(std::min<std::int64_t>(TILE, n - base));
    std::uint32_t keys[ITEMS];
    T vals[ITEMS];
    IndexValue<T> pairs[ITEMS];
    __syncthreads();  // the previous tile is done with the shared storage and its bucket updates
    Ty::load_blocked(st, labels, values, base, valid, keys, vals);
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) pairs[k] = {std::uint32_t(tid * ITEMS + k), vals[k]};
    if (bits > 0) {  // m = 1: every label is 0, nothing to sort
      typename Ty::Sort(st.sort).Sort(keys, pairs, 0, bits);
      __syncthreads();
    }
    const std::uint32_t next_label = Ty::next_label(st, keys[0]);
    // Phase 1: exclusive scan of the thread's items, restarting after every run end.
    T local[ITEMS];
    T x = Op::identity();
    std::uint32_t ended = 0;
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      local[k] = x;
      x = Op::apply(x, pairs[k].value);
      const std::uint32_t next = k + 1 < ITEMS ? keys[k + 1] : next_label;
      if (keys[k] != next) x = Op::identity(), ended = 1;
    }
    // Phase 2: the block's segmented scan of the threads' carries gives each thread the fold of
    // its first run's items held by earlier threads.
    SegCarry<T> carry;
    typename Ty::Scan(st.reduce.scan).ExclusiveScan(SegCarry<T>{x, ended}, carry, SegCarry<T>{Op::identity(), 0u}, SegCarryOp<Op>{});
    // Phase 3: results, with the running total of the label in front.
    T y = carry.open;
    T run_end[ITEMS];
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      const std::uint32_t next = k + 1 < ITEMS ? keys[k + 1] : next_label;
      const T before = Op::apply(y, local[k]);  // the run's fold before this item, within the tile
      run_end[k] = Op::apply(before, pairs[k].value);
      if (keys[k] != kPadLabel) {
        const T running = partials[std::int64_t(keys[k]) * sets + set];
        out[base + pairs[k].index] = Op::apply(running, inclusive ? run_end[k] : before);
      }
      if (keys[k] != next) y = Op::identity();
    }
    __syncthreads();  // every item has read its label's running total before the run ends move it on
#pragma unroll
    for (int k = 0; k < ITEMS; ++k) {
      const std::uint32_t next = k + 1 < ITEMS ? keys[k + 1] : next_label;
      if (keys[k] != kPadLabel && keys[k] != next) {
        T* p = partials + std::int64_t(keys[k]) * sets + set;
        *p = Op::apply(*p, run_end[k]);
      }
    }
  }
}

// Shared memory of one shape, with the opt-in above 48 KiB made (once per device and kernel).
template <class Op, int THREADS, int ITEMS>
std::size_t smem() {
  const std::size_t bytes = sizeof(typename Types<Op, THREADS, ITEMS>::Storage);
  lp::allow_dynamic_shared(sort_shared_kernel<Op, THREADS, ITEMS>, bytes);
  return bytes;
}

template <class Op, int THREADS, int ITEMS>
int occupancy() {
  return std::max(1, lp::max_active_blocks(sort_shared_kernel<Op, THREADS, ITEMS>, THREADS, smem<Op, THREADS, ITEMS>()));
}

struct Plan {
  int threads = 0, items = 0;
  std::int64_t sets = 0, tiles_per_set = 0;
};

// Sets = one resident wave of blocks (or Tuning::blocks_per_sm per SM), each over a contiguous,
// equal share of the tiles, so a set is one segment of Alg 5.2.
template <class Op>
Plan plan(std::int64_t n, const Tuning& t) {
  Plan p;
  multireduce::sort_shared_dispatch(t, [&](auto th, auto it) {
    constexpr int THREADS = decltype(th)::value, ITEMS = decltype(it)::value;
    p.threads = THREADS, p.items = ITEMS;
    const std::int64_t tiles = ceil_div(std::max<std::int64_t>(n, 1), std::int64_t(THREADS) * ITEMS);
    p.sets = multireduce::wave_blocks(tiles, t, t.blocks_per_sm > 0 ? 0 : occupancy<Op, THREADS, ITEMS>());
    p.tiles_per_set = ceil_div(tiles, p.sets);
    p.sets = ceil_div(tiles, p.tiles_per_set);
  });
  return p;
}

}  // namespace sort_shared_detail

// The blocks' running bucket sets: one set of m values per block of the resident wave.
template <class Op>
std::size_t sort_shared_partials_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  return std::size_t(sort_shared_detail::plan<Op>(n, t).sets) * m * sizeof(typename Op::value_type);
}

template <class Op>
std::string sort_shared_unsupported(std::int64_t n, std::uint32_t m, const Tuning& t) {
  const std::size_t bytes = sort_shared_partials_bytes<Op>(n, m, t);
  return bytes > sort_shared_detail::kMaxPartialBytes ? "the blocks' running bucket sets need " + std::to_string(bytes) + " B (> 4 GiB)" : "";
}

template <class Op>
std::size_t sort_shared_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  using T = typename Op::value_type;
  const auto p = sort_shared_detail::plan<Op>(n, t);
  return align256(std::size_t(p.sets) * m * sizeof(T)) + partition_scratch_bytes(p.sets, m, sizeof(T));
}

template <class Op>
void sort_shared(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                 typename Op::value_type* out, void* scratch, const Tuning& t, cudaStream_t s) {
  using T = typename Op::value_type;
  const auto p = sort_shared_detail::plan<Op>(n, t);
  T* partials = static_cast<T*>(scratch);
  void* rest = static_cast<char*>(scratch) + align256(std::size_t(p.sets) * m * sizeof(T));
  multireduce::fill(partials, p.sets * m, Op::identity(), s);
  multireduce::sort_shared_dispatch(t, [&](auto th, auto it) {
    constexpr int THREADS = decltype(th)::value, ITEMS = decltype(it)::value;
    sort_shared_detail::sort_shared_kernel<Op, THREADS, ITEMS><<<static_cast<unsigned>(p.sets), THREADS, sort_shared_detail::smem<Op, THREADS, ITEMS>(), s>>>(
        labels, values, n, multireduce::label_bits(m), p.tiles_per_set, inclusive, out, partials);
    LP_CUDA_LAUNCH("sort_shared_kernel");
  });
  partition_finish<Op>(labels, out, n, p.tiles_per_set * p.threads * p.items, partials, PartialsLayout::bucket_major(p.sets, m), rest,
                       t.partials_switch, s);
}

}  // namespace lp::multiscan
