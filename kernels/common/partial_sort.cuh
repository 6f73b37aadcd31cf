// The GPU partial radix sort of the sort-first algorithms (thesis Alg 4.9 with sortBits, Table 4.2;
// 4.5.1 "Scatter with sorting"): CUB's stable radix sort of (label, value) pairs by the top `bits`
// of the ceil(log2 m) label bits. Stable, so the inputs of one label keep their input order.
#pragma once
#include <cuda_runtime.h>

#include <cub/device/device_radix_sort.cuh>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "cuda_check.cuh"
#include "label_bits.hpp"

namespace lp {

// The sorted bits [end - bits, end) of the label: never more than there are; bits <= 0 sorts by
// none (callers skip the sort then).
inline int partial_sort_begin_bit(std::uint32_t m, int bits) {
  const int end = label_bits(m);
  return end - std::clamp(bits, 0, end);
}

// CUB's temporary storage for sorting n pairs with values of type V by `bits` top label bits.
template <class V>
std::size_t partial_sort_temp_bytes(std::int64_t n, std::uint32_t m, int bits) {
  std::size_t bytes = 0;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, bytes, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
                                          static_cast<const V*>(nullptr), static_cast<V*>(nullptr), n, partial_sort_begin_bit(m, bits),
                                          label_bits(m)));
  return bytes;
}

// Sorts the n pairs (keys_in, vals_in) into (keys_out, vals_out) by the top `bits` label bits.
template <class V>
void partial_sort_pairs(void* temp, std::size_t temp_bytes, const std::uint32_t* keys_in, std::uint32_t* keys_out, const V* vals_in,
                        V* vals_out, std::int64_t n, std::uint32_t m, int bits, cudaStream_t stream) {
  LP_CUDA(cub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, vals_in, vals_out, n, partial_sort_begin_bit(m, bits),
                                          label_bits(m), stream));
}

}  // namespace lp
