// Thesis 4.5.1 "Scatter with sorting" (and Alg 2.6's sorted gather on the GPU): a partial radix sort
// of the pairs by the top sortBits label bits (the shared partial sort, CUB's stable radix sort),
// then the scatter (gather) sweeping the sorted pairs with a common front, so the buckets in use at
// any time are few (the thesis's strided variant, log2 m - sortBits <= 9). Sorting by every bit
// and writing only the last input of each label's run makes the scatter strict (the CUB peer).
#pragma once
#include "../common/partial_sort.cuh"
#include "common.cuh"
#include "wide.cuh"

namespace lp::scatter {

namespace sorted_detail {
// Strict: after a stable sort by all label bits, a label's last input ends its run.
template <class W>
__global__ void last_of_run_kernel(const std::uint32_t* __restrict__ keys, const W* __restrict__ values, std::int64_t n, W* __restrict__ out) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    if (i + 1 == n || keys[i + 1] != keys[i]) out[keys[i]] = values[i];
}

// Gather in sorted label order, each result written back to its input position.
template <class W>
__global__ void permute_gather_kernel(const std::uint32_t* __restrict__ keys, const std::uint32_t* __restrict__ pos, const W* __restrict__ table,
                                      std::int64_t n, W* __restrict__ out) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    out[pos[i]] = __ldg(table + keys[i]);
}

template <int = 0>  // a template: header-defined kernels stay one definition per program
__global__ void iota_kernel(std::uint32_t* __restrict__ out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = std::uint32_t(i);
}

inline int full_bits(std::uint32_t m) { return label_bits(m); }
}  // namespace sorted_detail

// The sorted bits of 4.5.1 at m buckets: the knob, else as many as leave 2^18 buckets per sorted
// segment (1 MiB of 4-byte buckets; with the common front the segments in use stay in the L2), at
// most 8 (one pass of CUB's radix sort). 0 below 2^18 buckets: there the buckets fit the L2 anyway.
inline int sorted_bits(std::uint32_t m, const Tuning& t) {
  if (t.sort_bits > 0) return std::min(t.sort_bits, label_bits(m));
  return std::clamp(label_bits(m) - 18, 0, 8);
}

// Scratch of a sorted scatter/gather by `bits` label bits (bits 0: none, the plain sweep).
template <class W>
std::size_t sorted_scratch_bytes(bool gather, std::int64_t n, std::uint32_t m, int bits) {
  if (bits <= 0 || n <= 0) return 0;
  if (gather) return 3 * align256(std::size_t(n) * 4) + align256(partial_sort_temp_bytes<std::uint32_t>(n, m, bits));
  return align256(std::size_t(n) * 4) + align256(std::size_t(n) * sizeof(W)) + align256(partial_sort_temp_bytes<W>(n, m, bits));
}

// Sorts by `bits` top label bits, then scatters (any one wins; with `strict` and every bit sorted,
// the last of each run: exact) or gathers and puts each result back in input order.
template <class W>
void sorted(bool gather, bool strict, int bits, const std::uint32_t* labels, const W* values, std::int64_t n, std::uint32_t m, W* out,
            void* scratch, std::size_t scratch_bytes, const Tuning& t, cudaStream_t s) {
  if (n <= 0) return;
  const int grid = grid_for(n, t), threads = threads_of(t);
  if (bits <= 0 && strict && !gather) {  // m = 1 (no label bits): every label is 0, one run
    sorted_detail::last_of_run_kernel<W><<<grid, threads, 0, s>>>(labels, values, n, out);
    LP_CUDA_LAUNCH("last_of_run_kernel");
    return;
  }
  if (bits <= 0) return wide<W>(gather, labels, values, n, out, t, s);
  Carve c(scratch);
  auto* keys = c.take<std::uint32_t>(std::size_t(n));
  if (gather) {
    auto* iota = c.take<std::uint32_t>(std::size_t(n));
    auto* pos = c.take<std::uint32_t>(std::size_t(n));
    sorted_detail::iota_kernel<><<<grid, threads, 0, s>>>(iota, n);
    LP_CUDA_LAUNCH("iota_kernel");
    partial_sort_pairs<std::uint32_t>(c.rest(), scratch_bytes - c.used(), labels, keys, iota, pos, n, m,
                                      bits, s);
    sorted_detail::permute_gather_kernel<W><<<grid, threads, 0, s>>>(keys, pos, values, n, out);
    LP_CUDA_LAUNCH("permute_gather_kernel");
    return;
  }
  auto* vals = c.take<W>(std::size_t(n));
  partial_sort_pairs<W>(c.rest(), scratch_bytes - c.used(), labels, keys, values, vals, n, m, bits, s);
  if (strict) {
    sorted_detail::last_of_run_kernel<W><<<grid, threads, 0, s>>>(keys, vals, n, out);
    LP_CUDA_LAUNCH("last_of_run_kernel");
  } else {
    wide<W>(false, keys, vals, n, out, t, s);
  }
}

}  // namespace lp::scatter
