// The sort-based multiscan a user composes from CUB (the study's peer, and auto's plan where labels
// are many and repeat little): a radix sort of the labels with their indices by the ceil(log2 m)
// label bits, then cub::DeviceScan's exclusive or inclusive scan-by-key reading the values and
// writing the results through the permutation (the gather and the scatter fused into the scan).
#pragma once
#include <thrust/iterator/permutation_iterator.h>

#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>

#include "sort_global.cuh"

namespace lp::multiscan {

namespace cub_sort_scan_detail {

template <class U>  // a template: a header's plain kernel would be defined in every translation unit
__global__ void iota_kernel(U* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = U(i);
}

// CUB's temporary storage: the largest of the sort's and the two scans'.
template <class Op>
std::size_t temp_bytes(std::int64_t n, std::uint32_t m) {
  using T = typename Op::value_type;
  using sort_global_detail::OpFn;
  std::size_t sort = 0, excl = 0, incl = 0;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort, (const std::uint32_t*)nullptr, (std::uint32_t*)nullptr, (const std::uint32_t*)nullptr,
                                          (std::uint32_t*)nullptr, int(n), 0, sort_global_detail::end_bit(m)));
  auto vin = thrust::make_permutation_iterator((const T*)nullptr, (const std::uint32_t*)nullptr);
  auto vout = thrust::make_permutation_iterator((T*)nullptr, (const std::uint32_t*)nullptr);
  LP_CUDA(cub::DeviceScan::ExclusiveScanByKey(nullptr, excl, (const std::uint32_t*)nullptr, vin, vout, OpFn<Op>{}, Op::identity(), int(n)));
  LP_CUDA(cub::DeviceScan::InclusiveScanByKey(nullptr, incl, (const std::uint32_t*)nullptr, vin, vout, OpFn<Op>{}, int(n)));
  return std::max({sort, excl, incl});
}

}  // namespace cub_sort_scan_detail

// Scratch: the indices, the sorted labels, the permutation, CUB's temporary storage.
template <class Op>
std::size_t cub_sort_scan_scratch_bytes(std::int64_t n, std::uint32_t m) {
  return 3 * align256(std::size_t(n) * 4) + align256(cub_sort_scan_detail::temp_bytes<Op>(n, m));
}

// n within CUB's int counts (sort_global_unsupported says why not).
template <class Op>
void cub_sort_scan(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                   typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, cudaStream_t s) {
  using sort_global_detail::OpFn;
  char* p = static_cast<char*>(scratch);
  auto* index = reinterpret_cast<std::uint32_t*>(p);
  auto* keys = reinterpret_cast<std::uint32_t*>(p + align256(n * 4));
  auto* perm = reinterpret_cast<std::uint32_t*>(p + 2 * align256(n * 4));
  void* temp = p + 3 * align256(n * 4);
  const std::size_t temp_bytes = scratch_bytes - 3 * align256(n * 4);
  cub_sort_scan_detail::iota_kernel<std::uint32_t><<<multireduce::grid_for(n, 256, 8), 256, 0, s>>>(index, n);
  LP_CUDA_LAUNCH("iota_kernel");
  std::size_t bytes = temp_bytes;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(temp, bytes, labels, keys, index, perm, int(n), 0, sort_global_detail::end_bit(m), s));
  auto vin = thrust::make_permutation_iterator(values, static_cast<const std::uint32_t*>(perm));
  auto vout = thrust::make_permutation_iterator(out, static_cast<const std::uint32_t*>(perm));
  bytes = temp_bytes;
  if (inclusive)
    LP_CUDA(cub::DeviceScan::InclusiveScanByKey(temp, bytes, keys, vin, vout, OpFn<Op>{}, int(n), cuda::std::equal_to<>{}, s));
  else
    LP_CUDA(cub::DeviceScan::ExclusiveScanByKey(temp, bytes, keys, vin, vout, OpFn<Op>{}, Op::identity(), int(n), cuda::std::equal_to<>{}, s));
}

}  // namespace lp::multiscan
