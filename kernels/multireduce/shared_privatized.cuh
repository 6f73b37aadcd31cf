// Beyond the thesis: per-block bucket sets in shared memory, replicated R ways (R = 32 is the
// thesis's per-bank layout of Alg 4.10/Fig 4.14 with every lane on its own bank), fed by 16-byte
// loads, with a whole-warp aggregation of equal labels where copies are shared; where one set
// exceeds a block's shared memory, P blocks read the same inputs and each keeps a 1/P label window
// (the multi-pass idea of 4.3.6 run in parallel: the repeated reads hit L2, not DRAM).
// Commutative only.
#pragma once
#include "common.cuh"

namespace lp::multireduce {

struct SharedPrivatizedPlan {
  int copies = 0;          // R: replicas of the bucket set; lanes l and l+R share one (0: does not fit)
  int parts = 1;           // P: label windows; blocks b and b+1.. b+P-1 read the same inputs
  std::uint32_t span = 0;  // labels per window
  int threads = 0;
  int blocks = 0;          // a multiple of P
  std::size_t smem = 0;    // bytes per block
  bool partials = false;   // flush through set-major partials (+ reduce_columns) instead of atomics
};

constexpr int kMaxParts = 4;  // beyond 4 windows the repeated reads cost more than L2 atomics

// The largest R (<= 32) whose replicas fit, two blocks per SM where the bucket set allows
// (2 x 1024 threads fill an SM), one block with all of shared memory otherwise, and windows of
// the labels where even that is too small.
template <class T>
SharedPrivatizedPlan shared_privatized_plan(std::int64_t n, std::uint32_t m, const Tuning& t) {
  SharedPrivatizedPlan p;
  const std::size_t budget2 = 112 * 1024, max1 = max_shared_per_block();
  while (p.parts <= kMaxParts && ceil_div(m, p.parts) * sizeof(T) > max1) p.parts *= 2;
  if (p.parts > kMaxParts) return p;
  p.span = static_cast<std::uint32_t>(ceil_div(m, p.parts));
  const std::size_t set = std::size_t(p.span) * sizeof(T);
  int per_sm = set <= budget2 ? 2 : 1;
  if (t.blocks_per_sm > 0) per_sm = t.blocks_per_sm;
  const std::size_t budget = per_sm >= 2 ? std::min(budget2, max1 / per_sm) : max1;
  if (set > budget) return p;
  p.copies = 1;
  while (p.copies < 32 && 2 * p.copies * set <= budget) p.copies *= 2;
  p.threads = t.threads > 0 ? t.threads : 1024;
  p.blocks = grid_for(ceil_div(n, 4), p.threads, per_sm) / p.parts * p.parts;
  if (p.blocks == 0) p.blocks = p.parts;
  p.smem = p.copies * set;
  p.partials = p.parts > 1 || std::int64_t(p.blocks) * m > (std::int64_t(1) << 17);
  return p;
}

template <class T>
std::size_t shared_privatized_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  auto p = shared_privatized_plan<T>(n, m, t);
  return p.partials ? std::size_t(p.blocks / p.parts) * m * sizeof(T) : 0;
}

// `local` is the label minus the window's first label; outside the window (wrapped above span)
// the input belongs to another block.
template <class Op, int R>
__device__ __forceinline__ void privatized_update(typename Op::value_type* sb, std::uint32_t local, typename Op::value_type v, int copy) {
  atomic_apply<Op>(sb + std::size_t(local) * R + copy, v);
}

// Lanes sharing a copy (R < 32) that update the same bucket in one instruction are serialised;
// the worst case (every label equal) is common (degenerate, hot zipf labels), so a warp whose 32
// labels are equal reduces its values first and updates once. Where the update is a
// compare-and-swap loop (float sums, 64-bit, the decimal study's own atomics), whose retries a hot
// label multiplies (float sums over zipf 2.7: 0.24 ms against sort_shared's 0.085), the lanes of a
// repeated label fold first (hot_aggregated_update, common.cuh; values of up to 8 bytes, where the
// fold costs no spills: folds_equal_labels); native 32-bit integer atomics
// serialise cheaply, and those rounds cost them 13% on spread labels (int32 add at m = 1024-4096, 2^26
// inputs). R = 32 needs no such check: every lane has its own copy.
template <class Op, int R>
__device__ __forceinline__ void privatized_warp_update(typename Op::value_type* sb, std::uint32_t local, typename Op::value_type v,
                                                       bool valid, int copy) {
  using T = typename Op::value_type;
  if constexpr (R < 32 && folds_equal_labels<Op>()) {
    hot_aggregated_update<Op>(local, v, valid, [&](std::uint32_t key, T x) { privatized_update<Op, R>(sb, key, x, copy); });
    return;
  } else if constexpr (R < 32) {
    const std::uint32_t first = __shfl_sync(0xffffffffu, local, 0);
    if (__all_sync(0xffffffffu, valid && local == first)) {
#pragma unroll
      for (int off = 16; off > 0; off /= 2) v = Op::apply(v, shfl_down(v, off));
      if ((threadIdx.x & 31) == 0) atomic_apply<Op>(sb + std::size_t(local) * R, v);
      return;
    }
  }
  if (valid) privatized_update<Op, R>(sb, local, v, copy);
}

template <class Op, int R, bool kPartials, class Src>
__global__ void __launch_bounds__(1024) shared_privatized_kernel(const Src src, std::int64_t n, std::uint32_t m, int parts,
                                                                 std::uint32_t span, typename Op::value_type* out,
                                                                 typename Op::value_type* partials) {
  using T = typename Op::value_type;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* sb = reinterpret_cast<T*>(smem_raw);
  for (std::int64_t i = threadIdx.x; i < std::int64_t(span) * R; i += blockDim.x) sb[i] = Op::identity();
  __syncthreads();

  const int lane = threadIdx.x & 31, copy = lane % R;
  const std::uint32_t chunk = blockIdx.x / parts, lo = (blockIdx.x % parts) * span;
  const std::int64_t quads = n / 4;
  const std::int64_t warp = (chunk * std::int64_t(blockDim.x) + threadIdx.x) / 32;
  const std::int64_t warps = std::int64_t(gridDim.x / parts) * blockDim.x / 32;
  // Warp-uniform trip count (so the whole-warp votes are legal): each step covers 64 quads, two
  // per lane loaded before either is used, to keep two 16-byte requests per array in flight.
  for (std::int64_t base = warp * 64; base < quads; base += warps * 64) {
    const std::int64_t q0 = base + lane, q1 = base + 32 + lane;
    Quad<T> a{}, b{};
    if (q0 < quads) a = src.quad(q0);
    if (q1 < quads) b = src.quad(q1);
    // Runs of equal labels (degenerate, sorted, hot zipf labels) cost one update per thread for
    // its 8 inputs where every lane has one; 64-bit and float atomics, slow when they pile up on
    // one address, gain most.
    bool run = q1 < quads;
#pragma unroll
    for (int k = 1; k < 4; ++k) run = run && a.label[k] == a.label[0];
#pragma unroll
    for (int k = 0; k < 4; ++k) run = run && b.label[k] == a.label[0];
    if (__all_sync(0xffffffffu, run)) {
      T v = Op::apply(Op::apply(Op::apply(a.value[0], a.value[1]), Op::apply(a.value[2], a.value[3])),
                      Op::apply(Op::apply(b.value[0], b.value[1]), Op::apply(b.value[2], b.value[3])));
      privatized_warp_update<Op, R>(sb, a.label[0] - lo, v, a.label[0] - lo < span, copy);
      continue;
    }
#pragma unroll
    for (int k = 0; k < 4; ++k) privatized_warp_update<Op, R>(sb, a.label[k] - lo, a.value[k], q0 < quads && a.label[k] - lo < span, copy);
#pragma unroll
    for (int k = 0; k < 4; ++k) privatized_warp_update<Op, R>(sb, b.label[k] - lo, b.value[k], q1 < quads && b.label[k] - lo < span, copy);
  }
  // The last n mod 4 inputs, by the first chunk's blocks.
  if (chunk == 0 && threadIdx.x < n - quads * 4) {
    const std::int64_t i = quads * 4 + threadIdx.x;
    if (src.label(i) - lo < span) privatized_update<Op, R>(sb, src.label(i) - lo, src.value(i), copy);
  }
  __syncthreads();

  for (std::uint32_t b = threadIdx.x; b < span && lo + b < m; b += blockDim.x) {
    T acc = sb[std::size_t(b) * R];
#pragma unroll 4
    for (int r = 1; r < R; ++r) acc = Op::apply(acc, sb[std::size_t(b) * R + r]);
    if constexpr (kPartials)
      partials[std::int64_t(chunk) * m + lo + b] = acc;
    else if (!(acc == Op::identity()))  // untouched buckets need no atomic
      atomic_apply<Op>(out + b, acc);
  }
}

template <class Op, int R, class Src>
void shared_privatized_launch(const SharedPrivatizedPlan& p, const Src& src, std::int64_t n, std::uint32_t m,
                              typename Op::value_type* out, void* scratch, cudaStream_t s) {
  using T = typename Op::value_type;
  auto run = [&](auto kernel) {
    // Keyed on the kernel's address: the two instances (partials or not) share one type, and a
    // limit remembered per type once let one launch without its opt-in.
    lp::allow_dynamic_shared(kernel, p.smem);
    kernel<<<p.blocks, p.threads, p.smem, s>>>(src, n, m, p.parts, p.span, out, static_cast<T*>(scratch));
    LP_CUDA_LAUNCH("shared_privatized_kernel");
  };
  if (p.partials) {
    run(shared_privatized_kernel<Op, R, true, Src>);
    reduce_columns<Op>(static_cast<T*>(scratch), p.blocks / p.parts, m, out, s);
  } else {
    fill(out, m, Op::identity(), s);
    run(shared_privatized_kernel<Op, R, false, Src>);
  }
}

// Launcher over any source (common.cuh). Throws when even kMaxParts windows do not fit (the study
// refuses such m first).
template <class Op, class Src>
void shared_privatized(const Src& src, std::int64_t n, std::uint32_t m, typename Op::value_type* out, void* scratch, const Tuning& t,
                       cudaStream_t s) {
  const auto p = shared_privatized_plan<typename Op::value_type>(n, m, t);
  switch (p.copies) {
    case 32: return shared_privatized_launch<Op, 32>(p, src, n, m, out, scratch, s);
    case 16: return shared_privatized_launch<Op, 16>(p, src, n, m, out, scratch, s);
    case 8: return shared_privatized_launch<Op, 8>(p, src, n, m, out, scratch, s);
    case 4: return shared_privatized_launch<Op, 4>(p, src, n, m, out, scratch, s);
    case 2: return shared_privatized_launch<Op, 2>(p, src, n, m, out, scratch, s);
    case 1: return shared_privatized_launch<Op, 1>(p, src, n, m, out, scratch, s);
    default: throw std::invalid_argument("shared_privatized: the bucket set does not fit in shared memory");
  }
}

template <class Op>
void shared_privatized(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                       typename Op::value_type* out, void* scratch, const Tuning& t, cudaStream_t s) {
  shared_privatized<Op>(PairSource<typename Op::value_type>{labels, values}, n, m, out, scratch, t, s);
}

}  // namespace lp::multireduce
