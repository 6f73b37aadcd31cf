// The peer both counting studies measure (histogram; multireduce with values = ones):
// cub::DeviceHistogram::HistogramEven with bins + 1 even levels over [0, bins), wrapped once, with
// the limits of CUB's own indexing that a caller must respect.
#pragma once
#include <cub/device/device_histogram.cuh>

#include <cstddef>
#include <cstdint>
#include <string>

#include "../common/cuda_check.cuh"

namespace lp::histogram {

// Temporary storage for (n, bins); a host call, made outside the timed region.
template <class T, class Counter>
std::size_t cub_histogram_even_bytes(std::int64_t n, std::uint32_t bins) {
  std::size_t bytes = 0;
  LP_CUDA(cub::DeviceHistogram::HistogramEven(nullptr, bytes, static_cast<const T*>(nullptr), static_cast<Counter*>(nullptr), int(bins) + 1, 0,
                                              int(bins), int(n)));
  return bytes;
}

// Why CUB cannot run (n, bins), or "". CUB counts samples with an int, and (CCCL 3.0,
// agent_histogram.cuh) offsets each block's private counters by blockId * bins in int: once the
// grid's counters pass 2^31 the offset wraps and the kernel writes out of bounds (seen as an
// illegal address at 2^24 bins and n = 2^20 + 7, where CUB takes 128+ blocks). The temporary
// storage is those counters, so its size tells the product.
template <class T, class Counter>
std::string cub_histogram_even_unsupported(std::int64_t n, std::uint32_t bins) {
  if (n > (std::int64_t(1) << 31) - 1) return "CUB counts samples in int";
  if (bins > (1u << 30)) return "levels do not fit in int";
  const std::size_t counters = cub_histogram_even_bytes<T, Counter>(n, bins) / sizeof(Counter);
  if (counters >= (std::size_t(1) << 31))
    return "CUB offsets its blocks' private counters (" + std::to_string(counters) + " here) in int, which overflows beyond 2^31";
  return "";
}

template <class T, class Counter>
void cub_histogram_even(const T* samples, std::int64_t n, std::uint32_t bins, Counter* out, void* scratch, std::size_t scratch_bytes,
                        cudaStream_t s) {
  // Levels are int: 256 bins of byte samples need an upper level of 256, which a byte cannot hold.
  LP_CUDA(cub::DeviceHistogram::HistogramEven(scratch, scratch_bytes, samples, out, int(bins) + 1, 0, int(bins), int(n), s));
}

}  // namespace lp::histogram
