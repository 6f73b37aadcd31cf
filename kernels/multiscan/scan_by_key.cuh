// Beyond the thesis: the multiscan as CUB's scan-by-key over the labels as they come, no sort, where
// each label's inputs form one run: one label (m = 1). There the library's single-pass scan (one
// (key, value) pair a step, a look-back over 8-byte partials) outpaces our m-vector look-back on
// 8-byte values (H200, n = 2^26 int64: 0.44 ms against single_pass's 0.82;
// results/h200/multiscan/probes/scan_by_key.json); auto takes it there (auto_rule.hpp).
#pragma once
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>

#include "sort_global.cuh"

namespace lp::multiscan {

// CUB's temporary storage for either mode. n within CUB's int counts (sort_global_unsupported).
template <class Op>
std::size_t scan_by_key_scratch_bytes(std::int64_t n) {
  using T = typename Op::value_type;
  using sort_global_detail::OpFn;
  std::size_t excl = 0, incl = 0;
  LP_CUDA(cub::DeviceScan::ExclusiveScanByKey(nullptr, excl, (const std::uint32_t*)nullptr, (const T*)nullptr, (T*)nullptr, OpFn<Op>{},
                                              Op::identity(), int(n)));
  LP_CUDA(cub::DeviceScan::InclusiveScanByKey(nullptr, incl, (const std::uint32_t*)nullptr, (const T*)nullptr, (T*)nullptr, OpFn<Op>{}, int(n)));
  return std::max<std::size_t>({excl, incl, 1});
}

// A multiscan only where equal labels are contiguous (a run per label): the scan restarts at every
// change of label.
template <class Op>
void scan_by_key(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, bool inclusive,
                 typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, cudaStream_t s) {
  using sort_global_detail::OpFn;
  if (n <= 0) return;
  std::size_t bytes = scratch_bytes;
  if (inclusive)
    LP_CUDA(cub::DeviceScan::InclusiveScanByKey(scratch, bytes, labels, values, out, OpFn<Op>{}, int(n), cuda::std::equal_to<>{}, s));
  else
    LP_CUDA(cub::DeviceScan::ExclusiveScanByKey(scratch, bytes, labels, values, out, OpFn<Op>{}, Op::identity(), int(n), cuda::std::equal_to<>{}, s));
}

}  // namespace lp::multiscan
