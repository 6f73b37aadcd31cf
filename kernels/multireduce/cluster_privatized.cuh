// Beyond the thesis (Hopper): one bucket set per thread-block cluster, split across the blocks'
// shared memories (distributed shared memory), so m up to cluster x 227 KiB / sizeof(T) stays on
// chip; every input is one atomic on its owner block's slice. Commutative only.
#pragma once
#include <cooperative_groups.h>

#include "common.cuh"

namespace lp::multireduce {

struct ClusterPlan {
  int cluster = 0;  // blocks per cluster (0: does not fit)
  int shift = 0;    // slice = 2^shift buckets per block: owner = label >> shift
  int passes = 1;   // beyond 16 blocks' shared memory: passes over the input, one label range each
  int threads = 0;
  int blocks = 0;
  std::size_t smem = 0;
};

// The smallest cluster (2..16; above 8 is Hopper's non-portable size) whose blocks hold a
// power-of-two slice each: a shift and a mask find the owner, where a division would cost more
// than the atomic. Where even 16 slices are too few, the largest slices and several passes, each
// reading the whole input and keeping one label range (the thesis's multi-pass idea of 4.3.6, at
// cluster scale); `max_passes` bounds how many are worth it.
template <class T>
ClusterPlan cluster_plan(std::uint32_t m, const Tuning& t, int max_passes = 4) {
  ClusterPlan p;
  int max_shift = 0;
  while ((std::size_t(2) << max_shift) * sizeof(T) <= max_shared_per_block()) ++max_shift;
  for (int c = t.cluster > 0 ? t.cluster : 2; c <= 16; c *= 2) {
    int shift = 0;
    while ((std::uint64_t(c) << shift) < m) ++shift;
    if (shift <= max_shift) {
      p.cluster = c, p.shift = shift;
      break;
    }
    if (t.cluster > 0 || c == 16) {
      const std::int64_t passes = ceil_div(m, std::int64_t(c) << max_shift);
      if (passes <= max_passes) p.cluster = c, p.shift = max_shift, p.passes = int(passes);
      break;
    }
  }
  p.threads = t.threads > 0 ? t.threads : 1024;
  p.smem = (std::size_t(1) << p.shift) * sizeof(T);
  return p;
}

template <class Op, class Src>
__global__ void __launch_bounds__(1024) cluster_privatized_kernel(const Src src, std::int64_t n, std::uint32_t m, int shift,
                                                                  std::uint32_t lo, typename Op::value_type* partials) {
  using T = typename Op::value_type;
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* slice = reinterpret_cast<T*>(smem_raw);
  // This pass keeps labels [lo, lo + span); the others are read and dropped.
  const std::uint32_t slice_size = 1u << shift, mask = slice_size - 1, span = slice_size * cluster.num_blocks();
  for (std::uint32_t i = threadIdx.x; i < slice_size; i += blockDim.x) slice[i] = Op::identity();
  cluster.sync();  // every slice is initialised before any block updates it

  auto update = [&](std::uint32_t label, T v) {
    label -= lo;  // wraps above span for labels below lo
    if (label >= span) return;
    T* owner = cluster.map_shared_rank(slice, label >> shift);
    atomic_apply<Op>(owner + (label & mask), v);
  };
  const int lane = threadIdx.x & 31;
  const std::int64_t quads = n / 4;
  const std::int64_t warp = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) / 32;
  const std::int64_t warps = std::int64_t(gridDim.x) * blockDim.x / 32;
  for (std::int64_t base = warp * 64; base < quads; base += warps * 64) {
    const std::int64_t q0 = base + lane, q1 = base + 32 + lane;
    Quad<T> a{}, b{};
    if (q0 < quads) a = src.quad(q0);
    if (q1 < quads) b = src.quad(q1);
    auto step = [&](std::uint32_t label, T v, bool valid) {
      if constexpr (folds_equal_labels<Op>()) return warp_folded_update<Op>(label, v, valid, update);  // CAS loops: fold equal labels
      // A warp of equal labels (degenerate, hot zipf labels) would serialise 32 remote atomics
      // on one address: reduce first, update once.
      const std::uint32_t first = __shfl_sync(0xffffffffu, label, 0);
      if (__all_sync(0xffffffffu, valid && label == first && label - lo < span)) {
#pragma unroll
        for (int off = 16; off > 0; off /= 2) v = Op::apply(v, shfl_down(v, off));
        if (lane == 0) update(label, v);
      } else if (valid) {
        update(label, v);  // drops labels outside this pass
      }
    };
#pragma unroll
    for (int k = 0; k < 4; ++k) step(a.label[k], a.value[k], q0 < quads);
#pragma unroll
    for (int k = 0; k < 4; ++k) step(b.label[k], b.value[k], q1 < quads);
  }
  if (blockIdx.x == 0 && threadIdx.x < n - quads * 4) update(src.label(quads * 4 + threadIdx.x), src.value(quads * 4 + threadIdx.x));
  cluster.sync();  // all updates to this block's slice are done (and no block leaves while others write to it)

  // This cluster's set, slice by slice, into the set-major partials (one row per cluster).
  const std::int64_t row = std::int64_t(blockIdx.x / cluster.num_blocks()) * m;
  const std::uint32_t first_label = lo + (cluster.block_rank() << shift);
  for (std::uint32_t i = threadIdx.x; i < slice_size && first_label + i < m; i += blockDim.x) partials[row + first_label + i] = slice[i];
}

// Fills the launch configuration of a cluster kernel for plan `p` and returns how many clusters
// are resident at once (the grid is one wave of them; the kernel strides over the input). The
// opt-ins and the occupancy query are remembered per (device, kernel, cluster, threads, smem) by
// the launch cache: a host call inside the timed region would count as GPU time. Shared with the
// histogram study.
template <class Kernel>
int cluster_wave(Kernel kernel, const ClusterPlan& p, cudaLaunchConfig_t& cfg, cudaLaunchAttribute* attr) {
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = p.cluster, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
  cfg.blockDim = dim3(p.threads);
  cfg.dynamicSmemBytes = p.smem;
  cfg.attrs = attr;
  cfg.numAttrs = 1;
  return lp::max_active_clusters(kernel, p.cluster, p.threads, p.smem);
}

template <class Op, class Src = PairSource<typename Op::value_type>>
int cluster_grid(const ClusterPlan& p, cudaLaunchConfig_t& cfg, cudaLaunchAttribute* attr) {
  return cluster_wave(cluster_privatized_kernel<Op, Src>, p, cfg, attr);
}

template <class T>
std::size_t cluster_privatized_scratch_bytes(std::uint32_t m, int clusters) {
  return std::size_t(clusters) * m * sizeof(T);
}

// Clusters resident at once for this (m, tuning) and source: the rows of the partials.
template <class Op, class Src = PairSource<typename Op::value_type>>
int cluster_privatized_sets(std::uint32_t m, const Tuning& t) {
  ClusterPlan p = cluster_plan<typename Op::value_type>(m, t);
  if (!p.cluster) return 0;
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr[1];
  return cluster_grid<Op, Src>(p, cfg, attr);
}

// Over any source (common.cuh).
template <class Op, class Src>
void cluster_privatized(const Src& src, std::int64_t n, std::uint32_t m, typename Op::value_type* out, void* scratch,
                        std::size_t scratch_bytes, const Tuning& t, cudaStream_t s) {
  using T = typename Op::value_type;
  ClusterPlan p = cluster_plan<T>(m, t);
  if (!p.cluster) throw std::invalid_argument("cluster_privatized: the bucket set does not fit in a cluster");
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr[1];
  int clusters = cluster_grid<Op, Src>(p, cfg, attr);
  if (cluster_privatized_scratch_bytes<T>(m, clusters) > scratch_bytes) throw std::invalid_argument("cluster_privatized: scratch too small");
  cfg.gridDim = dim3(clusters * p.cluster);
  cfg.stream = s;
  const std::uint32_t span = std::uint32_t(p.cluster) << p.shift;
  for (int pass = 0; pass < p.passes; ++pass) {
    LP_CUDA(cudaLaunchKernelEx(&cfg, cluster_privatized_kernel<Op, Src>, src, n, m, p.shift, std::uint32_t(pass) * span,
                               static_cast<T*>(scratch)));
    LP_CUDA_LAUNCH("cluster_privatized_kernel");
  }
  reduce_columns<Op>(static_cast<T*>(scratch), clusters, m, out, s);
}

template <class Op>
void cluster_privatized(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                        typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, const Tuning& t, cudaStream_t s) {
  cluster_privatized<Op>(PairSource<typename Op::value_type>{labels, values}, n, m, out, scratch, scratch_bytes, t, s);
}

}  // namespace lp::multireduce
