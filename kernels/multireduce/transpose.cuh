// Thesis Alg 4.5 (Baxter's transposition), Alg 4.6 (per-segment) and Alg 4.7 (padded per-segment,
// Fig 4.6): coalesced loads through shared memory so that each thread of a block gets nItems
// consecutive items of its own contiguous segment per step.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "common.cuh"

namespace lp::multireduce {

// Elements of shared memory per thread of one staging buffer. Alg 4.7 pads each thread's chunk by
// one element, so that nItems can be a multiple of 8 (32-byte aligned global chunks) while the
// threads of a warp still read their k-th item from different banks.
__host__ __device__ constexpr int transpose_stride(Tuning::Transpose s, int n_items) {
  return s == Tuning::Transpose::Padded ? n_items + 1 : n_items;
}

// Bytes of one staging buffer of T for a block of `threads` threads.
template <class T>
std::size_t transpose_buffer_bytes(Tuning::Transpose s, int n_items, int threads) {
  return std::size_t(transpose_stride(s, n_items)) * std::size_t(threads) * sizeof(T);
}

// Length of each thread's segment when `threads_total` threads cover n inputs: rounded up to a
// multiple of n_items, so every step but the last of a segment stages a full chunk and (with
// n_items a multiple of 8) every chunk of 4-byte words starts on a 32-byte boundary.
inline std::int64_t per_thread_segment_length(std::int64_t n, std::int64_t threads_total, int n_items) {
  const std::int64_t per = ceil_div(std::max<std::int64_t>(n, 1), std::max<std::int64_t>(threads_total, 1));
  return ceil_div(per, n_items) * n_items;
}

// The block's view of its threads' segments: thread t of the block owns the inputs
// [first + t * seg_len, first + (t + 1) * seg_len) cut at n. A step is an offset `step` into every
// segment (0, n_items, 2 n_items, ...); stage() brings items [step, step + n_items) of all segments
// of the block into a shared buffer, after which thread t finds its k-th item (k < count(step)) at
// slot(k). Items past the end of a segment or of the input are never loaded nor counted.
//
// All threads of the block must call stage() together, with a __syncthreads() between the stage
// and the reads of slot() (other threads wrote those slots) and another before the next stage
// overwrites them. Alg 4.6 and Alg 4.7 store each loaded word directly (the thesis notes that
// Baxter's local array is not needed); Alg 4.5 keeps Baxter's structure: a batch of loads goes to
// registers first and is stored to shared memory after, in the unpadded layout. Where the
// segments are adjacent (seg_len == n_items) the staged block is contiguous and the three schemes
// fetch exactly the addresses of Baxter's original; otherwise Baxter's contiguous block becomes the
// threads' current chunks laid end to end, which is the only way its transposition can serve
// per-thread segments.
template <Tuning::Transpose S>
struct SegmentTransposer {
  std::int64_t first;    // first input of the block's thread 0
  std::int64_t seg_len;  // inputs per thread segment
  std::int64_t n;        // inputs in total: positions >= n do not exist
  int n_items;           // items per thread per step
  int stride;            // shared elements per thread (transpose_stride)

  // Loads in flight per thread before they are stored (Alg 4.5's local array, in batches so that
  // any n_items works without a runtime-sized array).
  static constexpr int kBaxterBatch = 8;

  __device__ SegmentTransposer(std::int64_t first_, std::int64_t seg_len_, std::int64_t n_, int n_items_)
      : first(first_), seg_len(seg_len_), n(n_), n_items(n_items_), stride(transpose_stride(S, n_items_)) {}

  // Whether any thread of the block has items at this step (thread 0's position is the smallest,
  // so this is uniform across the block and safe as a loop condition around __syncthreads).
  __device__ __forceinline__ bool block_has(std::int64_t step) const { return step < seg_len && first + step < n; }

  // Valid items of the calling thread at this step, in [0, n_items].
  __device__ __forceinline__ int count(std::int64_t step) const {
    const std::int64_t begin = first + std::int64_t(threadIdx.x) * seg_len;
    const std::int64_t end = std::min(begin + seg_len, n);
    const std::int64_t c = end - begin - step;
    return c <= 0 ? 0 : c >= n_items ? n_items : int(c);
  }

  // Shared slot of the calling thread's k-th item.
  __device__ __forceinline__ int slot(int k) const { return int(threadIdx.x) * stride + k; }

  // Global position of element i of the staged tile (chunk i / n_items, item i % n_items), or -1
  // where that item does not exist.
  __device__ __forceinline__ std::int64_t position(std::int64_t step, int i, int& seg, int& off) const {
    seg = i / n_items;
    off = i - seg * n_items;
    const std::int64_t within = step + off;
    const std::int64_t pos = first + std::int64_t(seg) * seg_len + within;
    return within < seg_len && pos < n ? pos : -1;
  }

  template <class T>
  __device__ void stage(const T* __restrict__ src, T* buf, std::int64_t step) const {
    const int threads = blockDim.x;
    const int tile = n_items * threads;
    if constexpr (S == Tuning::Transpose::Baxter) {
      // Alg 4.5: values[k] = data[nThreads * k + threadId]; sharedValues[nThreads * k + threadId] =
      // values[k]. Element i of the tile lands at i, which is slot(k) of chunk i / n_items.
      for (int i0 = threadIdx.x; i0 < tile; i0 += kBaxterBatch * threads) {
        T r[kBaxterBatch];
        unsigned ok = 0;
#pragma unroll
        for (int u = 0; u < kBaxterBatch; ++u) {
          const int i = i0 + u * threads;
          int seg, off;
          const std::int64_t pos = i < tile ? position(step, i, seg, off) : -1;
          if (pos >= 0) {
            r[u] = src[pos];
            ok |= 1u << u;
          }
        }
#pragma unroll
        for (int u = 0; u < kBaxterBatch; ++u)
          if (ok >> u & 1u) buf[i0 + u * threads] = r[u];
      }
    } else {
      // Alg 4.6 / 4.7: consecutive i of one chunk are consecutive addresses, so a warp's loads
      // are runs of n_items words; stored at chunk * stride + item (stride n_items + 1 in 4.7).
      for (int i = threadIdx.x; i < tile; i += threads) {
        int seg, off;
        const std::int64_t pos = position(step, i, seg, off);
        if (pos >= 0) buf[seg * stride + off] = src[pos];
      }
    }
  }
};

// The in-order fold both transposing non-commutative kernels share (Algs 4.7/4.8 and Fig 4.13):
// each thread folds its own segment, staged step by step through shared memory, into its own
// bucket set (bucket b at mine[b * set_stride]). Only the thread touches its set, so no atomics,
// and the fold follows input order, so non-commutative operators are safe.
template <class Op, Tuning::Transpose S>
__device__ void fold_segment_in_order(const SegmentTransposer<S>& tr, const std::uint32_t* __restrict__ labels,
                                      const typename Op::value_type* __restrict__ values,
                                      std::uint32_t* stage_labels, typename Op::value_type* stage_values, int n_items,
                                      typename Op::value_type* mine, std::int64_t set_stride) {
  for (std::int64_t step = 0; tr.block_has(step); step += n_items) {
    __syncthreads();  // every thread has read the previous step's slots
    tr.stage(labels, stage_labels, step);
    tr.stage(values, stage_values, step);
    __syncthreads();
    const int count = tr.count(step);
    for (int k = 0; k < count; ++k) {
      const int s = tr.slot(k);
      typename Op::value_type* p = mine + std::int64_t(stage_labels[s]) * set_stride;
      *p = Op::apply(*p, stage_values[s]);
    }
  }
}

}  // namespace lp::multireduce
