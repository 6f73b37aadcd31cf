// The one-time set-up a launcher does before its launches (the opt-in above 48 KiB of dynamic
// shared memory, a non-portable cluster size, occupancy queries, device attributes), remembered so
// that the timed repetitions make no driver call (it would count as GPU time), and keyed on
// everything each answer depends on: the device, the kernel's address (every template instance is
// its own kernel) and the launch shape. A cache keyed on less once served one kernel's opt-in to
// another kernel of the same signature, so that a launch failed only after certain other points
// had run in the same process. Every launcher goes through these; none keeps its own.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>

#include "cuda_check.cuh"

namespace lp {

inline int current_device() {
  int d = 0;
  LP_CUDA(cudaGetDevice(&d));
  return d;
}

namespace launch_cache_detail {

// (what, device, kernel, three shape numbers) -> the remembered answer.
using Key = std::tuple<int, int, const void*, long long, long long, long long>;
enum What { kAttribute, kSharedLimit, kBlocks, kClusters, kStaticShared };

struct Cache {
  std::mutex mu;
  std::map<Key, long long> values;
};
inline Cache& cache() {
  static Cache c;
  return c;
}

// The cached value for `key`, computed by `make` on a miss (under the lock: the calls are cheap
// and rare, and two threads must not race one kernel's attribute).
template <class Make>
long long remembered(const Key& key, Make&& make) {
  Cache& c = cache();
  std::lock_guard<std::mutex> lock(c.mu);
  auto it = c.values.find(key);
  if (it != c.values.end()) return it->second;
  const long long v = make();
  c.values.emplace(key, v);
  return v;
}

}  // namespace launch_cache_detail

// A device attribute of the current device.
inline int device_attribute(cudaDeviceAttr attr) {
  namespace d = launch_cache_detail;
  const int dev = current_device();
  return int(d::remembered({d::kAttribute, dev, nullptr, int(attr), 0, 0}, [&] {
    int v = 0;
    LP_CUDA(cudaDeviceGetAttribute(&v, attr, dev));
    return (long long)v;
  }));
}

// Raises `kernel`'s dynamic shared-memory limit on the current device to at least `bytes` (never
// lowers it: a launch needs smem <= limit, and one timed run may launch one kernel with several
// sizes). No call where the default allows it: 48 KiB with the kernel's static shared memory.
inline void allow_dynamic_shared(const void* kernel, std::size_t bytes) {
  namespace d = launch_cache_detail;
  if (bytes == 0) return;
  const int dev = current_device();
  const long long static_bytes = d::remembered({d::kStaticShared, dev, kernel, 0, 0, 0}, [&] {
    cudaFuncAttributes a{};
    LP_CUDA(cudaFuncGetAttributes(&a, kernel));
    return (long long)a.sharedSizeBytes;
  });
  if ((long long)bytes + static_bytes <= 48 * 1024) return;
  d::Cache& c = d::cache();
  std::lock_guard<std::mutex> lock(c.mu);
  long long& limit = c.values[{d::kSharedLimit, dev, kernel, 0, 0, 0}];
  if ((long long)bytes <= limit) return;
  LP_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, static_cast<int>(bytes)));
  limit = (long long)bytes;
}

// Resident blocks per SM of `kernel` at (threads, smem) on the current device (the opt-in is made
// first, so that the answer does not depend on whether another launch made it already).
inline int max_active_blocks(const void* kernel, int threads, std::size_t smem) {
  namespace d = launch_cache_detail;
  allow_dynamic_shared(kernel, smem);
  return int(d::remembered({d::kBlocks, current_device(), kernel, threads, (long long)smem, 0}, [&] {
    int k = 0;
    LP_CUDA(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&k, kernel, threads, smem));
    return (long long)k;
  }));
}

// Clusters of `cluster` blocks of (threads, smem) resident at once on the current device. Makes
// the shared-memory opt-in and, above the portable 8 blocks, the non-portable opt-in first. Throws
// std::invalid_argument when not one cluster fits.
inline int max_active_clusters(const void* kernel, int cluster, int threads, std::size_t smem) {
  namespace d = launch_cache_detail;
  allow_dynamic_shared(kernel, smem);
  const long long k = d::remembered({d::kClusters, current_device(), kernel, cluster, threads, (long long)smem}, [&] {
    if (cluster > 8) LP_CUDA(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = cluster, attr[0].val.clusterDim.y = 1, attr[0].val.clusterDim.z = 1;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3(cluster * 1024);  // an upper bound for the query
    cfg.blockDim = dim3(threads);
    cfg.dynamicSmemBytes = smem;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    int n = 0;
    LP_CUDA(cudaOccupancyMaxActiveClusters(&n, kernel, &cfg));
    return (long long)n;
  });
  if (k < 1) throw std::invalid_argument("a cluster of " + std::to_string(cluster) + " blocks does not fit on an SM group");
  return int(k);
}

// Typed front ends: any __global__ function.
template <class Kernel>
void allow_dynamic_shared(Kernel* kernel, std::size_t bytes) {
  allow_dynamic_shared(reinterpret_cast<const void*>(kernel), bytes);
}
template <class Kernel>
int max_active_blocks(Kernel* kernel, int threads, std::size_t smem) {
  return max_active_blocks(reinterpret_cast<const void*>(kernel), threads, smem);
}
template <class Kernel>
int max_active_clusters(Kernel* kernel, int cluster, int threads, std::size_t smem) {
  return max_active_clusters(reinterpret_cast<const void*>(kernel), cluster, threads, smem);
}

}  // namespace lp
