// Thesis Alg 5.2 (Fig 5.2): the partitioning scheme of the multiscan. Each segment's local
// multiscan leaves its results in `out` and its bucket totals in a partials matrix; here the
// partials of every bucket are scanned across the segments (exclusive, in segment order) and each
// result gets its segment's scanned partial of its label prepended (the add-back), with the
// partials of a segment in shared memory for small m and read from global memory for large m.
#pragma once
#include "common.cuh"

namespace lp::multiscan {

// Where partial (segment s, bucket b) lives: partials[s * seg_stride + b * bucket_stride]. Blocks
// writing one segment's row use seg_stride = m, bucket_stride = 1; per-thread bucket sets of
// Alg 4.8 use bucket-major rows (seg_stride = 1, bucket_stride = nSegments).
struct PartialsLayout {
  std::int64_t segs = 0;
  std::uint32_t m = 0;
  std::int64_t seg_stride = 0, bucket_stride = 0;
  LP_HD std::int64_t at(std::int64_t s, std::uint32_t b) const { return s * seg_stride + std::int64_t(b) * bucket_stride; }
  static PartialsLayout segment_major(std::int64_t segs, std::uint32_t m) { return {segs, m, m, 1}; }
  static PartialsLayout bucket_major(std::int64_t segs, std::uint32_t m) { return {segs, m, 1, segs}; }
};

namespace partition_detail {

constexpr int kChunk = 32;     // segments one thread folds per level of the cross-segment scan
constexpr int kSerialMax = 64;  // at most this many segments: one thread scans a bucket alone

// Thread k handles (chunk c, bucket b), with consecutive threads on the unit-stride dimension so
// that a warp's accesses are coalesced in either layout.
LP_HD void split(const PartialsLayout& p, std::int64_t chunks, std::int64_t k, std::int64_t& c, std::uint32_t& b) {
  if (p.bucket_stride == 1) c = k / p.m, b = std::uint32_t(k % p.m);
  else b = std::uint32_t(k / chunks), c = k % chunks;
}

// Level up: tot[c * m + b] = fold of the partials of chunk c (segments [c * len, (c + 1) * len)).
template <class Op>
__global__ void fold_chunks_kernel(const typename Op::value_type* p, PartialsLayout lay, std::int64_t chunks, int len,
                                   typename Op::value_type* tot) {
  using T = typename Op::value_type;
  for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < chunks * lay.m; k += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t c;
    std::uint32_t b;
    split(lay, chunks, k, c, b);
    T acc = Op::identity();
    for (std::int64_t s = c * len; s < std::min<std::int64_t>(lay.segs, (c + 1) * len); ++s) acc = Op::apply(acc, p[lay.at(s, b)]);
    tot[c * lay.m + b] = acc;
  }
}

// Level down: each chunk's partials scanned in place, starting from the chunk's scanned total
// (`tot` after the level above was scanned), or from the identity where tot is null (one chunk).
template <class Op>
__global__ void scan_chunks_kernel(typename Op::value_type* p, PartialsLayout lay, std::int64_t chunks, std::int64_t len,
                                   const typename Op::value_type* tot) {
  using T = typename Op::value_type;
  for (std::int64_t k = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; k < chunks * lay.m; k += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t c;
    std::uint32_t b;
    split(lay, chunks, k, c, b);
    T acc = tot ? tot[c * lay.m + b] : Op::identity();
    for (std::int64_t s = c * len; s < std::min<std::int64_t>(lay.segs, (c + 1) * len); ++s) {
      const T x = p[lay.at(s, b)];
      p[lay.at(s, b)] = acc;
      acc = Op::apply(acc, x);
    }
  }
}

}  // namespace partition_detail

// Scratch of scan_partials: the chunk totals of every level.
inline std::size_t scan_partials_scratch_elems(std::int64_t segs, std::uint32_t m) {
  std::size_t e = 0;
  while (segs > partition_detail::kSerialMax) {
    segs = ceil_div(segs, partition_detail::kChunk);
    e += std::size_t(segs) * m;
  }
  return e;
}

// The scan of Alg 5.2's second loop (the thesis used CUDPP's "multiscan", i.e. many ordinary
// scans): every bucket's partials, exclusive, in segment order, in place. A tree of chunk folds
// keeps it parallel whether m is 1 (one long scan) or 2^20 (many short ones).
template <class Op>
void scan_partials(typename Op::value_type* partials, const PartialsLayout& lay, typename Op::value_type* scratch, cudaStream_t s) {
  using namespace partition_detail;
  if (lay.segs <= kSerialMax) {
    scan_chunks_kernel<Op><<<grid_for(lay.m, 256, 8), 256, 0, s>>>(partials, lay, 1, lay.segs, nullptr);
    LP_CUDA_LAUNCH("scan_chunks_kernel");
    return;
  }
  const std::int64_t chunks = ceil_div(lay.segs, kChunk);
  typename Op::value_type* tot = scratch;
  fold_chunks_kernel<Op><<<grid_for(chunks * lay.m, 256, 8), 256, 0, s>>>(partials, lay, chunks, kChunk, tot);
  LP_CUDA_LAUNCH("fold_chunks_kernel");
  scan_partials<Op>(tot, PartialsLayout::segment_major(chunks, lay.m), scratch + chunks * lay.m, s);
  scan_chunks_kernel<Op><<<grid_for(chunks * lay.m, 256, 8), 256, 0, s>>>(partials, lay, chunks, kChunk, tot);
  LP_CUDA_LAUNCH("scan_chunks_kernel");
}

// Alg 5.2's last loop, partials in global memory: out[i] = scanned[segment(i)][label] ⊙ out[i].
template <class Op>
__global__ void add_back_global_kernel(const std::uint32_t* __restrict__ labels, typename Op::value_type* out, std::int64_t n,
                                       std::int64_t seg_len, PartialsLayout lay, const typename Op::value_type* __restrict__ scanned) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = Op::apply(scanned[lay.at(i / seg_len, labels[i])], out[i]);
}

// The same with a block bringing its segment's m partials into shared memory first (the thesis's
// choice below 2^10 buckets); a block takes segments in turn.
template <class Op>
__global__ void add_back_shared_kernel(const std::uint32_t* __restrict__ labels, typename Op::value_type* out, std::int64_t n,
                                       std::int64_t seg_len, PartialsLayout lay, const typename Op::value_type* __restrict__ scanned) {
  using T = typename Op::value_type;
  extern __shared__ __align__(16) unsigned char add_back_smem[];
  T* row = reinterpret_cast<T*>(add_back_smem);
  for (std::int64_t s = blockIdx.x; s < lay.segs; s += gridDim.x) {
    for (std::uint32_t b = threadIdx.x; b < lay.m; b += blockDim.x) row[b] = scanned[lay.at(s, b)];
    __syncthreads();
    const std::int64_t end = std::min(n, (s + 1) * seg_len);
    for (std::int64_t i = s * seg_len + threadIdx.x; i < end; i += blockDim.x) out[i] = Op::apply(row[labels[i]], out[i]);
    __syncthreads();  // the row is overwritten by the next segment
  }
}

inline std::size_t partition_scratch_bytes(std::int64_t segs, std::uint32_t m, std::size_t value_bytes) {
  return scan_partials_scratch_elems(segs, m) * value_bytes;
}

// Phases 2 and 3 of Alg 5.2 after a family's local multiscans: segment s covers inputs
// [s * seg_len, (s + 1) * seg_len) and its bucket totals are partials[lay.at(s, b)] (scanned in
// place). `scratch` holds partition_scratch_bytes.
template <class Op>
void partition_finish(const std::uint32_t* labels, typename Op::value_type* out, std::int64_t n, std::int64_t seg_len,
                      typename Op::value_type* partials, const PartialsLayout& lay, void* scratch, std::uint32_t partials_switch,
                      cudaStream_t s) {
  using T = typename Op::value_type;
  scan_partials<Op>(partials, lay, static_cast<T*>(scratch), s);
  const std::size_t row_bytes = std::size_t(lay.m) * sizeof(T);
  if (lay.m < partials_switch && row_bytes <= 48 * 1024) {
    const int threads = 256;
    const int blocks = static_cast<int>(std::min<std::int64_t>(lay.segs, std::int64_t(multireduce::sm_count()) * 8));
    add_back_shared_kernel<Op><<<blocks, threads, row_bytes, s>>>(labels, out, n, seg_len, lay, partials);
    LP_CUDA_LAUNCH("add_back_shared_kernel");
  } else {
    add_back_global_kernel<Op><<<grid_for(n, 256, 8), 256, 0, s>>>(labels, out, n, seg_len, lay, partials);
    LP_CUDA_LAUNCH("add_back_global_kernel");
  }
}

}  // namespace lp::multiscan
