// Thesis 5.3 and Appendix B (Fig B.2): the sequential multiscan (Alg 2.3) per thread inside the
// partitioning scheme (Alg 5.2), each thread's bucket set in shared memory (bucket b of thread t at
// b * nThreads + t, as in 4.3.6), written to global memory as the segment's partials at the end.
#pragma once
#include "../multireduce/shared_perthread.cuh"
#include "seq_global.cuh"

namespace lp::multiscan {

template <class Op, multireduce::Tuning::Transpose S>
__global__ void __launch_bounds__(1024) seq_shared_kernel(const std::uint32_t* __restrict__ labels,
                                                          const typename Op::value_type* __restrict__ values, std::int64_t n,
                                                          std::uint32_t m, std::int64_t seg_len, int n_items, bool inclusive,
                                                          typename Op::value_type* out, typename Op::value_type* partials) {
  using T = typename Op::value_type;
  extern __shared__ __align__(16) unsigned char seq_shared_smem[];
  const int nt = blockDim.x, t = threadIdx.x;
  const int stride = multireduce::transpose_stride(S, n_items);
  T* sets = reinterpret_cast<T*>(seq_shared_smem);
  T* stage_values = sets + std::size_t(m) * nt;
  std::uint32_t* stage_labels = reinterpret_cast<std::uint32_t*>(stage_values + stride * nt);
  for (std::uint32_t b = 0; b < m; ++b) sets[b * nt + t] = Op::identity();
  const multireduce::SegmentTransposer<S> tr(std::int64_t(blockIdx.x) * nt * seg_len, seg_len, n, n_items);
  scan_segment_in_order<Op>(tr, labels, values, out, stage_labels, stage_values, sets + t, nt, inclusive);
  const std::int64_t total = std::int64_t(gridDim.x) * nt;
  T* mine = partials + std::int64_t(blockIdx.x) * nt + t;
  for (std::uint32_t b = 0; b < m; ++b) mine[b * total] = sets[b * nt + t];  // coalesced across the warp
}

// Grid and shared-memory budget as the multireduce's shared_perthread (transposed form): the
// staging buffer of the values doubles as the results' one, so the footprint is the same.
inline std::string seq_shared_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  return multireduce::shared_perthread_detail::grid(n, m, value_bytes, t, true).why;
}

template <class T>
std::size_t seq_shared_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  const auto g = multireduce::shared_perthread_detail::grid(n, m, sizeof(T), t, true);
  return align256(std::size_t(g.sets()) * m * sizeof(T)) + partition_scratch_bytes(g.sets(), m, sizeof(T));
}

template <class Op>
void seq_shared(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                typename Op::value_type* out, void* scratch, const Tuning& t, cudaStream_t stream) {
  using T = typename Op::value_type;
  const auto g = multireduce::shared_perthread_detail::grid(n, m, sizeof(T), t, true);
  T* partials = static_cast<T*>(scratch);
  void* rest = static_cast<char*>(scratch) + align256(std::size_t(g.sets()) * m * sizeof(T));
  dispatch_transpose(t.transpose, [&](auto s) {
    constexpr auto S = decltype(s)::value;
    auto kernel = seq_shared_kernel<Op, S>;
    lp::allow_dynamic_shared(kernel, g.smem);
    kernel<<<g.blocks, g.threads, g.smem, stream>>>(labels, values, n, m, g.seg_len, g.n_items, inclusive, out, partials);
    LP_CUDA_LAUNCH("seq_shared_kernel");
  });
  partition_finish<Op>(labels, out, n, g.seg_len, partials, PartialsLayout::bucket_major(g.sets(), m), rest, t.partials_switch, stream);
}

}  // namespace lp::multiscan
