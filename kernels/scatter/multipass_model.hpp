// The pass count of He et al.'s multi-pass scatter and gather (SC'07; thesis 3.2.2): their cost
// model weighs the extra traversals of the input against the cache misses each pass saves. Plain
// C++ (the CPU tests check it).
//
// Per input and pass: the 4-byte label is read, and the value (scatter) or output (gather) sector
// is touched where the pass holds one of the sector's inputs. Per input once: the random access,
// a hit with probability h(p) = min(1, C / (m W / p)) (pass p's slice of the buckets against the
// cache), else a miss of `miss` bytes (a 32-byte sector read; a scatter's partial write costs the
// sector's read and its write back). p minimises passes x sequential + misses.
#pragma once
#include <cmath>
#include <cstddef>
#include <cstdint>

namespace lp::scatter {

inline int multipass_passes(std::uint32_t m, std::size_t word_bytes, std::size_t cache_bytes, bool gather, int max_passes = 64) {
  const double window = double(m) * double(word_bytes), cache = double(cache_bytes);
  if (window <= cache) return 1;
  const double per_sector = 32.0 / double(word_bytes), miss = gather ? 32.0 : 64.0;
  int best = 1;
  double best_cost = 0;
  for (int p = 1; p <= max_passes; ++p) {
    const double touched = 1.0 - std::pow(1.0 - 1.0 / p, per_sector);  // a value sector holds one of the pass's inputs
    const double sequential = 4.0 + double(word_bytes) * touched;
    const double hit = std::fmin(1.0, cache * p / window);
    const double cost = p * sequential + (1.0 - hit) * miss;
    if (p == 1 || cost < best_cost) best = p, best_cost = cost;
  }
  return best;
}

}  // namespace lp::scatter
