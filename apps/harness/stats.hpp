// Summary statistics of repeated timings. No JSON here, so CUDA translation units can use it.
#pragma once
#include <vector>

namespace harness {

struct TimeStats {
  double median = 0, min = 0, max = 0, stddev = 0;
  std::vector<double> samples;
  static TimeStats of(std::vector<double> samples);
  double rsd() const { return median > 0 ? stddev / median : 0; }
};

}  // namespace harness
