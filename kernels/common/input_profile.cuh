// The input profile on the device (beyond the documents): one block reads the sample of
// input_profile.hpp from up to two columns, counts it in shared memory, finishes the profile and
// evaluates the study's decision table on it in the same kernel. Inside a plan graph
// (plan_graph.cuh) it then sets the switch that runs the chosen plan: the decision never goes
// through the host. The profile and the plan land in a Slot the study reads back after its
// timed runs, for the record.
#pragma once
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "cuda_check.cuh"
#include "input_profile.hpp"

namespace lp::profile {

// The columns a study's profile reads: one (labels, keys) or two (a join's build and probe keys).
template <class K>
struct Columns {
  const K* first = nullptr;
  std::int64_t n_first = 0;
  std::uint64_t m_first = 0;  // the label domain (0: none stated)
  const K* second = nullptr;
  std::int64_t n_second = 0;
  std::uint64_t m_second = 0;
};

constexpr int kThreads = 1024;
constexpr int kWindowsPerWarp = kWindows / (kThreads / 32);
static_assert(kWindowsPerWarp * (kThreads / 32) == kWindows, "every warp reads the same number of windows");

// The shared counters of one column (the warps' atomics land here).
struct SharedCounts {
  unsigned sampled, pairs, ascending, equal, runs, windows_ascending, occupied, heaviest;
  unsigned long long min, max;
  unsigned long long firsts[kWindows];
};

// Before the block's next barrier: every counter zero, the minimum at its top.
__device__ inline void zero(SharedCounts& sc) {
  unsigned* w = reinterpret_cast<unsigned*>(&sc);
  constexpr int kMin = int(offsetof(SharedCounts, min) / 4);
  for (int i = threadIdx.x; i < int(sizeof(SharedCounts) / 4); i += blockDim.x) w[i] = i == kMin || i == kMin + 1 ? ~0u : 0u;
}

template <class T>
__device__ __forceinline__ T warp_min(T v) {
  for (int o = 16; o > 0; o >>= 1) {
    const T u = __shfl_xor_sync(0xffffffffu, v, o);
    v = u < v ? u : v;
  }
  return v;
}
template <class T>
__device__ __forceinline__ T warp_max(T v) {
  for (int o = 16; o > 0; o >>= 1) {
    const T u = __shfl_xor_sync(0xffffffffu, v, o);
    v = u > v ? u : v;
  }
  return v;
}

// Each warp loads its windows' elements at once (one memory round trip for the whole sample), then
// counts them: neighbour pairs, and each run of equal labels adds one to the sketch counter of its
// label (one atomic a run: a window of one label is one update). `bloom` (joins' build side)
// gets the sampled keys' bits. Counts accumulate per lane and are reduced once per warp: the pass is
// a chain of dependent warp operations, and its length is the look's cost.
template <class K>
__device__ void sample_column(const K* __restrict__ a, std::int64_t n, unsigned* sketch, unsigned* bloom, SharedCounts& sc) {
  constexpr unsigned kFull = 0xffffffffu;
  const int warp = threadIdx.x / 32, lane = threadIdx.x & 31;
  const int windows = windows_for(n);
  std::uint64_t x[kWindowsPerWarp];
  bool valid[kWindowsPerWarp];
#pragma unroll
  for (int j = 0; j < kWindowsPerWarp; ++j) {
    const int w = warp * kWindowsPerWarp + j;
    const std::int64_t i = w < windows ? window_start(n, w, windows) + lane : n;
    valid[j] = i < n;
    x[j] = valid[j] ? key_of(a[i]) : 0;
  }
  unsigned pairs = 0, asc = 0, eq = 0, sampled = 0, runs = 0;
  std::uint64_t mn = ~std::uint64_t(0), mx = 0;
#pragma unroll
  for (int j = 0; j < kWindowsPerWarp; ++j) {
    const int w = warp * kWindowsPerWarp + j;
    if (w >= windows) continue;  // uniform across the warp: every lane calls the shuffles below
    const std::uint64_t mine = x[j];
    const std::uint64_t next = __shfl_down_sync(kFull, mine, 1), prev = __shfl_up_sync(kFull, mine, 1);
    const unsigned vmask = __ballot_sync(kFull, valid[j]);  // a prefix of the lanes
    const bool pair = lane < 31 && ((vmask >> (lane + 1)) & 1u);
    pairs += pair;
    asc += pair && next >= mine;
    eq += pair && next == mine;
    const unsigned leaders = __ballot_sync(kFull, valid[j] && (lane == 0 || prev != mine));
    runs += lane == 0 ? __popc(leaders) : 0;
    if (valid[j]) {
      ++sampled;
      mn = mine < mn ? mine : mn, mx = mine > mx ? mine : mx;
      if ((leaders >> lane) & 1u) atomicAdd(sketch + bucket_of(mine), 1u);  // a run starts here
      if (bloom)
        for (int k = 0; k < kBloomHashes; ++k) atomicOr(bloom + bloom_bit(mine, k) / 32, 1u << (bloom_bit(mine, k) % 32));
    }
    if (lane == 0) sc.firsts[w] = mine;
  }
  pairs = __reduce_add_sync(kFull, pairs), asc = __reduce_add_sync(kFull, asc), eq = __reduce_add_sync(kFull, eq);
  sampled = __reduce_add_sync(kFull, sampled), runs = __reduce_add_sync(kFull, runs);
  const unsigned long long lo = warp_min((unsigned long long)mn), hi = warp_max((unsigned long long)mx);
  if (lane == 0 && sampled > 0) {
    atomicAdd(&sc.sampled, sampled);
    atomicAdd(&sc.pairs, pairs);
    atomicAdd(&sc.ascending, asc);
    atomicAdd(&sc.equal, eq);
    atomicAdd(&sc.runs, runs);
    atomicMin(&sc.min, lo);
    atomicMax(&sc.max, hi);
  }
}

// After the column's sketch is complete: its counters' occupancy and fullest counter, and the
// windows' global order.
__device__ inline void count_sketch(const unsigned* sketch, SharedCounts& sc, int windows) {
  unsigned d = 0, heavy = 0;
  for (int s = threadIdx.x; s < kBuckets; s += blockDim.x) {
    const unsigned k = sketch[s];
    d += k > 0;
    heavy = max(heavy, k);
  }
  unsigned up = threadIdx.x + 1 < unsigned(windows) && sc.firsts[threadIdx.x + 1] >= sc.firsts[threadIdx.x];
  d = __reduce_add_sync(0xffffffffu, d), up = __reduce_add_sync(0xffffffffu, up), heavy = __reduce_max_sync(0xffffffffu, heavy);
  if ((threadIdx.x & 31) == 0) {
    atomicAdd(&sc.occupied, d);
    atomicAdd(&sc.windows_ascending, up);
    atomicMax(&sc.heaviest, heavy);
  }
}

__device__ inline Counts to_counts(const SharedCounts& sc, int windows) {
  Counts c;
  c.sampled = sc.sampled;
  c.pairs = sc.pairs;
  c.ascending = sc.ascending;
  c.equal = sc.equal;
  c.windows = unsigned(windows);
  c.windows_ascending = sc.windows_ascending;
  c.runs = sc.runs;
  c.occupied = sc.occupied;
  c.heaviest = sc.heaviest;
  c.min = sc.sampled ? sc.min : 0;
  c.max = sc.max;
  return c;
}

// The pass. `cols.second` (may be null) is a join's probe column: its sampled keys are looked up in
// the first column's Bloom filter (the match estimate) while it is counted. `decide(first, second,
// match)` is the study's decision table; its answer is the plan. With `set_switch` the kernel runs
// inside a plan graph and sets the switch `handle` to the plan.
template <class K, class Decide>
__global__ void __launch_bounds__(kThreads, 1)
    profile_kernel(Columns<K> cols, Decide decide, Slot* slot, cudaGraphConditionalHandle handle, bool set_switch) {
  __shared__ unsigned sketch[kBuckets];
  __shared__ SharedCounts sc;
  __shared__ Counts counted[2];
  __shared__ unsigned probe_hits, probe_sampled;
  __shared__ unsigned bloom[kBloomWords];
  const int columns = cols.second && cols.n_second > 0 ? 2 : 1;
  for (int col = 0; col < columns; ++col) {
    const K* __restrict__ a = col == 0 ? cols.first : cols.second;
    const std::int64_t n = col == 0 ? cols.n_first : cols.n_second;
    for (int i = threadIdx.x; i < kBuckets; i += kThreads) sketch[i] = 0;
    if (col == 0 && columns == 2)
      for (int i = threadIdx.x; i < kBloomWords; i += kThreads) bloom[i] = 0;
    if (threadIdx.x == 0) probe_hits = probe_sampled = 0;
    zero(sc);
    __syncthreads();
    sample_column(a, n, sketch, col == 0 && columns == 2 ? bloom : nullptr, sc);
    if (col == 1) {  // the probe side's sampled keys against the build side's filter
      const int windows = windows_for(n), warp = threadIdx.x / 32, lane = threadIdx.x & 31;
      unsigned hits = 0, seen = 0;
      for (int w = warp; w < windows; w += kThreads / 32) {
        const std::int64_t i = window_start(n, w, windows) + lane;
        if (i >= n) continue;
        ++seen, hits += bloom_holds(bloom, key_of(a[i]));
      }
      hits = __reduce_add_sync(0xffffffffu, hits), seen = __reduce_add_sync(0xffffffffu, seen);
      if (lane == 0) atomicAdd(&probe_hits, hits), atomicAdd(&probe_sampled, seen);
    }
    __syncthreads();
    count_sketch(sketch, sc, windows_for(n));
    __syncthreads();
    if (threadIdx.x == 0) {
      counted[col] = to_counts(sc, windows_for(n));
      counted[col].probe_hits = probe_hits;
      counted[col].probe_sampled = probe_sampled;
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    Slot s;
    s.columns = unsigned(columns);
    s.first = finish(counted[0], cols.n_first, cols.m_first);
    if (columns == 2) {
      s.second = finish(counted[1], cols.n_second, cols.m_second);
      s.match = match_estimate(counted[1], s.first);
    }
    s.plan = decide(s.first, s.second, s.match);
    *slot = s;
    if (set_switch) cudaGraphSetConditional(handle, s.plan);
  }
}

// Enqueues the pass on `s`. Outside a plan graph (set_switch false) it only fills the slot: the
// tests, and the measurement of what the look costs.
template <class K, class Decide>
void launch_profile(const Columns<K>& cols, const Decide& decide, Slot* slot, cudaGraphConditionalHandle handle, bool set_switch,
                    cudaStream_t s) {
  profile_kernel<K, Decide><<<1, kThreads, 0, s>>>(cols, decide, slot, handle, set_switch);
  LP_CUDA_LAUNCH("profile_kernel");
}

}  // namespace lp::profile
