// Device facts launchers size grids with inside timed regions (where a driver call would count as
// GPU time): remembered per device by the launch cache. Shared by every kernel family.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>

#include "launch_cache.cuh"

namespace lp {

inline int sm_count() { return device_attribute(cudaDevAttrMultiProcessorCount); }
inline std::size_t max_shared_per_block() { return std::size_t(device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin)); }
inline std::size_t l2_bytes() { return std::size_t(device_attribute(cudaDevAttrL2CacheSize)); }

}  // namespace lp
