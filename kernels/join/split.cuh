// He et al. 2008, Algorithm 1: the split primitive (3.1.4; docs/references.md)
// and the map that is its step (1). A split puts n (key, rid) tuples (kernels/join/tuples.hpp) in
// `fanout` partitions, partition_of(key) = hash(key) % fanout, the partitions in id order one after
// the other; the order within a partition is free. Their five steps, with a thread block as the
// paper's thread group (today's shared-memory atomics make a per-thread histogram unnecessary):
//   (1, 2) each block counts its contiguous chunk's tuples per partition in a shared-memory
//          histogram and writes it to column b of the [fanout x blocks] matrix L, partition-major
//          (the paper's L[(p-1) * #thread + t]);
//   (3)    an exclusive prefix sum of L (cub::DeviceScan): L[p][b] is now where block b's first
//          tuple of partition p goes, since all of partition p-1 and blocks < b of p come before;
//   (4, 5) each block loads its column into shared-memory cursors and scatters its chunk, each
//          tuple to its partition's cursor, bumped atomically.
// The shared-memory atomics are warp-aggregated: the lanes of a warp with one partition bump its
// counter once, so a small fanout (every lane on a few counters) does not serialise the warp.
// Launchers take device pointers, sizes, scratch and a stream; every call is checked.
#pragma once
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string>

#include "../common/carve.hpp"
#include "../common/cuda_check.cuh"
#include "../common/device_facts.cuh"
#include "../common/label_bits.hpp"
#include "../common/scan_bytes.cuh"
#include "tuples.hpp"

namespace lp::join {

namespace split_detail {

constexpr int kThreads = 256;       // a multiple of 32: the warp-aggregated atomics need whole warps
constexpr int kBlocksPerSm = 8;     // 8 x 256 threads fill an H100 SM; fanout 4096 takes 16 KiB of shared memory each
constexpr std::int64_t kMinChunk = 4096;  // tuples per block at least (16 per thread)

// The map's 16-byte loads: 4 keys or 2 tuple words at once, and their ids stored together.
template <class T>
struct alignas(16) MapItems {
  T v[16 / sizeof(T)];
};
template <class T>
struct alignas(4 * (16 / sizeof(T))) MapIds {
  std::uint32_t v[16 / sizeof(T)];
};

// The map: ids[i] = partition_of(in[i]), a coalesced grid-stride loop over 16-byte vectors, two
// of them in flight per thread (one 4-byte load per thread leaves an H100 SM short of bytes in
// flight); the tail past the last whole vector, or all of it where the pointers are not aligned
// (`vectors` 0), one item at a time.
template <class T>
__global__ void map_kernel(const T* __restrict__ in, std::int64_t n, std::int64_t vectors, std::uint32_t fanout, std::uint32_t* __restrict__ ids) {
  constexpr int kVec = 16 / sizeof(T);
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  const std::int64_t t = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  const auto* vin = reinterpret_cast<const MapItems<T>*>(in);
  auto* vout = reinterpret_cast<MapIds<T>*>(ids);
  auto one = [&](const MapItems<T>& x, std::int64_t at) {
    MapIds<T> y;
#pragma unroll
    for (int k = 0; k < kVec; ++k) y.v[k] = partition_of_item(x.v[k], fanout);
    vout[at] = y;
  };
  std::int64_t v = t;
  for (; v + stride < vectors; v += 2 * stride) {
    const MapItems<T> a = vin[v], b = vin[v + stride];
    one(a, v);
    one(b, v + stride);
  }
  if (v < vectors) one(vin[v], v);
  for (std::int64_t i = vectors * kVec + t; i < n; i += stride) ids[i] = partition_of_item(in[i], fanout);
}

// The active lanes of a warp each add 1 to counter[p] (their own p): one shared atomicAdd per
// distinct p. Returns an active lane's slot (the counter's value before the warp + its rank among
// the lanes of its p), 0 elsewhere. Called by all 32 lanes together.
__device__ inline std::uint32_t warp_bump(std::uint32_t* counter, std::uint32_t p, bool active) {
  const unsigned act = __ballot_sync(0xffffffffu, active);
  if (!active) return 0;
  const unsigned peers = __match_any_sync(act, p);
  const int lane = int(threadIdx.x & 31), leader = __ffs(peers) - 1;
  std::uint32_t base = 0;
  if (lane == leader) base = atomicAdd(&counter[p], std::uint32_t(__popc(peers)));
  base = __shfl_sync(act, base, leader);
  return base + std::uint32_t(__popc(peers & ((1u << lane) - 1u)));
}

// Steps (1) and (2): block b's histogram of tuples [b chunk, (b + 1) chunk) into L[p][b]. (The
// kernels are static, as elsewhere in kernels/: several translation units include this header.)
static __global__ void count_kernel(const std::uint64_t* __restrict__ in, std::int64_t n, std::int64_t chunk, std::uint32_t fanout,
                             std::uint32_t* __restrict__ hist) {
  extern __shared__ std::uint32_t counts[];
  for (std::uint32_t p = threadIdx.x; p < fanout; p += blockDim.x) counts[p] = 0;
  __syncthreads();
  const std::int64_t lo = std::int64_t(blockIdx.x) * chunk, hi = std::min(n, lo + chunk);
  for (std::int64_t base = lo; base < hi; base += blockDim.x) {  // block-uniform trip count: whole warps reach warp_bump
    const std::int64_t i = base + threadIdx.x;
    const bool active = i < hi;
    warp_bump(counts, active ? partition_of_item(in[i], fanout) : 0u, active);
  }
  __syncthreads();
  for (std::uint32_t p = threadIdx.x; p < fanout; p += blockDim.x) hist[std::size_t(p) * gridDim.x + blockIdx.x] = counts[p];
}

// Steps (4) and (5): block b's cursors start at the scanned L[p][b]; each tuple goes to its
// partition's cursor.
static __global__ void scatter_kernel(const std::uint64_t* __restrict__ in, std::int64_t n, std::int64_t chunk, std::uint32_t fanout,
                               const std::uint32_t* __restrict__ offsets, std::uint64_t* __restrict__ out) {
  extern __shared__ std::uint32_t cursor[];
  for (std::uint32_t p = threadIdx.x; p < fanout; p += blockDim.x) cursor[p] = offsets[std::size_t(p) * gridDim.x + blockIdx.x];
  __syncthreads();
  const std::int64_t lo = std::int64_t(blockIdx.x) * chunk, hi = std::min(n, lo + chunk);
  for (std::int64_t base = lo; base < hi; base += blockDim.x) {
    const std::int64_t i = base + threadIdx.x;
    const bool active = i < hi;
    const std::uint64_t t = active ? in[i] : 0;
    const std::uint32_t at = warp_bump(cursor, active ? partition_of_item(t, fanout) : 0u, active);
    if (active) out[at] = t;
  }
}

// The scratch, carved in this order (each piece 256-byte aligned): the histogram matrix, its scan,
// CUB's temporary storage. base null: only the size (CUB asked what it needs); base set: the
// pieces of a region of `bytes` (the size computed before), CUB's share what is left, so that the
// timed launcher asks CUB nothing.
struct SplitScratch {
  int blocks;
  std::int64_t chunk;
  std::size_t cells;  // fanout x blocks
  std::uint32_t *hist, *offsets;
  void* cub;
  std::size_t cub_bytes, total;

  SplitScratch(void* base, std::int64_t n, std::uint32_t fanout, std::size_t bytes = 0) {
    // As many blocks as fill the GPU, but at least kMinChunk tuples each and no more cells in the
    // matrix than tuples (a small n with a large fanout would otherwise scan mostly zeros).
    const std::int64_t most = std::int64_t(sm_count()) * kBlocksPerSm;
    blocks = int(std::max<std::int64_t>(1, std::min({most, ceil_div(std::max<std::int64_t>(n, 1), kMinChunk), n / fanout})));
    // Chunks of whole block-widths, so every block's loads start aligned; the last ones may be empty.
    chunk = ceil_div(ceil_div(std::max<std::int64_t>(n, 1), blocks), kThreads) * kThreads;
    cells = std::size_t(fanout) * std::size_t(blocks);
    Carve c(base);
    hist = c.take<std::uint32_t>(cells);
    offsets = c.take<std::uint32_t>(cells);
    cub = c.take_rest(bytes, [&] { return exclusive_sum_u32_bytes(std::int64_t(cells)); }, cub_bytes);
    total = c.used();
  }
};

inline int grid_for(std::int64_t n) {
  return int(std::max<std::int64_t>(1, std::min<std::int64_t>(ceil_div(n, kThreads), std::int64_t(sm_count()) * kBlocksPerSm)));
}

}  // namespace split_detail

// The map primitive (3.1.1) with the split's function: ids[i] = partition_of(in[i], fanout), in
// being the keys (std::uint32_t) or the tuple words (std::uint64_t).
template <class T>
void map_partitions(const T* in, std::int64_t n, std::uint32_t fanout, std::uint32_t* ids, cudaStream_t stream) {
  if (n <= 0) return;
  constexpr std::int64_t kVec = 16 / sizeof(T);
  const bool aligned = reinterpret_cast<std::uintptr_t>(in) % 16 == 0 && reinterpret_cast<std::uintptr_t>(ids) % (4 * kVec) == 0;
  const std::int64_t vectors = aligned ? n / kVec : 0;
  const int grid = split_detail::grid_for(aligned ? std::max<std::int64_t>(vectors, 1) : n);
  split_detail::map_kernel<T><<<grid, split_detail::kThreads, 0, stream>>>(in, n, vectors, fanout, ids);
  LP_CUDA_LAUNCH("map_kernel");
}

// Why split cannot run these sizes, or "": the matrix's offsets are 32-bit, and the shared-memory
// histogram holds at most 2^12 partitions (16 KiB, within every GPU's default 48 KiB).
inline std::string split_unsupported(std::int64_t n, std::uint32_t fanout) {
  if (n >= (std::int64_t(1) << 32)) return "n >= 2^32: the split's offsets are 32-bit";
  if (fanout < 1 || fanout > 4096) return "fanout outside 1..4096: one shared-memory histogram per block";
  return {};
}

inline std::size_t split_scratch_bytes(std::int64_t n, std::uint32_t fanout) { return split_detail::SplitScratch(nullptr, n, fanout).total; }

// Thread blocks (the paper's thread groups) the split of n tuples runs: a record's metric.
inline int split_blocks(std::int64_t n, std::uint32_t fanout) { return split_detail::SplitScratch(nullptr, n, fanout).blocks; }

// in[0, n): tuple words; out[0, n): the tuples grouped by partition, in partition order;
// scratch: split_scratch_bytes(n, fanout) bytes.
inline void split(const std::uint64_t* in, std::int64_t n, std::uint32_t fanout, std::uint64_t* out, void* scratch, std::size_t scratch_bytes,
                  cudaStream_t stream) {
  if (n <= 0) return;
  using namespace split_detail;
  SplitScratch w(scratch, n, fanout, scratch_bytes);
  const std::size_t shared = std::size_t(fanout) * sizeof(std::uint32_t);
  count_kernel<<<w.blocks, kThreads, shared, stream>>>(in, n, w.chunk, fanout, w.hist);
  LP_CUDA_LAUNCH("split count_kernel");
  std::size_t bytes = w.cub_bytes;
  LP_CUDA(cub::DeviceScan::ExclusiveSum(w.cub, bytes, w.hist, w.offsets, int(w.cells), stream));
  scatter_kernel<<<w.blocks, kThreads, shared, stream>>>(in, n, w.chunk, fanout, w.offsets, out);
  LP_CUDA_LAUNCH("split scatter_kernel");
}

}  // namespace lp::join
