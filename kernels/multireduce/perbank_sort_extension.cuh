// Thesis Alg 4.11 (Fig 4.16): sort by the label bits above the low 8, segment offsets, then Alg 4.10 per 256-label segment.
#pragma once
#include <cub/device/device_radix_sort.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "perbank.cuh"

namespace lp::multireduce {

namespace perbank_sort_detail {

// A segment is the inputs whose labels share label >> kSegShift: one 256-bucket range, which is
// what one per-bank bucket set in shared memory holds (the thesis's single-pass limit).
constexpr int kSegShift = 8;
constexpr std::uint32_t kSegBuckets = 1u << kSegShift;

inline std::size_t align256(std::size_t x) { return (x + 255) & ~std::size_t(255); }

inline std::int64_t segments(std::uint32_t m) { return ceil_div(m, kSegBuckets); }

// Sorting is needed only where labels have bits above the low 8 (m > 256); with m <= 256 the
// whole input is one segment and runs unsorted.
inline bool sorts(std::uint32_t m) { return label_bits(m) > kSegShift; }

template <class T>
std::size_t cub_temp_bytes(std::int64_t n, std::uint32_t m) {
  std::size_t bytes = 0;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, (const std::uint32_t*)nullptr, (std::uint32_t*)nullptr, (const T*)nullptr,
                                          (T*)nullptr, n, kSegShift, label_bits(m)));
  return bytes;
}

// Step 2 of the thesis: o_i = first position whose label is >= i * 256 (a lower bound in the
// sorted labels), o_0 = 0 and o_p = n, so segment i is [o_i, o_{i+1}). One thread per offset.
__global__ void segment_offsets_kernel(const std::uint32_t* __restrict__ sorted_labels, std::int64_t n, std::int64_t n_segments,
                                       std::int64_t* __restrict__ offsets) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i <= n_segments; i += std::int64_t(gridDim.x) * blockDim.x) {
    std::int64_t o;
    if (i == 0) {
      o = 0;
    } else if (i == n_segments) {
      o = n;
    } else {
      const std::uint64_t key = std::uint64_t(i) << kSegShift;
      std::int64_t lo = 0, hi = n;
      while (lo < hi) {
        const std::int64_t mid = lo + (hi - lo) / 2;
        if (std::uint64_t(sorted_labels[mid]) < key) lo = mid + 1;
        else hi = mid;
      }
      o = lo;
    }
    offsets[i] = o;
  }
}

// Step 3 (Alg 4.11): each block walks its contiguous part of the sorted input segment by segment.
// Thanks to the offsets a segment's length is known up front, so the per-bank main loop runs over
// it in whole tiles with no per-input segment check; at each segment end the block flushes its
// buckets to out[segment * 256 ...] atomically and resets them for the next one. A segment split
// between two blocks is flushed by both, which atomics make correct.
template <class Op>
__global__ void __launch_bounds__(1024) perbank_sort_extension_kernel(const std::uint32_t* __restrict__ labels,
                                                                      const typename Op::value_type* __restrict__ values, std::int64_t n,
                                                                      std::int64_t part, const std::int64_t* __restrict__ offsets,
                                                                      std::uint32_t m, typename Op::value_type* out) {
  using T = typename Op::value_type;
  T* sh = perbank_detail::shared_buckets<T>();
  perbank_detail::reset<Op>(sh, m < kSegBuckets ? m : kSegBuckets);
  std::int64_t pos = blockIdx.x * part;
  const std::int64_t end = std::min(n, pos + part);
  // pos and end are the same in every thread of the block, so is the loop and its barriers.
  while (pos < end) {
    const std::uint32_t seg = labels[pos] >> kSegShift;
    const std::int64_t seg_end = std::min(offsets[seg + 1], end);
    const std::uint32_t base = seg << kSegShift;
    const std::uint32_t nb = m - base < kSegBuckets ? m - base : kSegBuckets;  // (no std::min: it would take kSegBuckets by reference)
    __syncthreads();  // the reset (initial, or the previous flush's) is complete
    perbank_detail::accumulate<Op, false>(sh + threadIdx.x % perbank_detail::kBanks, labels, values, pos, seg_end, 0, 1, base, nb);
    __syncthreads();  // every update of this segment is in before the fold reads it
    perbank_detail::flush<Op>(sh, nb, out + base, true);
    pos = seg_end;
  }
}

template <class T>
std::size_t scratch_bytes(std::int64_t n, std::uint32_t m) {
  std::size_t bytes = align256(std::size_t(segments(m) + 1) * sizeof(std::int64_t));
  if (sorts(m)) bytes += align256(std::size_t(n) * 4) + align256(std::size_t(n) * sizeof(T)) + align256(cub_temp_bytes<T>(n, m));
  return bytes;
}

}  // namespace perbank_sort_detail

inline std::string perbank_sort_extension_unsupported(std::int64_t, std::uint32_t m, std::size_t value_bytes, const Tuning& tuning) {
  return perbank_detail::unsupported(std::min(m, perbank_sort_detail::kSegBuckets), value_bytes, tuning);
}

template <class T>
std::size_t perbank_sort_extension_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning&) {
  return perbank_sort_detail::scratch_bytes<T>(n, m);
}

template <class Op>
void perbank_sort_extension(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                            typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, const Tuning& tuning,
                            cudaStream_t stream) {
  namespace d = perbank_sort_detail;
  namespace pb = perbank_detail;
  using T = typename Op::value_type;
  fill(out, m, Op::identity(), stream);
  if (n <= 0) return;

  // Scratch: offsets, then (where a sort is needed) the sorted pairs and CUB's temporary storage.
  char* p = static_cast<char*>(scratch);
  const std::int64_t n_segments = d::segments(m);
  auto* offsets = reinterpret_cast<std::int64_t*>(p);
  p += d::align256(std::size_t(n_segments + 1) * sizeof(std::int64_t));
  const std::uint32_t* in_labels = labels;
  const T* in_values = values;
  if (d::sorts(m)) {
    auto* sorted_labels = reinterpret_cast<std::uint32_t*>(p);
    p += d::align256(std::size_t(n) * 4);
    auto* sorted_values = reinterpret_cast<T*>(p);
    p += d::align256(std::size_t(n) * sizeof(T));
    // The thesis's partial sort: bits [8, label_bits(m)) only; the low 8 pick the shared bucket.
    std::size_t temp_bytes = scratch_bytes - std::size_t(p - static_cast<char*>(scratch));
    LP_CUDA(cub::DeviceRadixSort::SortPairs(p, temp_bytes, labels, sorted_labels, values, sorted_values, n, d::kSegShift, label_bits(m),
                                            stream));
    in_labels = sorted_labels;
    in_values = sorted_values;
  }

  d::segment_offsets_kernel<<<grid_for(n_segments + 1, 256, 4), 256, 0, stream>>>(in_labels, n, n_segments, offsets);
  LP_CUDA_LAUNCH("segment_offsets_kernel");

  const std::uint32_t nb = std::min(m, d::kSegBuckets);
  const int threads = pb::threads_for(nb, tuning);
  const std::size_t smem = pb::shared_bytes(nb, sizeof(T));
  auto kernel = d::perbank_sort_extension_kernel<Op>;
  lp::allow_dynamic_shared(kernel, smem);
  const int grid = grid_for(ceil_div(n, 2 * pb::kPairs), threads, pb::blocks_per_sm(kernel, threads, smem, tuning));
  const std::int64_t part = ceil_div(n, grid);
  kernel<<<grid, threads, smem, stream>>>(in_labels, in_values, n, part, offsets, m, out);
  LP_CUDA_LAUNCH("perbank_sort_extension_kernel");
}

}  // namespace lp::multireduce
