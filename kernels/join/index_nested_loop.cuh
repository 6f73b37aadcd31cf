// INLJ (He et al. 2008, 4.2): R indexed by a CSS-tree (Rao and Ross, "Cache conscious indexing
// for decision-support in main memory", VLDB 1999) built on the GPU, each S tuple searching it
// for its first matching R tuple, then the paper's count, scan, write (expand.cuh). The baseline
// index is a plain binary search over the same sorted R.
//
// The CSS-tree: R's keys sorted (CUB radix sort, rids carried) are its leaves, in nodes of
// kNodeKeys keys; a directory node holds kNodeKeys separators and has kNodeKeys + 1 children, found
// by arithmetic (child c of node b is node b (kNodeKeys + 1) + c of the level below), so there
// are no pointers and a node is one 128-byte line: the cache-line node of Rao and Ross, which on
// the GPU is one L1/L2 sector group per visited level. Separator c - 1 of a node is the first key
// of its child c; a missing child's is the key type's maximum. The directory is stored level by
// level, root first. Every thread searches its own S key (the paper's one probe per thread); the
// top levels stay in L1 and L2 across the block's probes.
#pragma once
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <cstdint>
#include <limits>
#include <string>

#include "expand.cuh"

namespace lp::join {

enum class InljIndex { CssTree, BinarySearch };

namespace inlj_detail {

template <class K>
constexpr int kNodeKeys = 128 / int(sizeof(K));  // one 128-byte line: 32 int32 or 16 int64 keys
constexpr int kMaxLevels = 16;

// The directory's shape for n leaf keys: level 1 is the lowest directory level, level `levels` the
// root (a single node); nodes[l] and start[l] (its offset in the directory, in nodes) per level.
template <class K>
struct CssShape {
  int levels = 0;
  std::int64_t nodes[kMaxLevels + 1] = {};
  std::int64_t start[kMaxLevels + 1] = {};
  std::int64_t total = 0;  // directory nodes
  std::int64_t leaf_span[kMaxLevels + 1] = {};  // leaf nodes under one node of the level
  explicit CssShape(std::int64_t n) {
    constexpr std::int64_t m = kNodeKeys<K>, f = m + 1;
    std::int64_t below = (n + m - 1) / m;  // leaf nodes
    leaf_span[0] = 1;
    while (below > 1 && levels < kMaxLevels) {
      ++levels;
      nodes[levels] = (below + f - 1) / f;
      leaf_span[levels] = leaf_span[levels - 1] * f;
      below = nodes[levels];
    }
    for (int l = levels; l >= 1; --l) {  // root first
      start[l] = total;
      total += nodes[l];
    }
  }
};

// One thread per separator: separator c - 1 of node b at level l is the first key of child c, whose
// first leaf node is (b f + c) * leaf_span[l - 1].
template <class K>
__global__ void build_kernel(const K* __restrict__ keys, std::int64_t n, CssShape<K> shape, K* __restrict__ dir) {
  constexpr std::int64_t m = kNodeKeys<K>, f = m + 1;
  for (std::int64_t i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; i < shape.total * m; i += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int64_t node = i / m, c = i % m + 1;
    int l = shape.levels;
    while (node >= shape.start[l] + shape.nodes[l]) --l;  // root first: levels' ranges ascend as l descends
    const std::int64_t b = node - shape.start[l];
    const std::int64_t first = (b * f + c) * shape.leaf_span[l - 1] * m;
    dir[i] = first < n ? keys[first] : std::numeric_limits<K>::max();
  }
}

// The first position in [lo, hi) of keys with keys[pos] >= k (hi if none).
template <class K>
__device__ std::int64_t lower_in(const K* __restrict__ keys, std::int64_t lo, std::int64_t hi, K k) {
  while (lo < hi) {
    const std::int64_t mid = lo + (hi - lo) / 2;
    if (keys[mid] < k) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

// lower_bound(k) over the sorted keys through the tree: at each level the child is the number of
// separators below k (a separator equal to k sends the search left, where an equal key may end the
// previous child; an all-smaller subtree ends where the next begins, so the answer is still right).
template <class K>
__device__ std::int64_t css_lower(const K* __restrict__ keys, std::int64_t n, const K* __restrict__ dir, const CssShape<K>& shape, K k) {
  constexpr std::int64_t m = kNodeKeys<K>, f = m + 1;
  std::int64_t b = 0;
  for (int l = shape.levels; l >= 1; --l) {
    const K* node = dir + (shape.start[l] + b) * m;
    b = b * f + lower_in(node, 0, m, k);
  }
  const std::int64_t lo = b * m, hi = lo + m < n ? lo + m : n;
  return lower_in(keys, lo, hi, k);
}

// One S tuple per thread: its first R position of an equal key and how many there are. The run of
// equal keys is counted in the leaf (the same line) and, only where it reaches the leaf's end,
// finished by a second search for the first key above k.
template <InljIndex Index, class K>
__global__ void probe_kernel(const K* __restrict__ s, std::int64_t ns, const K* __restrict__ keys, std::int64_t n, const K* __restrict__ dir,
                             CssShape<K> shape, std::uint32_t* __restrict__ lower, std::uint32_t* __restrict__ count) {
  constexpr std::int64_t m = kNodeKeys<K>;
  for (std::int64_t j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x; j < ns; j += std::int64_t(gridDim.x) * blockDim.x) {
    const K k = s[j];
    const std::int64_t lo = Index == InljIndex::CssTree ? css_lower(keys, n, dir, shape, k) : lower_in(keys, 0, n, k);
    std::int64_t hi = lo;
    const std::int64_t leaf_end = Index == InljIndex::CssTree ? std::min<std::int64_t>(n, (lo / m + 1) * m) : std::min<std::int64_t>(n, lo + m);
    while (hi < leaf_end && keys[hi] == k) ++hi;
    if (hi == leaf_end && hi < n && keys[hi] == k) {
      if (k == std::numeric_limits<K>::max()) hi = n;
      else hi = Index == InljIndex::CssTree ? css_lower(keys, n, dir, shape, K(k + 1)) : lower_in(keys, hi, n, K(k + 1));
    }
    lower[j] = std::uint32_t(lo);
    count[j] = std::uint32_t(hi - lo);
  }
}

}  // namespace inlj_detail

// The scratch, carved in this order.
template <class K>
struct InljScratch {
  K *r_keys, *dir;
  std::uint32_t *r_iota, *r_rids, *lower, *count, *offset;
  void* cub;
  std::size_t cub_bytes, total;
  InljScratch(void* base, std::int64_t nr, std::int64_t ns, std::size_t bytes = 0) {
    Carve c(base);
    r_keys = c.take<K>(std::size_t(nr));
    dir = c.take<K>(std::size_t(inlj_detail::CssShape<K>(nr).total * inlj_detail::kNodeKeys<K>));
    r_iota = c.take<std::uint32_t>(std::size_t(nr));
    r_rids = c.take<std::uint32_t>(std::size_t(nr));
    lower = c.take<std::uint32_t>(std::size_t(ns));
    count = c.take<std::uint32_t>(std::size_t(ns));
    offset = c.take<std::uint32_t>(std::size_t(ns));
    if (base) {
      cub_bytes = bytes - c.used();
      cub = c.rest();
      total = bytes;
      return;
    }
    std::size_t sort = 0;
    LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort, static_cast<const K*>(nullptr), static_cast<K*>(nullptr),
                                            static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), nr));
    cub_bytes = std::max(sort, expand_scan_bytes(ns));
    c.take<char>(cub_bytes);
    total = c.used();
  }
};

template <class K>
std::size_t index_nested_loop_scratch_bytes(std::int64_t nr, std::int64_t ns) {
  return InljScratch<K>(nullptr, nr, ns).total;
}

inline std::string index_nested_loop_unsupported(std::int64_t nr, std::uint64_t pairs) {
  if (nr >= (std::int64_t(1) << 32)) return "|R| >= 2^32: R's positions are 32-bit";
  if (pairs >= (std::uint64_t(1) << 32)) return "2^32 pairs or more: the output offsets are 32-bit";
  return {};
}

// The index (R sorted by key, rids carried; the CSS-tree's directory for InljIndex::CssTree) built
// into the scratch: INLJ's set-up, timed with the join (the study builds it per run).
template <InljIndex Index, class K>
void index_nested_loop_build(const K* r, std::int64_t nr, std::int64_t ns, void* scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  InljScratch<K> w(scratch, nr, ns, scratch_bytes);
  iota_rids(w.r_iota, nr, stream);
  std::size_t bytes = w.cub_bytes;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(w.cub, bytes, r, w.r_keys, w.r_iota, w.r_rids, nr, 0, int(8 * sizeof(K)), stream));
  const inlj_detail::CssShape<K> shape(nr);
  if (Index == InljIndex::CssTree && shape.total > 0) {
    inlj_detail::build_kernel<K><<<expand_grid(), 256, 0, stream>>>(w.r_keys, nr, shape, w.dir);
    LP_CUDA_LAUNCH("inlj build_kernel");
  }
}

// S probes the index built by index_nested_loop_build, then count, scan, write.
template <InljIndex Index, class K>
void index_nested_loop_probe(const K* s, std::int64_t nr, std::int64_t ns, RidPair* out, std::uint64_t capacity, void* scratch,
                             std::size_t scratch_bytes, cudaStream_t stream) {
  InljScratch<K> w(scratch, nr, ns, scratch_bytes);
  inlj_detail::probe_kernel<Index, K><<<expand_grid(), 256, 0, stream>>>(s, ns, w.r_keys, nr, w.dir, inlj_detail::CssShape<K>(nr), w.lower, w.count);
  LP_CUDA_LAUNCH("inlj probe_kernel");
  scan_and_expand(w.lower, w.count, w.offset, w.r_rids, nullptr, ns, out, capacity, w.cub, w.cub_bytes, stream);
}

template <InljIndex Index, class K>
void index_nested_loop_join(const K* r, std::int64_t nr, const K* s, std::int64_t ns, RidPair* out, std::uint64_t capacity, void* scratch,
                            std::size_t scratch_bytes, cudaStream_t stream) {
  index_nested_loop_build<Index>(r, nr, ns, scratch, scratch_bytes, stream);
  index_nested_loop_probe<Index>(s, nr, ns, out, capacity, scratch, scratch_bytes, stream);
}

}  // namespace lp::join
