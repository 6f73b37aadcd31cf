// A cheap look at the labels for `auto` (beyond the thesis): 256 warps each read 32 consecutive
// labels spread over the input (8 K labels, a few microseconds) and report whether their labels
// are all equal (degenerate, long runs), ascend (sorted: neighbours update neighbouring buckets)
// or contain duplicates (skew: zipf's hot labels), the properties that decide between global
// atomics, clusters and partitioning where no bucket set fits on chip.
#pragma once

#include "common.cuh"

namespace lp::multireduce {

struct LabelLook {
  double all_equal = 0;   // fraction of sampled warps whose 32 labels are one label
  double duplicates = 0;  // fraction of sampled warps with at least two equal labels
  double ascending = 0;   // fraction of sampled warps whose labels never decrease from lane to lane
  bool one_label = false;  // every sampled warp holds one and the same label (degenerate input, not runs)
  // Labels repeat (skew) where the duplicates exceed what 32 uniform labels over m values show by
  // chance (the birthday bound 1 - prod(1 - i/m): 0.38 at m = 1024, 0.008 at 2^16) by a quarter.
  bool repeats(std::uint32_t m) const {
    double distinct = 1;
    for (int i = 1; i < 32; ++i) distinct *= m > std::uint32_t(i) ? 1.0 - double(i) / m : 0.0;
    return duplicates >= (1.0 - distinct) + 0.25;
  }
};

constexpr int kLookSamples = 256, kLookThreads = 256, kLookBlocks = kLookSamples * 32 / kLookThreads;
constexpr int kLookWords = 5;  // per block: all equal, duplicates, ascending, warps of the block's first label, that label

// Each block counts its warps' answers in shared memory and writes its kLookWords words straight into
// pinned host memory (mapped under unified addressing): no memset before the kernel and no copy
// after it, two stream operations fewer between the decision and the work it decides (at n = 2^26
// and m = 2^20 on the H100 the look was 0.015 ms of auto's 0.24 with them).
static __global__ void __launch_bounds__(kLookThreads) label_look_kernel(const std::uint32_t* __restrict__ labels, std::int64_t n,
                                                                         unsigned* host_counts) {
  __shared__ unsigned counts[kLookWords];
  if (threadIdx.x < kLookWords) counts[threadIdx.x] = 0;
  __syncthreads();
  const int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x & 31;
  const std::int64_t start = n > 32 ? std::int64_t(warp) * (n - 32) / kLookSamples : 0;
  const bool valid = start + lane < n;
  const std::uint32_t l = valid ? labels[start + lane] : 0xffffffffu - lane;  // past the end: distinct
  const unsigned peers = __match_any_sync(0xffffffffu, l);
  const bool all = __all_sync(0xffffffffu, peers == 0xffffffffu);
  const bool dup = __any_sync(0xffffffffu, __popc(peers) > 1);
  const std::uint32_t next = __shfl_down_sync(0xffffffffu, l, 1);
  const bool up = __all_sync(0xffffffffu, lane == 31 || !valid || next >= l);
  if (threadIdx.x == 0) counts[4] = l;  // the block's first label
  __syncthreads();
  if (lane == 0) {
    if (all) atomicAdd(counts, 1u);
    if (dup) atomicAdd(counts + 1, 1u);
    if (up) atomicAdd(counts + 2, 1u);
    if (all && l == counts[4]) atomicAdd(counts + 3, 1u);
  }
  __syncthreads();
  if (threadIdx.x < kLookWords) host_counts[blockIdx.x * kLookWords + threadIdx.x] = counts[threadIdx.x];
}

// Synchronises `s` (the decision is the host's). The blocks' counts land in pinned host words, the
// launch cache's (pinned_words): no allocation in a timed run.
inline LabelLook look_at_labels(const std::uint32_t* labels, std::int64_t n, cudaStream_t s) {
  const void* owner = reinterpret_cast<const void*>(label_look_kernel);
  unsigned* host_counts = lp::pinned_words(owner, kLookWords * kLookBlocks);
  label_look_kernel<<<kLookBlocks, kLookThreads, 0, s>>>(labels, n, host_counts);
  LP_CUDA_LAUNCH("label_look_kernel");
  LP_CUDA(cudaStreamSynchronize(s));
  unsigned total[4] = {0, 0, 0, 0};
  bool same_first = true;
  for (int b = 0; b < kLookBlocks; ++b) {
    for (int k = 0; k < 4; ++k) total[k] += host_counts[b * kLookWords + k];
    same_first = same_first && host_counts[b * kLookWords + 4] == host_counts[4];
  }
  LabelLook look{double(total[0]) / kLookSamples, double(total[1]) / kLookSamples, double(total[2]) / kLookSamples};
  look.one_label = same_first && total[3] == kLookSamples;
  return look;
}

}  // namespace lp::multireduce
