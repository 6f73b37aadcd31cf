// Sorted random inputs for the sorted-search tests (CPU and GPU): small key ranges give many
// duplicates, large ones nearly distinct keys.
#pragma once
#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

template <class T>
std::vector<T> sorted_random(std::mt19937_64& rng, size_t n, std::int64_t lo, std::int64_t hi) {
  std::uniform_int_distribution<std::int64_t> d(lo, hi);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(d(rng));
  std::sort(v.begin(), v.end());
  return v;
}
