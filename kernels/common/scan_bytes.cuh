// What CUB's exclusive sum of n 32-bit words asks for as temporary storage: the size query that a
// carved scratch makes once, outside the timed launch (carve.hpp's take_rest).
#pragma once
#include <cub/device/device_scan.cuh>

#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"

namespace lp {

inline std::size_t exclusive_sum_u32_bytes(std::int64_t n) {
  std::size_t bytes = 0;
  LP_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, bytes, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), int(n)));
  return bytes;
}

}  // namespace lp
