#include "stats.hpp"

#include <algorithm>
#include <cmath>

namespace harness {

TimeStats TimeStats::of(std::vector<double> samples) {
  TimeStats t;
  t.samples = samples;
  if (samples.empty()) return t;
  std::sort(samples.begin(), samples.end());
  size_t n = samples.size();
  t.median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
  t.min = samples.front();
  t.max = samples.back();
  double mean = 0;
  for (double s : samples) mean += s;
  mean /= n;
  double var = 0;
  for (double s : samples) var += (s - mean) * (s - mean);
  t.stddev = n > 1 ? std::sqrt(var / (n - 1)) : 0.0;
  return t;
}

}  // namespace harness
