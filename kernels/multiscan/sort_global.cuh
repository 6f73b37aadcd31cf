// Thesis Alg 5.3 (Fig 5.6, 5.5.1): sort-based multiscan without partitioning. Index-value pairs are
// radix sorted by the ceil(log2 m) label bits (stable: a bucket's inputs keep their order), the
// sorted labels delimit the segments of a segmented scan, and every result is scattered back to
// its input's index. The inclusive-only form (end of 5.5) scans the pairs themselves.
#pragma once
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include "common.cuh"

namespace lp::multiscan {

template <class T>
struct IndexValue {
  std::uint32_t index;
  T value;
};

namespace sort_global_detail {

inline int end_bit(std::uint32_t m) { return std::max(1, multireduce::label_bits(m)); }

template <class T>
struct ValueOf {
  __host__ __device__ T operator()(const IndexValue<T>& p) const { return p.value; }
};
template <class T>
struct IndexOf {
  __host__ __device__ std::uint32_t operator()(const IndexValue<T>& p) const { return p.index; }
};
template <class Op>
struct OpFn {
  using T = typename Op::value_type;
  __host__ __device__ T operator()(const T& a, const T& b) const { return Op::apply(a, b); }
};
// The pair operator of the inclusive-only form: the right operand's index, the values combined.
template <class Op>
struct PairOp {
  using T = typename Op::value_type;
  __host__ __device__ IndexValue<T> operator()(const IndexValue<T>& a, const IndexValue<T>& b) const {
    return {b.index, Op::apply(a.value, b.value)};
  }
};

template <class T>
__global__ void make_pairs_kernel(const T* __restrict__ values, std::int64_t n, IndexValue<T>* pairs) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    pairs[i] = {std::uint32_t(i), values[i]};
}

template <class T>
__global__ void scatter_pairs_kernel(const IndexValue<T>* __restrict__ pairs, std::int64_t n, T* out) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x) {
    const IndexValue<T> p = pairs[i];
    out[p.index] = p.value;
  }
}

template <class T>
struct Layout {
  std::uint32_t* keys;
  IndexValue<T>* pairs_in;
  IndexValue<T>* pairs;
  void* temp;
  std::size_t temp_bytes;
};

template <class Op>
std::size_t temp_bytes(std::int64_t n, std::uint32_t m) {
  using T = typename Op::value_type;
  using P = IndexValue<T>;
  std::size_t sort = 0, excl = 0, incl = 0, pairs = 0;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort, (const std::uint32_t*)nullptr, (std::uint32_t*)nullptr, (const P*)nullptr,
                                          (P*)nullptr, int(n), 0, end_bit(m)));
  auto vin = thrust::make_transform_iterator((const P*)nullptr, ValueOf<T>{});
  auto vout = thrust::make_permutation_iterator((T*)nullptr, thrust::make_transform_iterator((const P*)nullptr, IndexOf<T>{}));
  LP_CUDA(cub::DeviceScan::ExclusiveScanByKey(nullptr, excl, (const std::uint32_t*)nullptr, vin, vout, OpFn<Op>{}, Op::identity(), int(n)));
  LP_CUDA(cub::DeviceScan::InclusiveScanByKey(nullptr, incl, (const std::uint32_t*)nullptr, vin, vout, OpFn<Op>{}, int(n)));
  LP_CUDA(cub::DeviceScan::InclusiveScanByKey(nullptr, pairs, (const std::uint32_t*)nullptr, (const P*)nullptr, (P*)nullptr, PairOp<Op>{}, int(n)));
  return std::max({sort, excl, incl, pairs});
}

template <class Op>
Layout<typename Op::value_type> carve(void* scratch, std::size_t bytes, std::int64_t n) {
  using T = typename Op::value_type;
  char* p = static_cast<char*>(scratch);
  Layout<T> l;
  l.keys = reinterpret_cast<std::uint32_t*>(p), p += align256(n * 4);
  l.pairs_in = reinterpret_cast<IndexValue<T>*>(p), p += align256(n * sizeof(IndexValue<T>));
  l.pairs = reinterpret_cast<IndexValue<T>*>(p), p += align256(n * sizeof(IndexValue<T>));
  l.temp = p;
  l.temp_bytes = bytes - std::size_t(p - static_cast<char*>(scratch));
  return l;
}

}  // namespace sort_global_detail

inline std::string sort_global_unsupported(std::int64_t n) {
  return n > (std::int64_t(1) << 31) - 1 ? "CUB's radix sort and scan are called with int counts" : "";
}

template <class Op>
std::size_t sort_global_scratch_bytes(std::int64_t n, std::uint32_t m) {
  using namespace sort_global_detail;
  using T = typename Op::value_type;
  return align256(n * 4) + 2 * align256(n * sizeof(IndexValue<T>)) + align256(temp_bytes<Op>(n, m));
}

// Alg 5.3: pairs, sort, segmented scan of the values (CUB's scan-by-key compares adjacent sorted
// labels, i.e. the thesis's flags computed on the fly) written straight to out[index].
// pairs_direct (inclusive only): the scan runs over the pairs with PairOp, then a scatter.
template <class Op>
void sort_global(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                 bool pairs_direct, typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, cudaStream_t s) {
  using namespace sort_global_detail;
  using T = typename Op::value_type;
  auto l = carve<Op>(scratch, scratch_bytes, n);
  make_pairs_kernel<<<grid_for(n, 256, 8), 256, 0, s>>>(values, n, l.pairs_in);
  LP_CUDA_LAUNCH("make_pairs_kernel");
  std::size_t bytes = l.temp_bytes;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(l.temp, bytes, labels, l.keys, l.pairs_in, l.pairs, int(n), 0, end_bit(m), s));
  bytes = l.temp_bytes;
  if (pairs_direct) {
    LP_CUDA(cub::DeviceScan::InclusiveScanByKey(l.temp, bytes, l.keys, l.pairs, l.pairs_in, PairOp<Op>{}, int(n), cuda::std::equal_to<>{}, s));
    scatter_pairs_kernel<<<grid_for(n, 256, 8), 256, 0, s>>>(l.pairs_in, n, out);
    LP_CUDA_LAUNCH("scatter_pairs_kernel");
    return;
  }
  auto vin = thrust::make_transform_iterator(static_cast<const IndexValue<T>*>(l.pairs), ValueOf<T>{});
  auto vout = thrust::make_permutation_iterator(out, thrust::make_transform_iterator(static_cast<const IndexValue<T>*>(l.pairs), IndexOf<T>{}));
  if (inclusive)
    LP_CUDA(cub::DeviceScan::InclusiveScanByKey(l.temp, bytes, l.keys, vin, vout, OpFn<Op>{}, int(n), cuda::std::equal_to<>{}, s));
  else
    LP_CUDA(cub::DeviceScan::ExclusiveScanByKey(l.temp, bytes, l.keys, vin, vout, OpFn<Op>{}, Op::identity(), int(n), cuda::std::equal_to<>{}, s));
}

}  // namespace lp::multiscan
