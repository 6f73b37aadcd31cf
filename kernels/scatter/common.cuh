// What the scatter/gather kernels share (thesis 1.2, 3.2.2, 4.5.1): the knobs, grid sizing, the
// scratch carving, and the random index stream of the random-access probes. Kernels move values as
// raw words (W = uint32_t or uint64_t): a scatter or gather never looks at what the bits mean.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "../common/carve.hpp"
#include "../common/cuda_check.cuh"
#include "../common/hd.hpp"
#include "../common/device_facts.cuh"
#include "../common/label_bits.hpp"
#include "../common/launch_cache.cuh"
#include "probe_index.hpp"

namespace lp::scatter {

// Knobs a variant may take (0 = the variant's own default); where they come from is the study's
// business.
struct Tuning {
  int threads = 0;        // threads per block
  int blocks_per_sm = 0;  // resident blocks per SM the grid is sized for
  int sort_bits = 0;      // 4.5.1: top label bits sorted by first (0: the variant's choice)
  int passes = 0;         // He et al.'s multi-pass scheme: passes (0: their cost model's choice)
};

constexpr int kDefaultThreads = 256;
constexpr int kDefaultBlocksPerSm = 8;  // 8 x 256 = 2048 threads, an H100 SM's maximum

inline int threads_of(const Tuning& t) { return t.threads > 0 ? t.threads : kDefaultThreads; }

// Resident blocks for a pass over `work` items: blocks_per_sm on every SM, never more than needed.
inline int grid_for(std::int64_t work, const Tuning& t) {
  const std::int64_t want = std::int64_t(sm_count()) * (t.blocks_per_sm > 0 ? t.blocks_per_sm : kDefaultBlocksPerSm);
  return int(std::max<std::int64_t>(1, std::min(want, ceil_div(std::max<std::int64_t>(work, 1), threads_of(t)))));
}

}  // namespace lp::scatter
