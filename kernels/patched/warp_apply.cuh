// Ours: the patches of a chunk applied by the threads that decoded it, together, right after its
// rows are stored: thread t takes patches t, t + TPC, ... of the chunk's contiguous range
// [lane_offsets[c * lanes], lane_offsets[(c + 1) * lanes]), so the reads of indices and values are
// coalesced and the work does not depend on how the patches fall on lanes. The overwrites hit lines
// the warp has just written (L2). For chunks dense with patches (the clustered case), where one
// lane's cursor (galp_lane_cursor.cuh) would walk up to W patches with strided reads.
#pragma once
#include "common.cuh"

namespace lp::patched {

// Called by every thread of the warp after its row stores (the caller's __syncwarp orders them
// before these overwrites). `mine`: the thread's chunk exists.
template <class T>
__device__ void warp_apply_chunk(const DevicePatched<T>& a, std::int64_t c, bool mine, int t, int threads_per_chunk, T* out) {
  if (!mine) return;
  const std::uint32_t e = __ldg(a.lane_offsets + (c + 1) * kLanes<T>);
  T* o = out + c * kChunk;
  for (std::uint32_t k = __ldg(a.lane_offsets + c * kLanes<T>) + t; k < e; k += threads_per_chunk) o[__ldg(a.indices + k)] = a.values[k];
}

}  // namespace lp::patched
