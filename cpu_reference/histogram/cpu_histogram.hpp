// CPU histogram: the sequential count that is both the `cpu_sequential` baseline of the histogram
// study and the reference every GPU record is validated against (exact equality). Plain C++.
#pragma once
#include <cstdint>

namespace lp::cpu {

// counts[b] = number of samples equal to b, for b in [0, bins). Samples >= bins are not counted
// (as in CUB's HistogramEven); the study's inputs never contain any.
template <class T>
void histogram_sequential(const T* samples, std::int64_t n, std::uint32_t bins, std::uint32_t* counts) {
  for (std::uint32_t b = 0; b < bins; ++b) counts[b] = 0;
  for (std::int64_t i = 0; i < n; ++i) {
    const std::uint32_t s = samples[i];
    if (s < bins) ++counts[s];
  }
}

}  // namespace lp::cpu
