// Thesis 5.4 (Figs 5.4, 5.5): Sheffler's multiscan per segment of side^2 inputs (side threads per
// block: spinetree, rowsum, spinesum and multisum phases, a barrier after every step as the PRAM
// algorithm needs), inside the partitioning scheme (Alg 5.2). The spinerecs live in global memory
// (5.4.2) or shared memory (5.4.3); labels and values are staged in shared memory (the thesis's
// one improvement) where they fit. Published and corrected forms: see sheffler_steps.hpp.
#pragma once
#include "partition.cuh"
#include "sheffler_steps.hpp"

namespace lp::multiscan {

namespace sheffler_detail {

constexpr int kDefaultSideGlobal = 16;  // the thesis's best (Fig 5.4): segments of 256 inputs
constexpr int kDefaultSideShared = 32;  // the thesis's choice that leaves room for buckets (5.4.3)
constexpr std::size_t kMaxPartialBytes = std::size_t(4) << 30;

template <class T>
constexpr std::size_t rec_bytes() { return 2 * sizeof(T) + sizeof(std::uint32_t) + 1; }

// Bytes of one block's spinerecs, rounded up so that every block's arrays stay aligned.
template <class T>
__host__ __device__ constexpr std::size_t recs_bytes(std::size_t count) { return (count * rec_bytes<T>() + 15) & ~std::size_t(15); }

struct Plan {
  int side = 0, blocks = 0;
  std::int64_t segs = 0;
  std::size_t smem = 0;          // dynamic shared memory per block
  bool staged = false;           // labels and values in shared memory
  std::size_t global_recs = 0;   // spinerecs per block in global memory (0: in shared memory)
  std::string why;
};

template <class T>
Plan plan(std::int64_t n, std::uint32_t m, const Tuning& t, bool shared) {
  Plan p;
  p.side = t.side > 0 ? t.side : shared ? kDefaultSideShared : kDefaultSideGlobal;
  if (p.side > 1024) {
    p.why = "side = " + std::to_string(p.side) + ": more than 1024 threads per block";
    return p;
  }
  const std::size_t nodes = std::size_t(p.side) * p.side, have = multireduce::max_shared_per_block();
  p.segs = ceil_div(std::max<std::int64_t>(n, 1), std::int64_t(nodes));
  const std::size_t stage = nodes * (sizeof(std::uint32_t) + sizeof(T));
  const std::size_t recs = recs_bytes<T>(nodes + m);
  if (shared) {
    p.staged = recs + stage <= have;
    p.smem = recs + (p.staged ? stage : 0);
    if (recs > have)
      p.why = std::to_string(nodes) + " nodes and " + std::to_string(m) + " buckets need " + std::to_string(recs) +
              " B of spinerecs in shared memory; a block has " + std::to_string(have) + " B";
  } else {
    p.staged = stage <= have;
    p.smem = p.staged ? stage : 0;
    p.global_recs = nodes + m;
  }
  if (std::size_t(p.segs) * m * sizeof(T) > kMaxPartialBytes)
    p.why = std::to_string(p.segs) + " segments' partials of " + std::to_string(m) + " buckets exceed " +
            std::to_string(kMaxPartialBytes >> 30) + " GiB (a longer segment, i.e. a larger side, needs fewer)";
  const int per_sm = t.blocks_per_sm > 0 ? t.blocks_per_sm : std::max(1, std::min(32, 2048 / p.side));
  p.blocks = int(std::min<std::int64_t>(p.segs, std::int64_t(multireduce::sm_count()) * per_sm));
  if (p.global_recs && std::size_t(p.blocks) * recs_bytes<T>(p.global_recs) > kMaxPartialBytes)
    p.why = "the blocks' spinerecs exceed " + std::to_string(kMaxPartialBytes >> 30) + " GiB of global memory";
  return p;
}

// Spinerecs of `count` records carved from `base` (SoA: rowsums, spinesums, spines, flags).
template <class T>
__host__ __device__ SpineRecs<T> carve_recs(unsigned char* base, std::size_t count, std::uint32_t nodes) {
  SpineRecs<T> r;
  r.rowsum = reinterpret_cast<T*>(base);
  r.spinesum = r.rowsum + count;
  r.spine = reinterpret_cast<std::uint32_t*>(r.spinesum + count);
  r.has_child = reinterpret_cast<std::uint8_t*>(r.spine + count);
  r.nodes = nodes;
  return r;
}

// One block per segment at a time (grid-stride over segments). `recs_global` is null for the
// shared-memory form, else this grid's spinerecs (block b's at b * (nodes + m) records).
template <class Op, bool Published>
__global__ void __launch_bounds__(1024) sheffler_kernel(const std::uint32_t* __restrict__ labels,
                                                        const typename Op::value_type* __restrict__ values, std::int64_t n,
                                                        std::uint32_t m, bool inclusive, bool staged, typename Op::value_type* out,
                                                        typename Op::value_type* partials, unsigned char* recs_global) {
  using T = typename Op::value_type;
  using Steps = ShefflerSteps<Op, Published>;
  extern __shared__ __align__(16) unsigned char sheffler_smem[];
  const std::uint32_t side = blockDim.x, t = threadIdx.x, nodes = side * side;
  const std::size_t count_recs = std::size_t(nodes) + m;
  unsigned char* stage_at = sheffler_smem;
  SpineRecs<T> r;
  if (recs_global) {
    r = carve_recs<T>(recs_global + std::size_t(blockIdx.x) * recs_bytes<T>(count_recs), count_recs, nodes);
  } else {
    r = carve_recs<T>(sheffler_smem, count_recs, nodes);
    stage_at = sheffler_smem + recs_bytes<T>(count_recs);
  }
  T* stage_values = reinterpret_cast<T*>(stage_at);
  std::uint32_t* stage_labels = reinterpret_cast<std::uint32_t*>(stage_values + nodes);
  const std::int64_t segs = ceil_div(n, nodes);
  for (std::int64_t seg = blockIdx.x; seg < segs; seg += gridDim.x) {
    const std::int64_t first = seg * nodes;
    const std::uint32_t count = std::uint32_t(std::min<std::int64_t>(nodes, n - first));
    const std::uint32_t* lab = labels + first;
    const T* val = values + first;
    if (staged) {
      for (std::uint32_t i = t; i < count; i += side) stage_labels[i] = lab[i], stage_values[i] = val[i];
      lab = stage_labels, val = stage_values;
    }
    for (std::uint32_t b = t; b < m; b += side) Steps::reset_bucket(r, b);
    __syncthreads();
    for (std::uint32_t i = t; i < count; i += side) Steps::init_node(r, lab[i], i);
    __syncthreads();
    // Spinetree: rows from the top down, thread t takes column t.
    for (int row = int(side) - 1; row >= 0; --row) {
      const std::uint32_t i = std::uint32_t(row) * side + t;
      if (i < count) Steps::spinetree_read(r, lab[i], i);
      __syncthreads();
      if (i < count) Steps::spinetree_write(r, lab[i], i);
      __syncthreads();
    }
    // Rowsum: columns left to right, thread t takes row t.
    for (std::uint32_t c = 0; c < side; ++c) {
      const std::uint32_t i = t * side + c;
      if (i < count) Steps::rowsum(r, val[i], i);
      __syncthreads();
    }
    // Spinesum: rows from the bottom up, thread t takes column t.
    for (std::uint32_t row = 0; row < side; ++row) {
      const std::uint32_t i = row * side + t;
      if (i < count) Steps::spinesum(r, i);
      __syncthreads();
    }
    // Multisum: columns left to right, thread t takes row t.
    for (std::uint32_t c = 0; c < side; ++c) {
      const std::uint32_t i = t * side + c;
      if (i < count) out[first + i] = Steps::multisum(r, val[i], i, inclusive);
      __syncthreads();
    }
    // The buckets' spinesums are now the segment's totals per label: its row of partials.
    for (std::uint32_t b = t; b < m; b += side) partials[seg * m + b] = r.spinesum[nodes + b];
    __syncthreads();  // the next segment resets the buckets and restages
  }
}

}  // namespace sheffler_detail

template <class T>
std::string sheffler_unsupported(std::int64_t n, std::uint32_t m, const Tuning& t, bool shared) {
  return sheffler_detail::plan<T>(n, m, t, shared).why;
}

template <class T>
std::size_t sheffler_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t, bool shared) {
  using namespace sheffler_detail;
  const Plan p = plan<T>(n, m, t, shared);
  return align256(std::size_t(p.segs) * m * sizeof(T)) + align256(p.global_recs ? std::size_t(p.blocks) * recs_bytes<T>(p.global_recs) : 0) +
         partition_scratch_bytes(p.segs, m, sizeof(T));
}

template <class Op, bool Published>
void sheffler(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
              bool shared, typename Op::value_type* out, void* scratch, const Tuning& t, cudaStream_t stream) {
  using namespace sheffler_detail;
  using T = typename Op::value_type;
  const Plan p = plan<T>(n, m, t, shared);
  char* at = static_cast<char*>(scratch);
  T* partials = reinterpret_cast<T*>(at);
  at += align256(std::size_t(p.segs) * m * sizeof(T));
  unsigned char* recs = p.global_recs ? reinterpret_cast<unsigned char*>(at) : nullptr;
  at += align256(p.global_recs ? std::size_t(p.blocks) * recs_bytes<T>(p.global_recs) : 0);
  auto kernel = sheffler_kernel<Op, Published>;
  lp::allow_dynamic_shared(kernel, p.smem);
  kernel<<<p.blocks, p.side, p.smem, stream>>>(labels, values, n, m, inclusive, p.staged, out, partials, recs);
  LP_CUDA_LAUNCH("sheffler_kernel");
  const std::int64_t seg_len = std::int64_t(p.side) * p.side;
  partition_finish<Op>(labels, out, n, seg_len, partials, PartialsLayout::segment_major(p.segs, m), at, t.partials_switch, stream);
}

}  // namespace lp::multiscan
