// ALP's decode on the GPU (Afroozeh, Kuffo, Boncz, "ALP: Adaptive Lossless floating-Point
// Compression", SIGMOD 2024) from the packed layout of cpu_reference/patched/alp_layout.hpp, with
// the exceptions patched in the seed's layout as G-ALP (Hepkema et al., DaMoN 2025) does. The
// integer path's kernel (fused.cuh) with two differences: every chunk has its own width, exponent,
// factor and base, so a warp stages its chunks' words from their word offsets (contiguous, since
// chunks are stored in order) and each thread reads its chunk's header; and each unpacked integer is
// multiplied back to a float (ALP) or glued to its left part from the dictionary (ALP-RD). Patches
// go in as in the integer path (Patching: none, the lane cursors, the warp's apply), on the value's
// bits, so NaN payloads, -0.0 and subnormals come back exactly. Values are written as their bits
// (U: u32 for float, u64 for double). No configs, no files.
#pragma once
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "../common/cuda_check.cuh"
#include "../common/plan_graph.cuh"
#include "common.cuh"
#include "fused.cuh"
#include "galp_lane_cursor.cuh"
#include "warp_apply.cuh"

namespace lp::patched {

// An ALP-encoded column on the device. U: the value's bits.
template <class U>
struct DeviceAlp {
  DevicePatched<U> patches;  // n, the exceptions (lane_offsets, indices, values, count); its words, bases and w are unused
  bool rd = false;           // ALP-RD, else ALP
  // ALP: per chunk its exponent e, factor f, width w and frame base; chunk c's words are
  // [word_offset[c], word_offset[c + 1]) of words.
  int max_w = 0;  // the widest chunk: what a warp stages at most
  const std::uint8_t* e = nullptr;
  const std::uint8_t* f = nullptr;
  const std::uint8_t* w = nullptr;
  const U* bases = nullptr;
  const std::int64_t* word_offset = nullptr;
  const U* words = nullptr;
  // ALP-RD: the right parts packed at right_w bits (right_bits of them, the rest zero), the left
  // parts' dictionary codes at code_w, each with a frame base per chunk, and the dictionary.
  int right_bits = 0, right_w = 0, code_w = 0, dictionary_size = 0;
  const U* right_words = nullptr;
  const U* right_bases = nullptr;
  const U* code_words = nullptr;
  const U* code_bases = nullptr;
  const std::uint16_t* dictionary = nullptr;
};

// Its patches, what the second passes and auto read (common.cuh has the integer column's).
template <class U>
const DevicePatched<U>& patches_of(const DeviceAlp<U>& a) { return a.patches; }
template <class U>
constexpr bool is_alp(const DeviceAlp<U>&) { return true; }

namespace alp_detail {

// ALP's decode of one integer: to F, times 10^f, times 10^-e, each rounded to nearest (the CPU
// reference's order, alp.hpp decode_value). The powers are computed, not tabled: 10^k is exact in F
// for every k ALP uses (5^18 < 2^53, 5^10 < 2^24), and 1 / 10^k rounded once is the nearest F to
// 10^-k, which is what the reference's literals are.
template <class U>
struct Scale;
template <>
struct Scale<std::uint32_t> {
  float mul, div;
  __device__ Scale(int e, int f) {
    float p = 1.0f, q = 1.0f;
    for (int k = 0; k < f; ++k) p = __fmul_rn(p, 10.0f);
    for (int k = 0; k < e; ++k) q = __fmul_rn(q, 10.0f);
    mul = p;
    div = __fdiv_rn(1.0f, q);
  }
  __device__ std::uint32_t operator()(std::uint32_t n) const {
    return __float_as_uint(__fmul_rn(__fmul_rn(__int2float_rn(int(n)), mul), div));
  }
};
template <>
struct Scale<std::uint64_t> {
  double mul, div;
  __device__ Scale(int e, int f) {
    double p = 1.0, q = 1.0;
    for (int k = 0; k < f; ++k) p = __dmul_rn(p, 10.0);
    for (int k = 0; k < e; ++k) q = __dmul_rn(q, 10.0);
    mul = p;
    div = __ddiv_rn(1.0, q);
  }
  __device__ std::uint64_t operator()(std::uint64_t n) const {
    return std::uint64_t(__double_as_longlong(__dmul_rn(__dmul_rn(__ll2double_rn(static_cast<long long>(n)), mul), div)));
  }
};

// Row r of the lane whose words start at `sw` (a chunk staged in shared memory, lane t), width w.
template <class U>
__device__ U unpack_row(const U* sw, int t, int r, int w) {
  if (w == 0) return U(0);
  const BitAt at = bit_at<U>(r, w);
  const U lo = sw[at.word * kLanes<U> + t];
  const U hi = at.shift + w > kBits<U> ? sw[(at.word + 1) * kLanes<U> + t] : lo;
  return extract_bits<U>(lo, hi, at.shift, w);
}

// Words of the staging area of one warp: its chunks at the widest width.
template <class U>
LP_HD std::int64_t stage_words_per_warp(const DeviceAlp<U>& a) {
  const int per_chunk = a.rd ? a.right_w + a.code_w : a.max_w;
  return std::int64_t(WarpShape<U>::CPW) * words_per_chunk<U>(per_chunk);
}

// 16-byte asynchronous copies of `words` words from src to dst by the warp (both 16-byte aligned:
// a chunk's words are 128 * w bytes).
template <class U>
__device__ void stage_copy(U* dst, const U* src, std::int64_t words, int lane_id) {
  const int copies = int(words * std::int64_t(sizeof(U)) / 16);
  for (int i = lane_id; i < copies; i += 32)
    __pipeline_memcpy_async(reinterpret_cast<char*>(dst) + 16 * i, reinterpret_cast<const char*>(src) + 16 * i, 16);
}

}  // namespace alp_detail

template <class U, Patching P>
__global__ void __launch_bounds__(1024) alp_decode_kernel(DeviceAlp<U> a, U* __restrict__ out) {
  using S = WarpShape<U>;
  static_assert(S::V == 1, "u32 and u64: one lane a thread");
  constexpr int L = S::L;
  extern __shared__ __align__(16) unsigned char alp_stage_bytes[];
  const int lane_id = int(threadIdx.x & 31);
  const std::int64_t n = a.patches.n, chunks = chunks_of(n);
  const std::int64_t first = ((std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) >> 5) * S::CPW;
  if (first >= chunks) return;  // the whole warp
  const int group = int(std::min<std::int64_t>(S::CPW, chunks - first));
  U* stage = reinterpret_cast<U*>(alp_stage_bytes) + std::int64_t(threadIdx.x >> 5) * alp_detail::stage_words_per_warp(a);

  // 1. The warp's chunks into shared memory, all copies in flight together. ALP: one contiguous
  //    range of words (its chunks' widths differ); ALP-RD: the right parts, then the codes.
  std::int64_t w0 = 0;
  if (!a.rd) {
    w0 = __ldg(a.word_offset + first);
    alp_detail::stage_copy(stage, a.words + w0, __ldg(a.word_offset + first + group) - w0, lane_id);
  } else {
    alp_detail::stage_copy(stage, a.right_words + first * words_per_chunk<U>(a.right_w), group * words_per_chunk<U>(a.right_w), lane_id);
    alp_detail::stage_copy(stage + group * words_per_chunk<U>(a.right_w), a.code_words + first * words_per_chunk<U>(a.code_w),
                           group * words_per_chunk<U>(a.code_w), lane_id);
  }
  __pipeline_commit();

  // 2. While they land: the thread's chunk, its header and its patch cursor.
  const int sub = lane_id / S::TPC, t = lane_id % S::TPC;
  const std::int64_t c = first + sub;
  const bool mine = c < chunks;
  const int valid = mine ? int(std::min<std::int64_t>(kChunk, n - c * kChunk)) : 0;
  constexpr bool kCursor = P == Patching::Lanes;
  LaneCursor<U, 1> cursor;
  if (kCursor && mine) cursor.init(a.patches, c * L + t);
  int w = 0;
  U base = 0, code_base = 0;
  const U* sw = stage;
  const U* sc = stage;
  alp_detail::Scale<U> scale(mine && !a.rd ? int(__ldg(a.e + c)) : 0, mine && !a.rd ? int(__ldg(a.f + c)) : 0);
  if (mine && !a.rd) {
    w = __ldg(a.w + c);
    base = a.bases[c];
    sw = stage + (__ldg(a.word_offset + c) - w0);
  } else if (mine) {
    w = a.right_w;
    base = a.right_bases[c];
    code_base = a.code_bases[c];
    sw = stage + sub * words_per_chunk<U>(a.right_w);
    sc = stage + group * words_per_chunk<U>(a.right_w) + sub * words_per_chunk<U>(a.code_w);
  }

  __pipeline_wait_prior(0);
  __syncwarp();

  // 3. Row by row, one value a thread; consecutive threads, consecutive words and outputs.
  U* o = out + c * kChunk;
  for (int r = 0; r < S::W; ++r) {
    const int q = r * L + t;
    if (r * L >= valid) break;
    U bits;
    if (!a.rd) {
      bits = scale(U(base + alp_detail::unpack_row(sw, t, r, w)));
    } else {
      const U right = U(base + alp_detail::unpack_row(sw, t, r, w));
      const U code = U(code_base + alp_detail::unpack_row(sc, t, r, a.code_w));
      const U left = code < U(a.dictionary_size) ? U(__ldg(a.dictionary + code)) : U(0);
      bits = U(left << a.right_bits) | right;
    }
    U v[1] = {bits};
    if (kCursor && mine) cursor.apply(a.patches, r, v);
    if (q < valid) o[q] = v[0];
  }

  // 4. The warp's apply, after its stores (as in fused.cuh).
  if constexpr (P == Patching::Warp) {
    __syncwarp();
    warp_apply_chunk(a.patches, c, mine, t, S::TPC, out);
  }
}

// The float column's decode with patching P (fused.cuh's entry points call it).
template <Patching P, class U>
void launch_patching(const DeviceAlp<U>& a, U* out, const Tuning& tune, cudaStream_t s) {
  launch_staged(alp_decode_kernel<U, P>, std::size_t(alp_detail::stage_words_per_warp(a)) * sizeof(U), chunks_of(a.patches.n),
                WarpShape<U>::CPW, tune, s, "launch of patched alp_decode_kernel", a, out);
}

// What the plan graph's key holds of a float column (auto.cuh has the integer column's).
template <class U>
std::string array_key(const DeviceAlp<U>& a) {
  const DevicePatched<U>& p = a.patches;
  return plan_key("patched", p.n, p.lane_offsets, p.indices, p.values, p.count) + plan_key("alp", a.rd, a.max_w, a.e, a.f, a.w, a.bases, a.word_offset, a.words, a.right_bits, a.right_w,
                                         a.code_w, a.dictionary_size, a.right_words, a.right_bases, a.code_words, a.code_bases, a.dictionary);
}

}  // namespace lp::patched
