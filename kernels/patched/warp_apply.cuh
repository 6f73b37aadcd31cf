// Ours: the patches of a chunk applied by the threads that decoded it, together, right after its
// rows are stored: thread t takes patches t, t + TPC, ... of the chunk's contiguous range
// [lane_offsets[c * lanes], lane_offsets[(c + 1) * lanes]), so the reads of indices and values are
// coalesced and the work does not depend on how the patches fall on lanes. The overwrites hit lines
// the warp has just written (L2). For chunks dense with patches (the clustered case), where one
// lane's cursor (galp_lane_cursor.cuh) would walk up to W patches with strided reads.
#pragma once
#include "common.cuh"

namespace lp::patched {

// A thread's patches go kApplyBatch at a time: all their indices and values are loaded before any
// store, since a store may alias a later load as far as the compiler knows and would otherwise
// wait each load's latency in turn. A chunk dense with patches (up to 1024 on u8's 8 threads a
// chunk) was a chain of 128 such waits that held the whole decode up: clustered u8 at 0.01% took
// 0.056 ms against 0.037 without patches (results/h200/patched/probes/ceiling_rows_unbatched.json).
constexpr int kApplyBatch = 8;

// Called by every thread of the warp after its row stores (the caller's __syncwarp orders them
// before these overwrites). `mine`: the thread's chunk exists.
template <class T>
__device__ void warp_apply_chunk(const DevicePatched<T>& a, std::int64_t c, bool mine, int t, int threads_per_chunk, T* out) {
  if (!mine) return;
  const std::uint32_t e = __ldg(a.lane_offsets + (c + 1) * kLanes<T>), step = threads_per_chunk;
  T* o = out + c * kChunk;
  std::uint32_t k = __ldg(a.lane_offsets + c * kLanes<T>) + t;
  for (; k + (kApplyBatch - 1) * step < e; k += kApplyBatch * step) {
    std::uint16_t at[kApplyBatch];
    T v[kApplyBatch];
#pragma unroll
    for (int j = 0; j < kApplyBatch; ++j) at[j] = __ldg(a.indices + k + j * step), v[j] = a.values[k + j * step];
#pragma unroll
    for (int j = 0; j < kApplyBatch; ++j) o[at[j]] = v[j];
  }
  for (; k < e; k += step) o[__ldg(a.indices + k)] = a.values[k];
}

}  // namespace lp::patched
