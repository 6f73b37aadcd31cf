// Thesis 5.3 and Appendix B (Fig B.1): the sequential multiscan (Alg 2.3) per thread inside the
// partitioning scheme (Alg 5.2), each thread's bucket set in global memory: the non-commutative
// multireduce of 4.3.5 (Alg 4.8 with the transpositions of Alg 4.5-4.7) plus the result writes.
#pragma once
#include "../multireduce/global_noncomm.cuh"
#include "partition.cuh"

namespace lp::multiscan {

// Thread g (of `sets` in the grid) scans its contiguous segment in order with its buckets at
// buckets[b * bucket_stride]: items are staged through shared memory (coalesced loads), each
// result replaces its value in the staging buffer, and the buffer goes back out coalesced.
template <class Op, multireduce::Tuning::Transpose S>
__device__ void scan_segment_in_order(const multireduce::SegmentTransposer<S>& tr, const std::uint32_t* __restrict__ labels,
                                      const typename Op::value_type* __restrict__ values, typename Op::value_type* __restrict__ out,
                                      std::uint32_t* stage_labels, typename Op::value_type* stage_values,
                                      typename Op::value_type* buckets, std::int64_t bucket_stride, bool inclusive) {
  for (std::int64_t step = 0; tr.block_has(step); step += tr.n_items) {
    tr.stage(labels, stage_labels, step);
    tr.stage(values, stage_values, step);
    __syncthreads();
    const int c = tr.count(step);
    for (int k = 0; k < c; ++k) {
      const int slot = tr.slot(k);
      typename Op::value_type& b = buckets[std::int64_t(stage_labels[slot]) * bucket_stride];
      stage_values[slot] = scan_step<Op>(b, stage_values[slot], inclusive);
    }
    __syncthreads();
    unstage(tr, stage_values, out, step);
    __syncthreads();  // the next stage overwrites the buffers
  }
}

template <class Op, multireduce::Tuning::Transpose S>
__global__ void __launch_bounds__(1024) seq_global_kernel(const std::uint32_t* __restrict__ labels,
                                                          const typename Op::value_type* __restrict__ values, std::int64_t n,
                                                          std::uint32_t m, std::int64_t seg_len, int n_items, bool inclusive,
                                                          typename Op::value_type* out, typename Op::value_type* buckets) {
  using T = typename Op::value_type;
  extern __shared__ __align__(16) unsigned char seq_global_smem[];
  const int stride = multireduce::transpose_stride(S, n_items);
  T* stage_values = reinterpret_cast<T*>(seq_global_smem);
  std::uint32_t* stage_labels = reinterpret_cast<std::uint32_t*>(stage_values + stride * blockDim.x);
  const std::int64_t sets = std::int64_t(gridDim.x) * blockDim.x;
  T* mine = buckets + std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  for (std::uint32_t b = 0; b < m; ++b) mine[b * sets] = Op::identity();  // coalesced across the warp
  const multireduce::SegmentTransposer<S> tr(std::int64_t(blockIdx.x) * blockDim.x * seg_len, seg_len, n, n_items);
  scan_segment_in_order<Op>(tr, labels, values, out, stage_labels, stage_values, mine, sets, inclusive);
}

// Calls f(std::integral_constant<Transpose, S>) for the scheme chosen at run time.
template <class F>
void dispatch_transpose(multireduce::Tuning::Transpose scheme, F&& f) {
  using Tr = multireduce::Tuning::Transpose;
  switch (scheme) {
    case Tr::Padded: return f(std::integral_constant<Tr, Tr::Padded>{});
    case Tr::Segment: return f(std::integral_constant<Tr, Tr::Segment>{});
    case Tr::Baxter: return f(std::integral_constant<Tr, Tr::Baxter>{});
  }
}

// The grid and the bucket sets are the multireduce's (global_noncomm): the same DRAM limit on the
// number of threads for large m.
inline std::string seq_global_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  return multireduce::global_noncomm_detail::grid(n, m, value_bytes, t).why;
}

template <class T>
std::size_t seq_global_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  const auto g = multireduce::global_noncomm_detail::grid(n, m, sizeof(T), t);
  return align256(std::size_t(g.sets()) * m * sizeof(T)) + partition_scratch_bytes(g.sets(), m, sizeof(T));
}

template <class Op>
void seq_global(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                typename Op::value_type* out, void* scratch, const Tuning& t, cudaStream_t stream) {
  using T = typename Op::value_type;
  const auto g = multireduce::global_noncomm_detail::grid(n, m, sizeof(T), t);
  T* buckets = static_cast<T*>(scratch);
  void* rest = static_cast<char*>(scratch) + align256(std::size_t(g.sets()) * m * sizeof(T));
  dispatch_transpose(t.transpose, [&](auto s) {
    constexpr auto S = decltype(s)::value;
    const std::size_t smem = multireduce::transpose_buffer_bytes<T>(S, g.n_items, g.threads) +
                             multireduce::transpose_buffer_bytes<std::uint32_t>(S, g.n_items, g.threads);
    auto kernel = seq_global_kernel<Op, S>;
    lp::allow_dynamic_shared(kernel, smem);
    kernel<<<g.blocks, g.threads, smem, stream>>>(labels, values, n, m, g.seg_len, g.n_items, inclusive, out, buckets);
    LP_CUDA_LAUNCH("seq_global_kernel");
  });
  partition_finish<Op>(labels, out, n, g.seg_len, buckets, PartialsLayout::bucket_major(g.sets(), m), rest, t.partials_switch, stream);
}

}  // namespace lp::multiscan
