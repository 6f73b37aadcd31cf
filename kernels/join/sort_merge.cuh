// SMJ (He et al. 2008, 4.3; ../shared/reference/he-2008-gpu-relational-joins.txt) on the GPU:
// both relations sorted by key with CUB's radix sort (the rids carried along), then ModernGPU's
// vectorized sorted search (kernels/sortedsearch) gives every S tuple the range of equal keys in R
// (its lower bound, then SortedEqualityCount), an exclusive scan turns the counts into output
// offsets (the paper's count, scan, write), and each S tuple writes its pairs there.
// Launchers take device pointers, sizes, scratch and a stream; every call is checked.
#pragma once
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "../common/cuda_check.cuh"
#include "../sortedsearch/mergepath_sorted_search.cuh"
#include "common.cuh"

namespace lp::join {

namespace smj_detail {

__global__ void iota_kernel(std::uint32_t* __restrict__ out, std::int64_t n) {
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = std::uint32_t(i);
}

// S tuple j (in key order) writes its count[j] pairs from offset[j]: R's tuples lower[j] ..
// lower[j] + count[j] - 1 (in key order) with itself. Writes past `capacity` are dropped, so a
// count that disagrees with the buffer the caller sized cannot corrupt memory (validation fails).
__global__ void expand_kernel(const std::uint32_t* __restrict__ lower, const std::uint32_t* __restrict__ count,
                              const std::uint32_t* __restrict__ offset, const std::uint32_t* __restrict__ r_rids,
                              const std::uint32_t* __restrict__ s_rids, std::int64_t ns, RidPair* __restrict__ out, std::uint64_t capacity) {
  for (std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < ns; j += std::int64_t(gridDim.x) * blockDim.x) {
    const std::uint32_t c = count[j], lo = lower[j], sr = s_rids[j];
    const std::uint64_t o = offset[j];
    for (std::uint32_t k = 0; k < c && o + k < capacity; ++k) out[o + k] = RidPair{r_rids[lo + k], sr};
  }
}

}  // namespace smj_detail

// The scratch of sort_merge_join, carved in this order (each piece 256-byte aligned).
template <class K>
struct SmjScratch {
  K *r_keys, *s_keys;                          // sorted keys
  std::uint32_t *r_iota, *r_rids, *s_iota, *s_rids;  // rids before and after the sort
  std::uint32_t *lower, *count, *offset;       // per S tuple (in key order)
  void* search;                                // the sorted search's partitions
  void* cub;                                   // CUB's temporary storage
  std::size_t cub_bytes, total;

  // base null: only the size (CUB is asked what it needs). base set: the pieces carved from a
  // region of `bytes` (the size computed before), CUB's share being what is left, so the timed
  // launcher asks CUB nothing.
  SmjScratch(void* base, std::int64_t nr, std::int64_t ns, std::size_t bytes = 0) {
    using Tuning = sortedsearch::DefaultMergePathTuning<K>;
    char* p = static_cast<char*>(base);
    std::size_t at = 0;
    auto take = [&](std::size_t bytes) {
      void* q = p ? p + at : nullptr;
      at += (bytes + 255) / 256 * 256;
      return q;
    };
    r_keys = static_cast<K*>(take(sizeof(K) * std::size_t(nr)));
    s_keys = static_cast<K*>(take(sizeof(K) * std::size_t(ns)));
    r_iota = static_cast<std::uint32_t*>(take(4 * std::size_t(nr)));
    r_rids = static_cast<std::uint32_t*>(take(4 * std::size_t(nr)));
    s_iota = static_cast<std::uint32_t*>(take(4 * std::size_t(ns)));
    s_rids = static_cast<std::uint32_t*>(take(4 * std::size_t(ns)));
    lower = static_cast<std::uint32_t*>(take(4 * std::size_t(ns)));
    count = static_cast<std::uint32_t*>(take(4 * std::size_t(ns)));
    offset = static_cast<std::uint32_t*>(take(4 * std::size_t(ns)));
    search = take(sortedsearch::mergepath_scratch_bytes<Tuning>(ns, nr));
    if (base) {
      cub_bytes = bytes - at;
      cub = p + at;
      total = bytes;
      return;
    }
    // CUB's needs: the larger of the two sorts and the scan (queried with null storage).
    std::size_t sort_r = 0, sort_s = 0, scan = 0;
    LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort_r, static_cast<const K*>(nullptr), static_cast<K*>(nullptr),
                                            static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), nr));
    LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort_s, static_cast<const K*>(nullptr), static_cast<K*>(nullptr),
                                            static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), ns));
    LP_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, scan, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), ns));
    cub_bytes = std::max({sort_r, sort_s, scan, std::size_t(1)});
    cub = take(cub_bytes);
    total = at;
  }
};

template <class K>
std::size_t sort_merge_scratch_bytes(std::int64_t nr, std::int64_t ns) {
  return SmjScratch<K>(nullptr, nr, ns).total;
}

// Why the GPU SMJ cannot run these sizes, or "": the sorted search indexes with 31 bits and the
// offsets are 32-bit.
inline std::string sort_merge_unsupported(std::int64_t nr, std::int64_t ns, std::uint64_t pairs) {
  if (nr + ns >= (std::int64_t(1) << 31)) return "|R| + |S| >= 2^31: the sorted search's indices are 31-bit";
  if (pairs >= (std::uint64_t(1) << 32)) return "2^32 pairs or more: the output offsets are 32-bit";
  return {};
}

// r[0, nr), s[0, ns): the key columns (rid = position). out: room for `capacity` pairs;
// scratch: sort_merge_scratch_bytes<K>(nr, ns) bytes.
template <class K>
void sort_merge_join(const K* r, std::int64_t nr, const K* s, std::int64_t ns, RidPair* out, std::uint64_t capacity, void* scratch,
                     std::size_t scratch_bytes, cudaStream_t stream) {
  SmjScratch<K> w(scratch, nr, ns, scratch_bytes);
  const int grid = std::max(1, sm_count() * 8);
  smj_detail::iota_kernel<<<grid, 256, 0, stream>>>(w.r_iota, nr);
  LP_CUDA_LAUNCH("smj iota_kernel (R)");
  smj_detail::iota_kernel<<<grid, 256, 0, stream>>>(w.s_iota, ns);
  LP_CUDA_LAUNCH("smj iota_kernel (S)");
  std::size_t bytes = w.cub_bytes;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(w.cub, bytes, r, w.r_keys, w.r_iota, w.r_rids, nr, 0, int(8 * sizeof(K)), stream));
  bytes = w.cub_bytes;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(w.cub, bytes, s, w.s_keys, w.s_iota, w.s_rids, ns, 0, int(8 * sizeof(K)), stream));
  using Tuning = sortedsearch::DefaultMergePathTuning<K>;
  using sortedsearch::Bounds;
  using sortedsearch::Output;
  // Each S key's first R tuple of an equal key, then how many there are (upper - lower).
  sortedsearch::mergepath_sorted_search<Tuning, Bounds::Lower, Output::Index, Output::None>(w.s_keys, int(ns), w.r_keys, int(nr), w.lower,
                                                                                           nullptr, w.search, nullptr, stream);
  sortedsearch::mergepath_sorted_search<Tuning, Bounds::Upper, Output::Index, Output::None>(w.s_keys, int(ns), w.r_keys, int(nr), w.count,
                                                                                           nullptr, w.search, nullptr, stream, w.lower);
  bytes = w.cub_bytes;
  LP_CUDA(cub::DeviceScan::ExclusiveSum(w.cub, bytes, w.count, w.offset, ns, stream));
  smj_detail::expand_kernel<<<grid, 256, 0, stream>>>(w.lower, w.count, w.offset, w.r_rids, w.s_rids, ns, out, capacity);
  LP_CUDA_LAUNCH("smj expand_kernel");
}

}  // namespace lp::join
