// Beyond the thesis: a single-pass multiscan for small and medium m. Each tile multiscans its
// inputs locally (warps in order, equal labels of a 32-input step combined in lane order, per-warp
// bucket sets in shared memory), then tiles exchange m-vectors of bucket aggregates through a
// decoupled look-back (Merrill and Garland 2016, generalised from one value to m buckets): every
// tile publishes its aggregate vector, walks back over its predecessors until one has published
// an inclusive prefix vector, and publishes its own. Inputs are read once and results written once.
// Two look-back forms: status flags with vectors (a 32-tile window of flags per round trip, then
// the vectors), and for 4-byte values and m <= 8 packed status+value words (one round trip per
// window, no fences).
#pragma once
#include <cuda/atomic>

#include <algorithm>
#include <cstdlib>
#include <stdexcept>
#include <type_traits>

#include "common.cuh"

namespace lp::multiscan {

namespace single_pass_detail {

// A tile's status word: nothing yet, its aggregate vector, or its inclusive prefix vector.
constexpr unsigned kInvalid = 0, kAggregate = 1, kPrefix = 2;
// Registers: ITEMS labels and results per thread stay live across the look-back; 512 threads
// leave 128 registers each.
constexpr int kMaxThreads = 512;
constexpr std::size_t kMaxVectorBytes = std::size_t(4) << 30;

// Where the look-back's vectors are folded by several threads a bucket (exchange_prefix's
// fold_parts): two or more threads a bucket.
__host__ __device__ inline bool split_fold(std::uint32_t m, int threads) { return 2 * std::size_t(m) <= std::size_t(threads); }

struct Plan {
  int threads = 0, items = 0, min_blocks = 1;
  std::int64_t tiles = 0;
  std::size_t smem = 0;
  std::string why;  // non-empty: cannot run
};

// Threads, items and the register cap (blocks_per_sm): the tuning's, else by m (below), threads cut
// to the warps whose bucket sets fit next to the prefix and aggregate vectors.
inline Plan plan(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  Plan p;
  // Defaults from the H100 probe (configs/multiscan/probe_single_pass.json): 512 x 32-input tiles
  // were the fastest or within 5% at every m from 1 to 1024 (shorter tiles with capped registers,
  // 256 x 16 at 3 or 4 blocks per SM, won only at m = 256, by 5%).
  p.items = t.n_items > 0 ? t.n_items : 32;
  if (p.items != 8 && p.items != 16 && p.items != 32) {
    p.why = "n_items = " + std::to_string(p.items) + ": single_pass takes 8, 16 or 32";
    return p;
  }
  p.min_blocks = t.blocks_per_sm > 0 ? t.blocks_per_sm : 1;
  if (p.min_blocks > 4 || (p.min_blocks > 1 && p.items == 8)) {
    p.why = "blocks_per_sm = " + std::to_string(p.min_blocks) + " with n_items = " + std::to_string(p.items) +
            ": single_pass is built for 1 to 4 (2 to 4 with 16 or 32 items)";
    return p;
  }
  const int max_threads = p.min_blocks == 1 ? kMaxThreads : 256;
  const std::size_t have = multireduce::max_shared_per_block(), vec = std::size_t(m) * value_bytes;
  if (t.threads > 0) {
    p.threads = t.threads;
    if (t.threads % 32 || t.threads > max_threads)
      p.why = "threads = " + std::to_string(t.threads) + ": whole warps up to " + std::to_string(max_threads) + " needed";
  } else {
    const std::size_t warps = have / vec > 2 ? have / vec - 2 : 0;
    p.threads = int(std::min<std::size_t>((p.min_blocks > 1 ? 256 : kMaxThreads) / 32, warps) * 32);
    if (p.threads == 0) p.threads = 32;
  }
  p.smem = (std::size_t(p.threads / 32) + 2) * vec + 16;
  if (split_fold(m, p.threads)) p.smem += std::size_t(p.threads) * value_bytes;  // exchange_prefix's fold parts
  if (p.why.empty() && p.smem > have)
    p.why = std::to_string(p.threads / 32) + " warp bucket sets of m = " + std::to_string(m) + " need " + std::to_string(p.smem) +
            " B of shared memory; a block has " + std::to_string(have) + " B";
  p.tiles = ceil_div(std::max<std::int64_t>(n, 1), std::int64_t(p.threads) * p.items);
  if (p.why.empty() && 2 * std::size_t(p.tiles) * vec > kMaxVectorBytes)
    p.why = std::to_string(p.tiles) + " tiles' aggregate and prefix vectors of m = " + std::to_string(m) + " exceed " +
            std::to_string(kMaxVectorBytes >> 30) + " GiB";
  return p;
}

// The L2 prefetch's distance as a fraction of the resident tiles (132 on the H100 at the default
// one block per SM: 16 tiles, 2 MB ahead). Measured (results/h100/multiscan/probes/lookahead_*.json): 3-9% faster
// from m = 4 to 1024 at 1/8 (m = 256 degenerate 0.595 -> 0.544 ms), within 1.5% at m = 1; slower
// at 1/4 and beyond (m = 1: 0.56 at 1/4, 0.62 at 1).
constexpr double kLookahead = 0.125;

// 4-byte values and m <= kPackedMaxM take the packed look-back (its words replace both vectors and
// are cleared every run). Up to one chunk of 8 buckets: measured faster at m = 1 and 4 (0.55
// against 0.59 ms), slower from m = 16 (0.66-0.77 against 0.57-0.60 ms; m = 256: 3.4 against 0.85).
constexpr std::uint32_t kPackedMaxM = 8;
inline bool packed(std::uint32_t m, std::size_t value_bytes) { return value_bytes == 4 && m <= kPackedMaxM; }

// Scratch: the tile counter and status words, then the aggregate and the inclusive prefix vectors.
inline std::size_t status_bytes(std::int64_t tiles) { return align256(std::size_t(tiles + 1) * sizeof(unsigned)); }

// The look-back's scratch for `tiles` tiles of m-vectors (single_pass, register_scan): the tile
// counter and status words, then the aggregate and the inclusive prefix vectors.
template <class T>
std::size_t look_back_bytes(std::int64_t tiles, std::uint32_t m) {
  return status_bytes(tiles) + 2 * align256(std::size_t(tiles) * m * sizeof(T));
}

// The look-back's reach a round trip, where it reads status flags: warp 0 loads the flags of
// `windows` windows of 32 predecessors at once and reads them nearest first, so a tile far from the
// nearest inclusive prefix walks back that many times as fast, and the block folds the vectors of
// all of them between one pair of barriers. Measured on the H200, n = 2^26 and 2^22
// (configs/multiscan/probe_look_back_windows.json, results/h200/multiscan/probes/look_back_windows/):
// on the short tiles of register_scan and perthread_scan (2 048 int64 inputs) eight windows took
// 0.67-0.77x the time of one at m = 1, 0.79-0.89x at 2, 0.83-0.99x at 4 and 0.86-0.99x at 8; on
// single_pass's long tiles (16 384 inputs) 0.87-0.90x at m = 1 but 1.10x at m = 2..8 at 2^26, where
// there are eight times fewer tiles and a step folds more vectors (0.93-0.95x at 2^22).
// The packed words (4-byte values, m <= 8) keep one window a round trip: the probe's build, which
// read up to eight windows of them too (not kept), took 1.03-1.07x the time of one window for two
// to eight (register_scan at m = 1, 2^26 int32, within that binary; 1.02-1.08x for register_scan
// and perthread_scan at m = 2 and 4), so at m = 1 on int32 the walk is not what sets the pace.
constexpr int kLookBackSlots = 8;  // the most windows: a lane's flag loads in flight
constexpr std::int64_t kShortTileInputs = 4096;
inline int look_back_windows(std::uint32_t m, std::size_t value_bytes, std::int64_t tile_inputs) {
  int windows = 1;  // packed words: packed_look_back reads one window a round trip
  if (!packed(m, value_bytes) && (m == 1 || (m <= 8 && tile_inputs <= kShortTileInputs))) windows = kLookBackSlots;
#ifdef LP_PROBE_LOOK_BACK_WINDOWS  // a tuning probe's build only (configs/multiscan/probe_look_back_windows.json)
  if (const char* e = std::getenv("LP_LOOK_BACK_WINDOWS")) windows = std::atoi(e);
#endif
  return std::max(1, std::min(windows, kLookBackSlots));
}

template <class T>
struct LookBackState {
  unsigned* status;
  T *aggregates, *prefixes;
  unsigned long long* words;  // non-null: the packed words, in place of both vectors (same bytes for 4-byte values)
  int windows;                // the look-back's windows a round trip
};

// Carves the scratch and zeroes the counter, the flags and the packed words, as every run must
// (part of the timed work).
template <class T>
LookBackState<T> look_back_state(void* scratch, std::int64_t tiles, std::int64_t tile_inputs, std::uint32_t m, cudaStream_t stream) {
  char* at = static_cast<char*>(scratch);
  LookBackState<T> x;
  x.status = reinterpret_cast<unsigned*>(at);
  at += status_bytes(tiles);
  x.aggregates = reinterpret_cast<T*>(at);
  at += align256(std::size_t(tiles) * m * sizeof(T));
  x.prefixes = reinterpret_cast<T*>(at);
  x.words = packed(m, sizeof(T)) ? reinterpret_cast<unsigned long long*>(x.aggregates) : nullptr;
  x.windows = look_back_windows(m, sizeof(T), tile_inputs);
  LP_CUDA(cudaMemsetAsync(x.status, 0, std::size_t(tiles + 1) * sizeof(unsigned), stream));
  if (x.words) LP_CUDA(cudaMemsetAsync(x.words, 0, std::size_t(tiles) * m * sizeof(unsigned long long), stream));
  return x;
}

// Tiles of runs (register_scan, perthread_scan): 256 threads, each with a run of 16 consecutive
// four-byte inputs or 8 eight-byte ones (64 B, four 16-byte loads), whose tiles exchange m-vectors
// through exchange_prefix.
constexpr int kRunThreads = 256;
constexpr int run_items(std::size_t value_bytes) { return value_bytes == 4 ? 16 : 8; }
template <class T>
constexpr int run_items() {
  return run_items(sizeof(T));
}
inline std::int64_t run_tile_inputs(std::size_t value_bytes) { return std::int64_t(kRunThreads) * run_items(value_bytes); }
inline std::int64_t run_tiles(std::int64_t n, std::size_t value_bytes) {
  return ceil_div(std::max<std::int64_t>(n, 1), std::int64_t(kRunThreads) * run_items(value_bytes));
}
// Their L2 prefetch's distance as a fraction of the resident tiles (132 SMs x 3 blocks on the H100:
// 99 tiles, 3.2 MB ahead). Measured with register_scan at m = 1
// (results/h100/multiscan/probes/lookahead_m1_*.json): 0.435-0.439 ms without, 0.388-0.390 at 1/4
// and 1/2, 0.41 at 1, 0.53 at 3/2 (prefetched lines evicted unused); perthread_scan's tiles are the
// same and take it untuned.
constexpr double kRunLookahead = 0.25;
// Why n inputs over m labels do not fit the run tiles' 32-bit tile numbers or look-back vectors, or "".
inline std::string run_tiles_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes) {
  if (n > (std::int64_t(1) << 31) * kRunThreads * 8) return "n too large for 32-bit tile numbers";
  if (2 * std::size_t(run_tiles(n, value_bytes)) * m * value_bytes > kMaxVectorBytes) return "the tiles' vectors exceed 4 GiB";
  return "";
}
template <class T>
std::size_t run_tiles_scratch_bytes(std::int64_t n, std::uint32_t m) {
  return look_back_bytes<T>(run_tiles(n, sizeof(T)), m);
}

template <class T>
__device__ __forceinline__ T load_cg(const T* p) {
  if constexpr (sizeof(T) == 4 || sizeof(T) == 8) {
    using W = std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;
    W w = __ldcg(reinterpret_cast<const W*>(p));
    T v;
    memcpy(&v, &w, sizeof(T));
    return v;
  } else {
    return *p;
  }
}

template <class T>
__device__ __forceinline__ void store_cg(T* p, const T& v) {
  using W = std::conditional_t<sizeof(T) == 4, unsigned, unsigned long long>;
  static_assert(sizeof(T) == sizeof(W), "values are one 4- or 8-byte word");
  W w;
  memcpy(&w, &v, sizeof(T));
  __stcg(reinterpret_cast<W*>(p), w);
}

// Packed look-back words (4-byte values, m <= kPackedMaxM): one 64-bit word per tile and bucket,
// the status in the high half and the value in the low half, so a reader gets both in one load and
// no fence orders a vector before its flag. Each bucket then runs CUB's scalar look-back on its own.
template <class T>
__device__ __forceinline__ unsigned long long pack(unsigned status, const T& v) {
  unsigned bits;
  memcpy(&bits, &v, sizeof(T));
  return (static_cast<unsigned long long>(status) << 32) | bits;
}
template <class T>
__device__ __forceinline__ T unpack(unsigned long long word) {
  const unsigned bits = static_cast<unsigned>(word);
  T v;
  memcpy(&v, &bits, sizeof(T));
  return v;
}
__device__ __forceinline__ unsigned long long load_word(unsigned long long* p) {
  return cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*p).load(cuda::memory_order_relaxed);
}
__device__ __forceinline__ void store_word(unsigned long long* p, unsigned long long w) {
  cuda::atomic_ref<unsigned long long, cuda::thread_scope_device>(*p).store(w, cuda::memory_order_relaxed);
}

// One window of a bucket's look-back: lane i holds the word of the tile i before the window's end.
// Returns (in lane 0) the fold, oldest first, of the tiles up to and including the nearest prefix.
template <class Op>
__device__ __forceinline__ typename Op::value_type fold_window(unsigned long long word, bool& found) {
  using T = typename Op::value_type;
  const int lane = threadIdx.x & 31;
  const unsigned prefix_lanes = __ballot_sync(0xffffffffu, unsigned(word >> 32) == kPrefix);
  found = prefix_lanes != 0;
  const int count = found ? __ffs(prefix_lanes) : 32;
  T x = lane < count ? unpack<T>(word) : Op::identity();
  for (int d = 1; d < 32; d *= 2) {  // lane i + d is older than lane i: it goes on the left
    const T older = multireduce::shfl(x, min(lane + d, 31));
    if (lane + d < 32) x = Op::apply(older, x);
  }
  return x;
}

// Packed look-back: warp w takes buckets in chunks of 8 and walks their windows together, one L2
// round trip per window for all 8 (a bucket that has found its prefix stops loading).
template <class Op>
__device__ void packed_look_back(unsigned long long* words, std::int64_t tile, std::uint32_t m, typename Op::value_type* pre) {
  using T = typename Op::value_type;
  constexpr int kChunk = 8;
  const int warps = blockDim.x / 32, w = threadIdx.x / 32, lane = threadIdx.x & 31;
  const unsigned long long past_start = pack(kPrefix, Op::identity());  // never counted: tile 0 is nearer
  for (std::uint32_t b0 = std::uint32_t(w) * kChunk; b0 < m; b0 += std::uint32_t(warps) * kChunk) {
    T acc[kChunk];
    unsigned done = 0;  // bit c: bucket b0 + c has its prefix (or does not exist)
#pragma unroll
    for (int c = 0; c < kChunk; ++c) {
      acc[c] = Op::identity();
      if (b0 + c >= m) done |= 1u << c;
    }
    for (std::int64_t end = tile; done != (1u << kChunk) - 1; end -= 32) {
      const std::int64_t j = end - 1 - lane;
      auto at = [&](int c) { return words + j * m + b0 + c; };
      unsigned long long word[kChunk];
#pragma unroll
      for (int c = 0; c < kChunk; ++c) word[c] = (!(done >> c & 1u) && j >= 0) ? load_word(at(c)) : past_start;
#pragma unroll
      for (int c = 0; c < kChunk; ++c) {
        if (done >> c & 1u) continue;
        while (unsigned(word[c] >> 32) == kInvalid) {
          __nanosleep(32);
          word[c] = load_word(at(c));
        }
        bool found;
        acc[c] = Op::apply(fold_window<Op>(word[c], found), acc[c]);
        if (found) done |= 1u << c;
      }
    }
    if (lane == 0)
#pragma unroll
      for (int c = 0; c < kChunk; ++c)
        if (b0 + c < m) pre[b0 + c] = acc[c];
  }
}

// Warp 0's read of `windows` windows of status flags before `end` (lane i, window k: tile
// end - 1 - i - 32 k), all loaded at once, then read nearest first up to the first window with an
// inclusive prefix. Returns the count of tiles to fold (the prefix's included), with the high bit
// set where a prefix was found.
__device__ __forceinline__ unsigned read_windows(unsigned* flags, std::int64_t end, int windows) {
  const int lane = threadIdx.x & 31;
  unsigned s[kLookBackSlots];
#pragma unroll
  for (int k = 0; k < kLookBackSlots; ++k) {
    const std::int64_t j = end - 1 - lane - 32 * k;
    s[k] = kPrefix;  // past tile 0: never read (tile 0 is a prefix and nearer)
    if (k < windows && j >= 0) s[k] = cuda::atomic_ref<unsigned, cuda::thread_scope_device>(flags[j]).load(cuda::memory_order_relaxed);
  }
  unsigned word = 32u * unsigned(windows);  // no prefix in reach: fold them all, go on
#pragma unroll
  for (int k = 0; k < kLookBackSlots; ++k) {  // the same in every lane: word and windows are
    if (k >= windows || (word & 0x80000000u)) continue;
    const std::int64_t j = end - 1 - lane - 32 * k;
    if (j >= 0) {
      cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[j]);
      while (s[k] == kInvalid) {
        __nanosleep(32);
        s[k] = f.load(cuda::memory_order_relaxed);
      }
    }
    const unsigned found = __ballot_sync(0xffffffffu, s[k] == kPrefix);
    if (found) word = (32u * unsigned(k) + unsigned(__ffs(found))) | 0x80000000u;
  }
  return word;
}

// A tile's part of the decoupled look-back over m-vectors, called by every thread of the block once
// the tile's aggregate vector `agg` (shared memory) is complete: publishes it, folds the
// predecessors' vectors into `pre` (shared, m entries, preset to the identity) down to the nearest
// inclusive prefix, and publishes its own inclusive prefix. `words` non-null: the packed words
// (4-byte values, m <= kPackedMaxM); else status flags (status + 1) with the aggregate and prefix
// vectors. Two words of `shared_word` are used. `fold_parts` (shared, blockDim entries, or null):
// where m <= blockDim / 2, the predecessors' vectors are folded by blockDim / m threads a bucket.
// `windows`: the flags' windows a round trip (look_back_windows). Ends with the block synchronised
// and `pre` final.
// `first`: the tile starts a scan (tile 0, or the first tile of a segment of partitioned.cuh): it
// publishes its aggregate as its inclusive prefix and does not look back.
template <class Op>
__device__ void exchange_prefix(std::int64_t tile, bool first, std::uint32_t m, const typename Op::value_type* agg, typename Op::value_type* pre,
                                unsigned* status, typename Op::value_type* aggregates, typename Op::value_type* prefixes,
                                unsigned long long* words, int windows, unsigned* shared_word, typename Op::value_type* fold_parts = nullptr) {
  using T = typename Op::value_type;
  unsigned* flags = status + 1;
  const int w = threadIdx.x / 32, lane = threadIdx.x & 31;
  const unsigned own = first ? kPrefix : kAggregate;
  for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) {
    if constexpr (sizeof(T) == 4)
      if (words) {
        store_word(words + tile * m + b, pack(own, agg[b]));
        continue;
      }
    store_cg((first ? prefixes : aggregates) + tile * m + b, agg[b]);
  }
  if (!words && threadIdx.x < m) __threadfence();  // this thread's vector stores are visible device-wide before the flag says so
  __syncthreads();
  if (!words && threadIdx.x == 0) cuda::atomic_ref<unsigned, cuda::thread_scope_device>(flags[tile]).store(own, cuda::memory_order_release);

  if constexpr (sizeof(T) == 4)
    if (!first && words) {
      packed_look_back<Op>(words, tile, m, pre);
      __syncthreads();
      for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) store_word(words + tile * m + b, pack(kPrefix, Op::apply(pre[b], agg[b])));
    }
  if (!first && !words) {
    // Decoupled look-back: warp 0 reads the flags of `windows` windows of 32 predecessors at once
    // (CUB's scheme, reaching further a round trip); the block folds the vectors in front of the
    // prefix, nearest first (each one is prepended, so the order stays the input order), down to the
    // nearest inclusive prefix. (Windows of blockDim tiles measured slower from m = 256 up: each
    // tile folds more vectors; look_back_windows says where more than one pays.)
    for (std::int64_t end = tile;;) {  // tiles [end, tile) are folded into pre
      if (w == 0) {
        unsigned word;
        // One window: the loop as before windows (through read_windows, perthread_scan at m = 16..64
        // ran 1.03-1.04x slower). 4-byte values never take more (packed words up to m = 8, one window
        // of flags beyond), and the wide read is not built for them: it cost single_pass's int32
        // kernel 8 more bytes of spills and its m = 1 row 1.06-1.12x.
        if (sizeof(T) == 4 || windows == 1) {
          const std::int64_t j = end - 1 - lane;
          unsigned s = kPrefix;  // past tile 0: never read (tile 0 is a prefix and nearer)
          if (j >= 0) {
            cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[j]);
            while ((s = f.load(cuda::memory_order_relaxed)) == kInvalid) __nanosleep(32);
          }
          const unsigned found = __ballot_sync(0xffffffffu, s == kPrefix);
          word = found ? unsigned(__ffs(found)) | 0x80000000u : 32u;
        } else if constexpr (sizeof(T) != 4) {
          word = read_windows(flags, end, windows);
        }
        // One acquire for the windows once their flags are in, not one for every poll (an acquire at
        // device scope invalidates the SM's L1 under the other blocks there). Relaxed polls, then
        // the fence, order the same; measured no slower, and not register_scan's limiter at m = 16
        // (results/h100/multiscan/probes/README.md).
        cuda::atomic_thread_fence(cuda::memory_order_acquire, cuda::thread_scope_device);
        if (lane == 0) shared_word[1] = word;
      }
      __syncthreads();  // the lanes' acquires, then the barrier: the vectors they announce are visible
      const unsigned word = shared_word[1];
      const int count = int(word & 0xffffu);
      const bool found = word & 0x80000000u;
      auto vector = [&](int k, std::uint32_t b) {  // tile k of the window (0 nearest), bucket b
        return load_cg((found && k == count - 1 ? prefixes : aggregates) + (end - 1 - k) * m + b);
      };
      const int split = fold_parts ? int(blockDim.x / m) : 1;
      if (split >= 2) {
        // Each bucket's window split into `split` runs of consecutive tiles, a thread a run, the
        // runs' folds then folded in order by the bucket's thread: the window's loads in one or two
        // L2 round trips, where one thread a bucket issues them four at a time (count / 4 trips).
        // Measured on the H200, n = 2^26 int32 (results/h200/multiscan/probes/): perthread_scan's
        // 256-thread tiles at m = 16, 32, 64 0.587, 0.592, 0.661 ms against 0.639, 0.659, 0.705
        // without; single_pass's 512-thread tiles (a quarter as many) within 1.5% either way.
        const int run = (count + split - 1) / split;
        const std::uint32_t b = threadIdx.x % m;
        const int s = int(threadIdx.x / m);
        if (s < split) {
          T acc = Op::identity();
          const int hi = min(count, (s + 1) * run);
#pragma unroll 4
          for (int k = s * run; k < hi; ++k) acc = Op::apply(vector(k, b), acc);
          fold_parts[s * m + b] = acc;
        }
        __syncthreads();
        if (threadIdx.x < m) {
          T acc = pre[b];
          for (int r = 0; r < split; ++r) acc = Op::apply(fold_parts[r * m + b], acc);
          pre[b] = acc;
        }
      } else {
        for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) {
          T acc = pre[b];
#pragma unroll 4
          for (int k = 0; k < count; ++k) acc = Op::apply(vector(k, b), acc);
          pre[b] = acc;
        }
      }
      __syncthreads();  // shared_word[1] and the fold parts are rewritten by the next step
      if (found) break;
      end -= count;
    }
    for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) store_cg(prefixes + tile * m + b, Op::apply(pre[b], agg[b]));
    if (threadIdx.x < m) __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) cuda::atomic_ref<unsigned, cuda::thread_scope_device>(flags[tile]).store(kPrefix, cuda::memory_order_release);
  }
  __syncthreads();
}

// How the kernel reads a label: straight from the array, or through a dense relabeling map
// (relabel.cuh), which the look-back then sizes its vectors by. One scan over [0, n): tile 0 starts
// it, every tile's inputs end at n.
struct PlainLabels {
  const std::uint32_t* labels;
  __device__ __forceinline__ std::uint32_t operator()(std::int64_t i) const { return __ldg(labels + i); }
  __device__ __forceinline__ const std::uint32_t* raw() const { return labels; }
  __device__ __forceinline__ bool starts_scan(std::int64_t tile) const { return tile == 0; }
  __device__ __forceinline__ std::int64_t end(std::int64_t, std::int64_t, std::int64_t n) const { return n; }
};
struct MappedLabels : PlainLabels {
  const std::uint32_t* map;  // m entries: a label's dense number
  __device__ __forceinline__ std::uint32_t operator()(std::int64_t i) const { return __ldg(map + __ldg(labels + i)); }
};
// Many independent scans laid out tile-aligned (partitioned.cuh): tile t holds
// info[t] & kTileCount inputs from its start, and starts a scan where the kFirstTile bit is set.
constexpr std::uint32_t kFirstTile = 0x80000000u, kTileCount = 0x7fffffffu;
struct SegmentedLabels : PlainLabels {
  const std::uint32_t* info;  // a word per tile
  __device__ __forceinline__ bool starts_scan(std::int64_t tile) const { return __ldg(info + tile) & kFirstTile; }
  __device__ __forceinline__ std::int64_t end(std::int64_t tile, std::int64_t size, std::int64_t) const {
    return tile * size + (__ldg(info + tile) & kTileCount);
  }
};

// MINB = 1: up to 512 threads; MINB > 1: up to 256 threads and at least MINB resident blocks per
// SM (the register cap that buys the occupancy which hides the look-back's latency).
// `words` non-null: the packed look-back; else status flags and the aggregate / prefix vectors.
template <class Op, int ITEMS, int MINB, class Labels>
__global__ void __launch_bounds__(MINB == 1 ? kMaxThreads : 256, MINB)
    single_pass_kernel(const Labels labels, const typename Op::value_type* __restrict__ values, std::int64_t n,
                       std::uint32_t m, bool inclusive, typename Op::value_type* __restrict__ out, unsigned* status,
                       typename Op::value_type* aggregates, typename Op::value_type* prefixes, unsigned long long* words,
                       std::int64_t ahead, int windows) {
  using T = typename Op::value_type;
  extern __shared__ __align__(16) unsigned char single_pass_smem[];
  const int warps = blockDim.x / 32, w = threadIdx.x / 32, lane = threadIdx.x & 31;
  T* sets = reinterpret_cast<T*>(single_pass_smem);  // warps x m, then the tile's prefix and aggregate
  T* pre = sets + std::size_t(warps) * m;
  T* agg = pre + m;
  unsigned* shared_word = reinterpret_cast<unsigned*>(agg + m);

  // Tiles are numbered in the order blocks start (not blockIdx): a tile only ever waits for tiles
  // whose blocks are already running, so the look-back cannot deadlock. (blockIdx, CUB's choice,
  // measured 2-3% faster on the H100; the order in which blocks start is not guaranteed.)
  if (threadIdx.x == 0) shared_word[0] = atomicAdd(status, 1u);
  for (std::size_t i = threadIdx.x; i < std::size_t(warps + 1) * m; i += blockDim.x) sets[i] = Op::identity();
  __syncthreads();
  const std::int64_t tile = shared_word[0];
  prefetch_tile_l2(labels.raw(), values, tile, ahead, std::int64_t(blockDim.x) * ITEMS, n);

  // Local multiscan: warp w scans its ITEMS * 32 consecutive inputs in 32-input steps. (Doing all
  // steps' group scans first and then only the bucket chain in order measured slower: more
  // registers, less occupancy.)
  const std::int64_t base = tile * std::int64_t(blockDim.x) * ITEMS + std::int64_t(w) * 32 * ITEMS + lane;
  const std::int64_t end = labels.end(tile, std::int64_t(blockDim.x) * ITEMS, n);
  std::uint32_t l[ITEMS];
  T res[ITEMS];
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const std::int64_t i = base + 32 * k;
    l[k] = i < end ? labels(i) : 0xffffffffu;
    res[k] = i < end ? values[i] : Op::identity();
  }
  T* mine = sets + std::size_t(w) * m;
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    T x = res[k];
    bool last;
    const T before = warp_group_scan<Op>(l[k], x, last);
    const bool valid = l[k] != 0xffffffffu;
    const T b = valid ? mine[l[k]] : Op::identity();
    res[k] = Op::apply(b, inclusive ? x : before);
    __syncwarp();  // every lane of the group has read the bucket before its last lane moves it on
    if (valid && last) mine[l[k]] = Op::apply(b, x);
    __syncwarp();
  }
  __syncthreads();

  // The tile's aggregate per bucket; each warp's set becomes the fold of the warps before it.
  for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) {
    T acc = Op::identity();
    for (int k = 0; k < warps; ++k) {
      const T s = sets[std::size_t(k) * m + b];
      sets[std::size_t(k) * m + b] = acc;
      acc = Op::apply(acc, s);
    }
    agg[b] = acc;
  }
  __syncthreads();
  T* fold_parts = split_fold(m, blockDim.x) ? reinterpret_cast<T*>(shared_word + 4) : nullptr;  // after the 16 bytes of words
  exchange_prefix<Op>(tile, labels.starts_scan(tile), m, agg, pre, status, aggregates, prefixes, words, windows, shared_word, fold_parts);

  // Every warp's set becomes the full prefix in front of its inputs: tile prefix, then the warps before.
  for (std::size_t i = threadIdx.x; i < std::size_t(warps) * m; i += blockDim.x) sets[i] = Op::apply(pre[i % m], sets[i]);
  __syncthreads();
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const std::int64_t i = base + 32 * k;
    if (i < end) out[i] = Op::apply(mine[l[k]], res[k]);
  }
}

}  // namespace single_pass_detail

inline std::string single_pass_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  if (n > (std::int64_t(1) << 31) * 1024) return "n too large for 32-bit tile numbers";
  return single_pass_detail::plan(n, m, value_bytes, t).why;
}

template <class T>
std::size_t single_pass_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  return single_pass_detail::look_back_bytes<T>(single_pass_detail::plan(n, m, sizeof(T), t).tiles, m);
}

namespace single_pass_detail {

// The launch of a plan. Plain labels take every tuning; mapped labels (relabel.cuh) only the default
// tiles, 512 x 32 at one block per SM (fewer threads where m's vectors need it), which keeps the
// kernel instances few.
template <class Op, class Labels>
void launch(const Plan& p, Labels labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
            typename Op::value_type* out, void* scratch, cudaStream_t stream) {
  const auto x = look_back_state<typename Op::value_type>(scratch, p.tiles, std::int64_t(p.threads) * p.items, m, stream);
  auto run = [&](auto kernel) {
    lp::allow_dynamic_shared(kernel, p.smem);
    const std::int64_t ahead = lookahead_tiles(lp::max_active_blocks(reinterpret_cast<const void*>(kernel), p.threads, p.smem), kLookahead);
    kernel<<<static_cast<unsigned>(p.tiles), p.threads, p.smem, stream>>>(labels, values, n, m, inclusive, out, x.status, x.aggregates,
                                                                          x.prefixes, x.words, ahead, x.windows);
    LP_CUDA_LAUNCH("single_pass_kernel");
  };
  if constexpr (!std::is_same_v<Labels, PlainLabels>) {
    if (p.items != 32 || p.min_blocks != 1) throw std::logic_error("single_pass: mapped labels take the default tiles only");
    run(single_pass_kernel<Op, 32, 1, Labels>);
  } else {
    auto run_items = [&](auto minb) {
      constexpr int B = decltype(minb)::value;
      if (p.items == 16) run(single_pass_kernel<Op, 16, B, Labels>);
      else run(single_pass_kernel<Op, 32, B, Labels>);
    };
    switch (p.min_blocks) {
      case 1: p.items == 8 ? run(single_pass_kernel<Op, 8, 1, Labels>) : run_items(std::integral_constant<int, 1>()); break;
      case 2: run_items(std::integral_constant<int, 2>()); break;
      case 3: run_items(std::integral_constant<int, 3>()); break;
      default: run_items(std::integral_constant<int, 4>()); break;
    }
  }
}

}  // namespace single_pass_detail

template <class Op>
void single_pass(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                 typename Op::value_type* out, void* scratch, const Tuning& t, cudaStream_t stream) {
  using namespace single_pass_detail;
  launch<Op>(plan(n, m, sizeof(typename Op::value_type), t), PlainLabels{labels}, values, n, m, inclusive, out, scratch, stream);
}

}  // namespace lp::multiscan
