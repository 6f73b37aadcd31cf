// The peers a user would reach for instead: CUB radix sort of the labels with their indices,
// CUB scan-by-key over the values gathered through the permutation and scattered back through it;
// and Thrust scan_by_key on keys sorted beforehand, the lower bound of any sort-based multiscan
// (its time excludes the sort).
#include <thrust/execution_policy.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/scan.h>

#include "kernels/multiscan/sort_global.cuh"
#include "variant.hpp"

namespace lp::multiscan_study {

namespace {

namespace ms = lp::multiscan;
using ms::align256;

__global__ void iota_kernel(std::uint32_t* out, std::int64_t n) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = std::uint32_t(i);
}

template <class Op>
using OpFn = ms::sort_global_detail::OpFn<Op>;

// Scratch: the indices, the sorted keys, the permutation, CUB's temporary storage.
template <class Op>
std::size_t cub_temp_bytes(std::int64_t n, std::uint32_t m) {
  using T = typename Op::value_type;
  std::size_t sort = 0, excl = 0, incl = 0;
  const int bits = ms::sort_global_detail::end_bit(m);
  LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort, (const std::uint32_t*)nullptr, (std::uint32_t*)nullptr, (const std::uint32_t*)nullptr,
                                          (std::uint32_t*)nullptr, int(n), 0, bits));
  auto vin = thrust::make_permutation_iterator((const T*)nullptr, (const std::uint32_t*)nullptr);
  auto vout = thrust::make_permutation_iterator((T*)nullptr, (const std::uint32_t*)nullptr);
  LP_CUDA(cub::DeviceScan::ExclusiveScanByKey(nullptr, excl, (const std::uint32_t*)nullptr, vin, vout, OpFn<Op>{}, Op::identity(), int(n)));
  LP_CUDA(cub::DeviceScan::InclusiveScanByKey(nullptr, incl, (const std::uint32_t*)nullptr, vin, vout, OpFn<Op>{}, int(n)));
  return std::max({sort, excl, incl});
}

template <class Op>
std::size_t cub_scratch_bytes(std::int64_t n, std::uint32_t m) {
  return 3 * align256(std::size_t(n) * 4) + align256(cub_temp_bytes<Op>(n, m));
}

template <class Op>
void cub_sort_scan_by_key(Ctx<Op>& c) {
  char* p = static_cast<char*>(c.scratch);
  auto* index = reinterpret_cast<std::uint32_t*>(p);
  auto* keys = reinterpret_cast<std::uint32_t*>(p + align256(c.n * 4));
  auto* perm = reinterpret_cast<std::uint32_t*>(p + 2 * align256(c.n * 4));
  void* temp = p + 3 * align256(c.n * 4);
  const std::size_t temp_bytes = c.scratch_bytes - 3 * align256(c.n * 4);
  iota_kernel<<<multireduce::grid_for(c.n, 256, 8), 256, 0, c.stream>>>(index, c.n);
  LP_CUDA_LAUNCH("iota_kernel");
  std::size_t bytes = temp_bytes;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(temp, bytes, c.labels, keys, index, perm, int(c.n), 0, ms::sort_global_detail::end_bit(c.m), c.stream));
  auto vin = thrust::make_permutation_iterator(c.values, static_cast<const std::uint32_t*>(perm));
  auto vout = thrust::make_permutation_iterator(c.out, static_cast<const std::uint32_t*>(perm));
  bytes = temp_bytes;
  if (c.inclusive)
    LP_CUDA(cub::DeviceScan::InclusiveScanByKey(temp, bytes, keys, vin, vout, OpFn<Op>{}, int(c.n), cuda::std::equal_to<>{}, c.stream));
  else
    LP_CUDA(cub::DeviceScan::ExclusiveScanByKey(temp, bytes, keys, vin, vout, OpFn<Op>{}, Op::identity(), int(c.n), cuda::std::equal_to<>{}, c.stream));
}

}  // namespace

template <class Op>
void add_peer_variants(Defs<Op>& d) {
  using harness::VariantKind;
  auto int_range = [](const auto& c) { return ms::sort_global_unsupported(c.n); };
  d.add({"cub_sort_scan_by_key", VariantKind::Peer,
         "cub::DeviceRadixSort::SortPairs (labels with indices, ceil(log2 m) bits) + cub::DeviceScan::Exclusive/InclusiveScanByKey "
         "reading values and writing results through the permutation (gather and scatter fused into the scan)",
         {Output::Results, false}, int_range, [](const auto& c) { return cub_scratch_bytes<Op>(c.n, c.m); },
         [](Ctx<Op>& c) { cub_sort_scan_by_key<Op>(c); }});
  d.add({"thrust_scan_by_key_sorted", VariantKind::Peer,
         "thrust::exclusive/inclusive_scan_by_key on pairs stable-sorted beforehand (time EXCLUDES the sort: the lower bound of sort-based multiscan)",
         {Output::ScanOfSorted, false}, int_range, {},
         [](Ctx<Op>& c) {
           auto pol = thrust::cuda::par_nosync.on(c.stream);
           if (c.inclusive)
             thrust::inclusive_scan_by_key(pol, c.sorted_labels, c.sorted_labels + c.n, c.sorted_values, c.out, thrust::equal_to<std::uint32_t>(), OpFn<Op>{});
                 else
                   thrust::exclusive_scan_by_key(pol, c.sorted_labels, c.sorted_labels + c.n, c.sorted_values, c.out, Op::identity(),
                                                 thrust::equal_to<std::uint32_t>(), OpFn<Op>{});
                 LP_CUDA_LAUNCH("thrust::scan_by_key");
               }});
}

#define LP_X(Op) template void add_peer_variants<Op>(Defs<Op>&);
LP_MULTISCAN_FOR_EACH_OP(LP_X)

}  // namespace lp::multiscan_study
