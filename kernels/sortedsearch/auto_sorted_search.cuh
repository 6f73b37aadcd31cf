// auto for the sorted search (issue 21): per |B| / |A| and key size, the variant the H100 ratio
// sweeps measured fastest (results/h100/sortedsearch_ratios/): one binary search per needle beyond
// the switch ratio, the windowed search (tiles sized to the ratio) from kWindowedLow up to it and
// below kMergePathLow, ModernGPU's merge path between (needle-heavy inputs, where its diagonal
// tiles do less per key).
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

// Between these |B| / |A| the merge path's diagonal tiles win: a needle tile then holds little
// haystack, and the windowed kernel's per-needle work (stage, search, walk, write) sets its pace.
// H100, |A| + |B| = 2^27: int32 windowed 1.01-1.06x the merge path from 1/64 to 1/12, 0.92-0.99x
// from 1/8 to 1/3, 1.09x at 1/2 (distinct keys); int64 1.10x at 1:1, 0.76-1.0x below.
template <class T>
constexpr double kMergePathLow = sizeof(T) <= 4 ? 1.0 / 10 : 0.0;
template <class T>
constexpr double kWindowedLow = sizeof(T) <= 4 ? 0.5 : 1.0;

template <class T>
SearchChoice choose_search(std::int64_t a_count, std::int64_t b_count) {
  if (searches_per_needle(a_count, b_count, kBinarySwitchRatio<T>)) return SearchChoice::BinarySearch;
  const double r = a_count > 0 ? double(b_count) / double(a_count) : 0.0;
  return r >= kWindowedLow<T> || r < kMergePathLow<T> ? SearchChoice::Windowed : SearchChoice::MergePath;
}

template <class MPTuning, class WinShape>
std::size_t auto_search_scratch_bytes(std::int64_t a_count, std::int64_t b_count) {
  const std::size_t m = mergepath_scratch_bytes<MPTuning>(a_count, b_count), w = windowed_scratch_bytes<WinShape>(a_count);
  return m > w ? m : w;
}

// Bound B (Lower or Upper) of every needle of sorted A into sorted B, by choose_search. `a_base`
// is added to every index: B is a slice of a haystack starting there (several GPUs).
template <class MPTuning, class WinShape, Bounds B, class T>
void auto_sorted_search(const T* a, int a_count, const T* b, int b_count, std::uint32_t* out, void* scratch, cudaStream_t stream,
                        std::uint32_t a_base = 0) {
  switch (choose_search<T>(a_count, b_count)) {
    case SearchChoice::BinarySearch: return binary_search<B>(a, a_count, b, b_count, out, stream, Less{}, a_base);
    // choose_search has decided the switch: the windowed launcher must not decide it again.
    case SearchChoice::Windowed:
      return windowed_sorted_search<WinShape, B>(a, a_count, b, b_count, out, scratch, stream, kNeverSwitch, Less{}, 0, a_base);
    default:
      return mergepath_sorted_search<MPTuning, B, Output::Index, Output::None>(a, a_count, b, b_count, out, nullptr, scratch, nullptr, stream,
                                                                               nullptr, Less{}, a_base);
  }
}

}  // namespace lp::sortedsearch
