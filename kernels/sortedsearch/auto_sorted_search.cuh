// auto for the sorted search (issue 21): per |B| / |A| and key size, the variant the H100 ratio
// sweep measured fastest (results/h100/sortedsearch_ratios/): one binary search per needle beyond
// the switch ratio, the windowed search around |A| = |B|, ModernGPU's merge path elsewhere (its
// diagonal tiles balance A-heavy and B-heavy inputs alike, where a needle tile's span varies).
#pragma once
#include <cstdint>

#include "binary_search.cuh"
#include "mergepath_sorted_search.cuh"
#include "windowed_sorted_search.cuh"

namespace lp::sortedsearch {

enum class SearchChoice { MergePath, Windowed, BinarySearch };

inline const char* choice_name(SearchChoice c) {
  return c == SearchChoice::BinarySearch ? "binary_search" : c == SearchChoice::Windowed ? "windowed" : "mergepath";
}

// The windowed search measured at or ahead of the merge path only near |A| = |B| (2^27 keys,
// int32: 0.367 against 0.372 ms at 1:1, behind it at 2:1 and 1:2).
constexpr double kWindowedLow = 2.0 / 3.0, kWindowedHigh = 1.5;

template <class T>
SearchChoice choose_search(std::int64_t a_count, std::int64_t b_count) {
  if (searches_per_needle(a_count, b_count, kBinarySwitchRatio<T>)) return SearchChoice::BinarySearch;
  const double r = a_count > 0 ? double(b_count) / double(a_count) : 0.0;
  return r >= kWindowedLow && r <= kWindowedHigh ? SearchChoice::Windowed : SearchChoice::MergePath;
}

template <class MPTuning, class WinTuning, class T>
std::size_t auto_search_scratch_bytes(std::int64_t a_count, std::int64_t b_count) {
  const std::size_t m = mergepath_scratch_bytes<MPTuning>(a_count, b_count), w = windowed_scratch_bytes<WinTuning>(a_count);
  return m > w ? m : w;
}

// Bound B (Lower or Upper) of every needle of sorted A into sorted B, by choose_search.
template <class MPTuning, class WinTuning, Bounds B, class T>
void auto_sorted_search(const T* a, int a_count, const T* b, int b_count, std::uint32_t* out, void* scratch, cudaStream_t stream) {
  switch (choose_search<T>(a_count, b_count)) {
    case SearchChoice::BinarySearch: return binary_search<B>(a, a_count, b, b_count, out, stream);
    case SearchChoice::Windowed: return windowed_sorted_search<WinTuning, B>(a, a_count, b, b_count, out, scratch, stream);
    default: return mergepath_sorted_search<MPTuning, B, Output::Index, Output::None>(a, a_count, b, b_count, out, nullptr, scratch, nullptr, stream);
  }
}

}  // namespace lp::sortedsearch
