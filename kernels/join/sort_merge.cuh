// SMJ (He et al. 2008, 4.3; docs/references.md) on the GPU:
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
#include "expand.cuh"

namespace lp::join {

// The scratch of sort_merge_join, carved in this order (each piece 256-byte aligned).
template <class K>
struct SmjScratch {
  K *r_keys, *s_keys;                                // sorted keys
  std::uint32_t *r_iota, *r_rids, *s_iota, *s_rids;  // rids before and after the sort
  std::uint32_t *lower, *count, *offset;             // per S tuple (in key order)
  void* search;                                      // the sorted search's partitions
  void* cub;                                         // CUB's temporary storage
  std::size_t cub_bytes, total;

  // base null: only the size (CUB is asked what it needs). base set: the pieces carved from a
  // region of `bytes` (the size computed before), CUB's share being what is left, so the timed
  // launcher asks CUB nothing.
  SmjScratch(void* base, std::int64_t nr, std::int64_t ns, std::size_t bytes = 0) {
    using Tuning = sortedsearch::DefaultMergePathTuning<K>;
    Carve c(base);
    r_keys = c.take<K>(std::size_t(nr));
    s_keys = c.take<K>(std::size_t(ns));
    r_iota = c.take<std::uint32_t>(std::size_t(nr));
    r_rids = c.take<std::uint32_t>(std::size_t(nr));
    s_iota = c.take<std::uint32_t>(std::size_t(ns));
    s_rids = c.take<std::uint32_t>(std::size_t(ns));
    lower = c.take<std::uint32_t>(std::size_t(ns));
    count = c.take<std::uint32_t>(std::size_t(ns));
    offset = c.take<std::uint32_t>(std::size_t(ns));
    search = c.take<char>(sortedsearch::mergepath_scratch_bytes<Tuning>(ns, nr));
    if (base) {
      cub_bytes = bytes - c.used();
      cub = c.rest();
      total = bytes;
      return;
    }
    // CUB's needs: the larger of the two sorts and the scan (queried with null storage).
    std::size_t sort_r = 0, sort_s = 0;
    LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort_r, static_cast<const K*>(nullptr), static_cast<K*>(nullptr),
                                            static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), nr));
    LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort_s, static_cast<const K*>(nullptr), static_cast<K*>(nullptr),
                                            static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), ns));
    cub_bytes = std::max({sort_r, sort_s, expand_scan_bytes(ns)});
    c.take<char>(cub_bytes);
    total = c.used();
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

// SMJ's first phase: both relations sorted by key into the scratch, rids carried.
template <class K>
void sort_merge_sort(const K* r, std::int64_t nr, const K* s, std::int64_t ns, void* scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  SmjScratch<K> w(scratch, nr, ns, scratch_bytes);
  iota_rids(w.r_iota, nr, stream);
  iota_rids(w.s_iota, ns, stream);
  std::size_t bytes = w.cub_bytes;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(w.cub, bytes, r, w.r_keys, w.r_iota, w.r_rids, nr, 0, int(8 * sizeof(K)), stream));
  bytes = w.cub_bytes;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(w.cub, bytes, s, w.s_keys, w.s_iota, w.s_rids, ns, 0, int(8 * sizeof(K)), stream));
}

// SMJ's merge step on the sorted relations sort_merge_sort left in the scratch: each S key's first
// equal R key and their count by two sorted searches, then count, scan, write. It reads the
// scratch's sorted columns only, so it can run again on the same sort.
template <class K>
void sort_merge_merge(std::int64_t nr, std::int64_t ns, RidPair* out, std::uint64_t capacity, void* scratch, std::size_t scratch_bytes,
                      cudaStream_t stream) {
  SmjScratch<K> w(scratch, nr, ns, scratch_bytes);
  using Tuning = sortedsearch::DefaultMergePathTuning<K>;
  using sortedsearch::Bounds;
  using sortedsearch::Output;
  // Each S key's first R tuple of an equal key, then how many there are (upper - lower).
  sortedsearch::mergepath_sorted_search<Tuning, Bounds::Lower, Output::Index, Output::None>(w.s_keys, int(ns), w.r_keys, int(nr), w.lower,
                                                                                           nullptr, w.search, nullptr, stream);
  sortedsearch::mergepath_sorted_search<Tuning, Bounds::Upper, Output::Index, Output::None>(w.s_keys, int(ns), w.r_keys, int(nr), w.count,
                                                                                           nullptr, w.search, nullptr, stream, w.lower);
  scan_and_expand(w.lower, w.count, w.offset, w.r_rids, w.s_rids, ns, out, capacity, w.cub, w.cub_bytes, stream);
}

// r[0, nr), s[0, ns): the key columns (rid = position). out: room for `capacity` pairs;
// scratch: sort_merge_scratch_bytes<K>(nr, ns) bytes.
template <class K>
void sort_merge_join(const K* r, std::int64_t nr, const K* s, std::int64_t ns, RidPair* out, std::uint64_t capacity, void* scratch,
                     std::size_t scratch_bytes, cudaStream_t stream) {
  sort_merge_sort(r, nr, s, ns, scratch, scratch_bytes, stream);
  sort_merge_merge<K>(nr, ns, out, capacity, scratch, scratch_bytes, stream);
}

}  // namespace lp::join
