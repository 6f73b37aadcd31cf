// The first thing a CUDA programmer writes: one atomic per input on its bucket in global memory
// (the study's "global atomics" peer), and the same with a warp's equal labels aggregated (a warp of
// one label across steps, a hot label's lanes within one), which the `auto` variant uses where no
// bucket set fits on chip. Commutative only.
#pragma once
#include "common.cuh"

namespace lp::multireduce {

template <class Op, bool kAggregate, class Src>
__global__ void global_atomics_kernel(const Src src, std::int64_t n, typename Op::value_type* out) {
  using T = typename Op::value_type;
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const int lane = threadIdx.x & 31;
  // kAggregate: a warp whose 32 labels are equal reduces them, and lane 0 carries the sum from
  // step to step while the label stays the same (a run), so a degenerate or sorted input costs
  // one atomic per run and warp instead of 32 per step on one address.
  std::uint32_t run_label = 0xffffffffu;
  T run_value = Op::identity();
  // Warp-uniform trip count, so that the whole-warp vote is legal.
  for (std::int64_t base = blockIdx.x * std::int64_t(blockDim.x) + (threadIdx.x & ~31); base < n; base += stride) {
    const std::int64_t i = base + lane;
    const bool valid = i < n;
    const std::uint32_t label = valid ? src.label(i) : 0u;
    T v = valid ? src.value(i) : Op::identity();
    if constexpr (kAggregate) {
      const std::uint32_t first = __shfl_sync(0xffffffffu, label, 0);  // every lane, before the vote: a shuffle waits for all 32
      if (__all_sync(0xffffffffu, valid && label == first)) {
#pragma unroll
        for (int off = 16; off > 0; off /= 2) v = Op::apply(v, shfl_down(v, off));
        if (lane == 0) {
          if (label != run_label) {
            if (run_label != 0xffffffffu) atomic_apply<Op>(out + run_label, run_value);
            run_label = label, run_value = Op::identity();
          }
          run_value = Op::apply(run_value, v);
        }
        continue;
      }
    }
    if constexpr (kAggregate)
      hot_aggregated_update<Op>(label, v, valid, [&](std::uint32_t key, T x) { atomic_apply<Op>(out + key, x); });
    else if (valid)
      atomic_apply<Op>(out + label, v);
  }
  if (kAggregate && lane == 0 && run_label != 0xffffffffu) atomic_apply<Op>(out + run_label, run_value);
}

// Over any source (common.cuh).
template <class Op, bool kAggregate = false, class Src>
void global_atomics(const Src& src, std::int64_t n, std::uint32_t m, typename Op::value_type* out, cudaStream_t s) {
  fill(out, m, Op::identity(), s);
  global_atomics_kernel<Op, kAggregate, Src><<<grid_for(n, 256, 8), 256, 0, s>>>(src, n, out);
  LP_CUDA_LAUNCH("global_atomics_kernel");
}

template <class Op, bool kAggregate = false>
void global_atomics(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                    typename Op::value_type* out, cudaStream_t s) {
  global_atomics<Op, kAggregate>(PairSource<typename Op::value_type>{labels, values}, n, m, out, s);
}

}  // namespace lp::multireduce
