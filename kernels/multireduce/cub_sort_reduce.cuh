// The sort-based multireduce a user composes from CUB (the studies' peer): a radix sort of the
// pairs by the ceil(log2 m) label bits, cub::DeviceReduce::ReduceByKey, and the runs written to
// their buckets. Shared by the multireduce study and the decimal study (which sorts its products).
#pragma once
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>

#include <algorithm>
#include <cstdint>

#include "../common/carve.hpp"
#include "common.cuh"

namespace lp::multireduce {

// The operator as the binary functor CUB and Thrust take.
template <class Op>
struct OpFn {
  using T = typename Op::value_type;
  __host__ __device__ T operator()(const T& a, const T& b) const { return Op::apply(a, b); }
};

// Writes each run's aggregate to its bucket (buckets without inputs keep the identity).
template <class T>
__global__ void scatter_runs_kernel(const std::uint32_t* keys, const T* agg, const int* num_runs, std::uint32_t m, T* out) {
  const int runs = *num_runs;
  for (std::int64_t r = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; r < runs && r < m; r += std::int64_t(gridDim.x) * blockDim.x)
    out[keys[r]] = agg[r];
}

// The by-key pipeline's scratch, carved in this order from one allocation: sorted keys and
// values, run keys and aggregates, the run count, and the library's temporary storage (the rest).
template <class T>
struct ByKeyScratch {
  std::uint32_t* keys;
  T* vals;
  std::uint32_t* run_keys;
  T* run_vals;
  int* runs;
  void* temp;
  std::size_t temp_bytes;
  std::size_t pieces_bytes;  // everything before temp (with a null base: the sizes alone)
  ByKeyScratch(void* base, std::size_t bytes, std::int64_t n, std::uint32_t m) {
    lp::Carve c(base);
    keys = c.take<std::uint32_t>(std::size_t(n));
    vals = c.take<T>(std::size_t(n));
    run_keys = c.take<std::uint32_t>(m);
    run_vals = c.take<T>(m);
    runs = c.take<int>(64);
    temp = c.rest();
    pieces_bytes = c.used();
    temp_bytes = bytes > pieces_bytes ? bytes - pieces_bytes : 0;
  }
};

template <class Op>
std::size_t cub_sort_reduce_temp_bytes(std::int64_t n, std::uint32_t m) {
  using T = typename Op::value_type;
  std::size_t sort_bytes = 0, rbk_bytes = 0;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, (const std::uint32_t*)nullptr, (std::uint32_t*)nullptr,
                                          (const T*)nullptr, (T*)nullptr, n, 0, std::max(1, label_bits(m))));
  LP_CUDA(cub::DeviceReduce::ReduceByKey(nullptr, rbk_bytes, (const std::uint32_t*)nullptr, (std::uint32_t*)nullptr,
                                         (const T*)nullptr, (T*)nullptr, (int*)nullptr, OpFn<Op>{}, n));
  return std::max(sort_bytes, rbk_bytes);
}

template <class Op>
std::size_t cub_sort_reduce_scratch_bytes(std::int64_t n, std::uint32_t m) {
  return ByKeyScratch<typename Op::value_type>(nullptr, 0, n, m).pieces_bytes + lp::align256(cub_sort_reduce_temp_bytes<Op>(n, m));
}

template <class Op>
void scatter_runs(const ByKeyScratch<typename Op::value_type>& s, std::uint32_t m, typename Op::value_type* out, cudaStream_t st) {
  fill(out, m, Op::identity(), st);
  scatter_runs_kernel<<<grid_for(m, 256, 4), 256, 0, st>>>(s.run_keys, s.run_vals, s.runs, m, out);
  LP_CUDA_LAUNCH("scatter_runs_kernel");
}

// CUB: radix sort of the pairs by the ceil(log2 m) label bits (a user who knows m), reduce-by-key,
// runs written to their buckets.
template <class Op>
void cub_sort_reduce_by_key(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                            typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, cudaStream_t st) {
  const ByKeyScratch<typename Op::value_type> s(scratch, scratch_bytes, n, m);
  std::size_t bytes = s.temp_bytes;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(s.temp, bytes, labels, s.keys, values, s.vals, n, 0, std::max(1, label_bits(m)), st));
  bytes = s.temp_bytes;
  LP_CUDA(cub::DeviceReduce::ReduceByKey(s.temp, bytes, s.keys, s.run_keys, s.vals, s.run_vals, s.runs, OpFn<Op>{}, n, st));
  scatter_runs<Op>(s, m, out, st);
}

}  // namespace lp::multireduce
