// The decode kernel of a PatchedArray: FastLanes bit-unpacking (frame of reference, bit width w,
// 1024-element chunks; fastlanes.hpp) with the patches applied in the same kernel, as G-ALP
// (DaMoN 2025) fuses exception patching into the decoder. One warp decodes one to four chunks
// (WarpShape, common.cuh: two for u64, four for u8, one for u8 under the lane cursors): it stages
// their packed words in shared memory with asynchronous copies (all of a chunk's loads in flight at once, whatever w), then produces the
// chunks row by row, each thread its V lanes, each chunk's row 128 contiguous bytes. How the patches
// go in:
//   None      not at all (the decode of the two-pass variants)
//   Lanes     G-ALP: each thread's lane cursor swaps patches in as rows come out (galp_lane_cursor.cuh)
//   Warp      the warp applies its chunk's patches together after the rows (warp_apply.cuh)
// (`auto` picks among these and the two-pass forms per column, from a profile of lane_offsets: auto.cuh.)
// The launchers take device pointers, sizes and a stream; every launch is checked.
#pragma once
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "../common/cuda_check.cuh"
#include "../common/device_facts.cuh"
#include "../common/launch_cache.cuh"
#include "common.cuh"
#include "galp_lane_cursor.cuh"
#include "warp_apply.cuh"

namespace lp::patched {

enum class Patching { None, Lanes, Warp };

// The warp's shape for a patching: the lane cursors keep 4 u8 lanes a thread (common.cuh).
template <class T, Patching P>
using ShapeFor = WarpShape<T, sizeof(T) == 1 && P == Patching::Lanes ? kCursorLanesU8 : default_lanes_per_thread<T>()>;

template <class T, Patching P>
__global__ void __launch_bounds__(1024) decode_kernel(DevicePatched<T> a, T* __restrict__ out) {
  using S = ShapeFor<T, P>;
  extern __shared__ __align__(16) unsigned char stage_bytes[];
  const int lane_id = int(threadIdx.x & 31);
  const std::int64_t chunks = chunks_of(a.n);
  const std::int64_t first = ((std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5) * S::CPW;
  if (first >= chunks) return;  // the whole warp: every later warp-wide call sees all 32 threads
  const std::int64_t wpc = words_per_chunk<T>(a.w);
  T* stage = reinterpret_cast<T*>(stage_bytes) + std::int64_t(threadIdx.x >> 5) * S::CPW * wpc;

  // 1. The warp's packed words (contiguous: its chunks are adjacent) into shared memory, 16 bytes
  //    per copy (a chunk is 128 * w bytes), all in flight together.
  {
    const int group = int(std::min<std::int64_t>(S::CPW, chunks - first));
    const char* src = reinterpret_cast<const char*>(a.words + first * wpc);
    char* dst = reinterpret_cast<char*>(stage);
    const int copies = int(group * wpc * std::int64_t(sizeof(T)) / 16);
    for (int i = lane_id; i < copies; i += 32) __pipeline_memcpy_async(dst + 16 * i, src + 16 * i, 16);
    __pipeline_commit();
  }

  // 2. While they land: the thread's chunk, lanes, base and patch state.
  const int sub = lane_id / S::TPC, t = lane_id % S::TPC;
  const std::int64_t c = first + sub;
  const bool mine = c < chunks;
  const T base = mine ? a.bases[c] : T(0);
  const int valid = mine ? int(std::min<std::int64_t>(kChunk, a.n - c * kChunk)) : 0;
  constexpr bool kCursor = P == Patching::Lanes;
  constexpr bool kSwar = sizeof(T) == 1 && !kCursor && S::kVecBytes == 16;
  const std::uint32_t base4 = std::uint32_t(std::uint8_t(base)) * 0x01010101u;
  LaneCursor<T, S::V> cursor;
  if (kCursor && mine) cursor.init(a, c * S::L + S::V * t);

  __pipeline_wait_prior(0);
  __syncwarp();

  // 3. Row by row: bit offset r * w of every lane (warp-uniform), V lanes per thread from one
  //    shared-memory word each (consecutive threads, consecutive words: no bank conflicts).
  const T* sw = stage + sub * wpc;
  T* o = out + c * kChunk;
  for (int r = 0; r < S::W; ++r) {
    const int q0 = r * S::L + S::V * t;  // in-chunk position of the thread's first lane
    if (r * S::L >= valid) break;         // the partial last chunk ends
    const BitAt at = bit_at<T>(r, a.w);
    const bool cross = at.shift + a.w > S::W;
    const typename S::Vec lo = *reinterpret_cast<const typename S::Vec*>(sw + at.word * S::L + S::V * t);
    const typename S::Vec hi = cross ? *reinterpret_cast<const typename S::Vec*>(sw + (at.word + 1) * S::L + S::V * t) : lo;
    typename S::Vec x;
    if constexpr (kSwar) {
      // u8 without lane cursors: the row's 16 lanes four to a word (fastlanes.hpp, unpack4_u8).
      x = make_uint4(unpack4_u8(lo.x, hi.x, at.shift, a.w, base4), unpack4_u8(lo.y, hi.y, at.shift, a.w, base4),
                     unpack4_u8(lo.z, hi.z, at.shift, a.w, base4), unpack4_u8(lo.w, hi.w, at.shift, a.w, base4));
    } else {
      T v[S::V];
#pragma unroll
      for (int k = 0; k < S::V; ++k) v[k] = T(base + extract_bits<T>(S::get(lo, k), S::get(hi, k), at.shift, a.w));
      if (kCursor && mine) cursor.apply(a, r, v);
      x = S::put(v);
    }
    if (!mine) continue;
    if (q0 + S::V <= valid) {
      *reinterpret_cast<typename S::Vec*>(o + q0) = x;
    } else {
#pragma unroll
      for (int k = 0; k < S::V; ++k)
        if (q0 + k < valid) o[q0 + k] = S::get(x, k);
    }
  }

  // 4. The cooperative apply: after every row store of the warp (__syncwarp orders the warp's
  //    global writes), so an overwrite always lands after the decoded value.
  if constexpr (P == Patching::Warp) {
    __syncwarp();
    warp_apply_chunk(a, c, mine, t, S::TPC, out);
  }
}

// Shared memory per warp: its chunks' packed words.
template <class T, Patching P>
std::size_t stage_bytes_per_warp(int w) {
  return std::size_t(ShapeFor<T, P>::CPW) * std::size_t(words_per_chunk<T>(w)) * sizeof(T);
}

// A staged decode's launch (this file's kernel and alp_decode.cuh's): a warp covers `cpw` chunks and
// stages `per_warp` bytes; as many warps a block as asked, but never more than the staging area
// lets fit one block (u64 at w = 64 stages 16 KiB a warp).
template <class Kernel, class... Args>
void launch_staged(Kernel kernel, std::size_t per_warp, std::int64_t chunks, int cpw, const Tuning& tune, cudaStream_t s, const char* what,
                   const Args&... args) {
  if (chunks == 0) return;
  const std::size_t max_smem = max_shared_per_block();
  int warps = (tune.threads > 0 ? tune.threads : kDefaultThreads) / 32;
  if (per_warp > 0) warps = std::max(1, std::min<int>(warps, int(max_smem / per_warp)));
  const std::size_t smem = per_warp * std::size_t(warps);
  allow_dynamic_shared(reinterpret_cast<const void*>(kernel), smem);
  const std::int64_t warps_needed = (chunks + cpw - 1) / cpw;
  const std::int64_t blocks = (warps_needed + warps - 1) / warps;
  kernel<<<unsigned(blocks), unsigned(warps * 32), smem, s>>>(args...);
  cuda_check(cudaGetLastError(), what, __FILE__, __LINE__);  // LP_CUDA_LAUNCH with the caller's name
}

template <class T, Patching P>
void launch_decode(const DevicePatched<T>& a, T* out, const Tuning& tune, cudaStream_t s) {
  launch_staged(decode_kernel<T, P>, stage_bytes_per_warp<T, P>(a.w), chunks_of(a.n), ShapeFor<T, P>::CPW, tune, s, "launch of patched decode_kernel",
                a, out);
}

// The decode of a column with patching P: an integer column's here, a float column's
// (DeviceAlp) in alp_decode.cuh; the entry points below serve both.
template <Patching P, class T>
void launch_patching(const DevicePatched<T>& a, T* out, const Tuning& tune, cudaStream_t s) {
  launch_decode<T, P>(a, out, tune, s);
}

// The plain decode (no patches): the first pass of the two-pass variants.
template <class A, class T>
void decode_unpatched(const A& a, T* out, const Tuning& tune, cudaStream_t s) {
  launch_patching<Patching::None>(a, out, tune, s);
}
// G-ALP: patches swapped in by each lane's cursor as its rows are produced.
template <class A, class T>
void fused(const A& a, T* out, const Tuning& tune, cudaStream_t s) {
  launch_patching<Patching::Lanes>(a, out, tune, s);
}
// Decode, then the warp's chunk patched cooperatively, in one kernel.
template <class A, class T>
void fused_warp_apply(const A& a, T* out, const Tuning& tune, cudaStream_t s) {
  launch_patching<Patching::Warp>(a, out, tune, s);
}

}  // namespace lp::patched
