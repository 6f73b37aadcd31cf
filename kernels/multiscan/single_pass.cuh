// Beyond the thesis: a single-pass multiscan for small and medium m. Each tile multiscans its
// inputs locally (warps in order, equal labels of a 32-input step combined in lane order, per-warp
// bucket sets in shared memory), then tiles exchange m-vectors of bucket aggregates through a
// decoupled look-back (Merrill and Garland 2016, generalised from one value to m buckets): every
// tile publishes its aggregate vector, walks back over its predecessors until one has published
// an inclusive prefix vector, and publishes its own. Inputs are read once and results written once.
#pragma once
#include <cuda/atomic>

#include "common.cuh"

namespace lp::multiscan {

namespace single_pass_detail {

// A tile's status word: nothing yet, its aggregate vector, or its inclusive prefix vector.
constexpr unsigned kInvalid = 0, kAggregate = 1, kPrefix = 2;
constexpr int kDefaultThreads = 256;
// Registers: ITEMS labels and results per thread stay live across the look-back; 512 threads
// leave 128 registers each.
constexpr int kMaxThreads = 512;
constexpr std::size_t kMaxVectorBytes = std::size_t(4) << 30;

struct Plan {
  int threads = 0, items = 0;
  std::int64_t tiles = 0;
  std::size_t smem = 0;
  std::string why;  // non-empty: cannot run
};

// Threads per block: the tuning's, or 256 cut to the warps whose bucket sets fit next to the
// prefix and aggregate vectors. Items per thread: the tuning's (8, 16 or 32), else 16, or 32 above
// m = 1024 (a longer tile amortises the m-vectors it publishes).
inline Plan plan(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  Plan p;
  p.items = t.n_items > 0 ? t.n_items : (m > 1024 ? 32 : 16);
  if (p.items != 8 && p.items != 16 && p.items != 32) {
    p.why = "n_items = " + std::to_string(p.items) + ": single_pass takes 8, 16 or 32";
    return p;
  }
  const std::size_t have = multireduce::max_shared_per_block(), vec = std::size_t(m) * value_bytes;
  if (t.threads > 0) {
    p.threads = t.threads;
    if (t.threads % 32 || t.threads > kMaxThreads) p.why = "threads = " + std::to_string(t.threads) + ": whole warps up to 512 needed";
  } else {
    const std::size_t warps = have / vec > 2 ? have / vec - 2 : 0;
    p.threads = int(std::min<std::size_t>(kDefaultThreads / 32, warps) * 32);
    if (p.threads == 0) p.threads = 32;
  }
  p.smem = (std::size_t(p.threads / 32) + 2) * vec + 16;
  if (p.why.empty() && p.smem > have)
    p.why = std::to_string(p.threads / 32) + " warp bucket sets of m = " + std::to_string(m) + " need " + std::to_string(p.smem) +
            " B of shared memory; a block has " + std::to_string(have) + " B";
  p.tiles = ceil_div(std::max<std::int64_t>(n, 1), std::int64_t(p.threads) * p.items);
  if (p.why.empty() && 2 * std::size_t(p.tiles) * vec > kMaxVectorBytes)
    p.why = std::to_string(p.tiles) + " tiles' aggregate and prefix vectors of m = " + std::to_string(m) + " exceed " +
            std::to_string(kMaxVectorBytes >> 30) + " GiB";
  return p;
}

// Scratch: the tile counter and status words, then the aggregate and the inclusive prefix vectors.
inline std::size_t status_bytes(std::int64_t tiles) { return align256(std::size_t(tiles + 1) * sizeof(unsigned)); }

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

template <class Op, int ITEMS>
__global__ void __launch_bounds__(kMaxThreads) single_pass_kernel(const std::uint32_t* __restrict__ labels,
                                                           const typename Op::value_type* __restrict__ values, std::int64_t n,
                                                           std::uint32_t m, bool inclusive, typename Op::value_type* __restrict__ out,
                                                           unsigned* status, typename Op::value_type* aggregates,
                                                           typename Op::value_type* prefixes) {
  using T = typename Op::value_type;
  extern __shared__ __align__(16) unsigned char single_pass_smem[];
  const int warps = blockDim.x / 32, w = threadIdx.x / 32, lane = threadIdx.x & 31;
  T* sets = reinterpret_cast<T*>(single_pass_smem);  // warps x m, then the tile's prefix and aggregate
  T* pre = sets + std::size_t(warps) * m;
  T* agg = pre + m;
  unsigned* shared_word = reinterpret_cast<unsigned*>(agg + m);

  // Tiles are numbered in the order blocks start (not blockIdx): a tile only ever waits for tiles
  // whose blocks are already running, so the look-back cannot deadlock.
  if (threadIdx.x == 0) shared_word[0] = atomicAdd(status, 1u);
  for (std::size_t i = threadIdx.x; i < std::size_t(warps + 1) * m; i += blockDim.x) sets[i] = Op::identity();
  __syncthreads();
  const std::int64_t tile = shared_word[0];
  unsigned* flags = status + 1;

  // Local multiscan: warp w scans its ITEMS * 32 consecutive inputs in 32-input steps.
  const std::int64_t base = tile * std::int64_t(blockDim.x) * ITEMS + std::int64_t(w) * 32 * ITEMS + lane;
  std::uint32_t l[ITEMS];
  T res[ITEMS];
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const std::int64_t i = base + 32 * k;
    l[k] = i < n ? __ldg(labels + i) : 0xffffffffu;
    res[k] = i < n ? values[i] : Op::identity();
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
    store_cg(tile == 0 ? prefixes + b : aggregates + tile * m + b, acc);
  }
  __threadfence();  // this thread's vector stores are visible device-wide before the flag says so
  __syncthreads();
  if (threadIdx.x == 0) cuda::atomic_ref<unsigned, cuda::thread_scope_device>(flags[tile]).store(tile == 0 ? kPrefix : kAggregate, cuda::memory_order_release);

  // Decoupled look-back: fold predecessors' vectors in front of the prefix (walking backwards, so
  // each one is prepended: the order stays the input order) until an inclusive prefix is found.
  if (tile > 0) {
    for (std::int64_t j = tile - 1;; --j) {
      if (threadIdx.x == 0) {
        cuda::atomic_ref<unsigned, cuda::thread_scope_device> f(flags[j]);
        unsigned s;
        while ((s = f.load(cuda::memory_order_acquire)) == kInvalid) __nanosleep(32);
        shared_word[1] = s;
      }
      __syncthreads();  // thread 0's acquire, then the barrier: the vector it announces is visible
      const unsigned s = shared_word[1];
      const T* src = (s == kPrefix ? prefixes : aggregates) + j * m;
      for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) pre[b] = Op::apply(load_cg(src + b), pre[b]);
      __syncthreads();  // shared_word[1] is rewritten by the next step
      if (s == kPrefix) break;
    }
    for (std::uint32_t b = threadIdx.x; b < m; b += blockDim.x) store_cg(prefixes + tile * m + b, Op::apply(pre[b], agg[b]));
    __threadfence();
    __syncthreads();
    if (threadIdx.x == 0) cuda::atomic_ref<unsigned, cuda::thread_scope_device>(flags[tile]).store(kPrefix, cuda::memory_order_release);
  }

  // Every warp's set becomes the full prefix in front of its inputs: tile prefix, then the warps before.
  for (std::size_t i = threadIdx.x; i < std::size_t(warps) * m; i += blockDim.x) sets[i] = Op::apply(pre[i % m], sets[i]);
  __syncthreads();
#pragma unroll
  for (int k = 0; k < ITEMS; ++k) {
    const std::int64_t i = base + 32 * k;
    if (i < n) out[i] = Op::apply(mine[l[k]], res[k]);
  }
}

}  // namespace single_pass_detail

inline std::string single_pass_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes, const Tuning& t) {
  if (n > (std::int64_t(1) << 31) * 1024) return "n too large for 32-bit tile numbers";
  return single_pass_detail::plan(n, m, value_bytes, t).why;
}

template <class T>
std::size_t single_pass_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  const auto p = single_pass_detail::plan(n, m, sizeof(T), t);
  return single_pass_detail::status_bytes(p.tiles) + 2 * align256(std::size_t(p.tiles) * m * sizeof(T));
}

template <class Op>
void single_pass(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                 typename Op::value_type* out, void* scratch, const Tuning& t, cudaStream_t stream) {
  using T = typename Op::value_type;
  using namespace single_pass_detail;
  const Plan p = plan(n, m, sizeof(T), t);
  char* at = static_cast<char*>(scratch);
  auto* status = reinterpret_cast<unsigned*>(at);
  at += status_bytes(p.tiles);
  T* aggregates = reinterpret_cast<T*>(at);
  at += align256(std::size_t(p.tiles) * m * sizeof(T));
  T* prefixes = reinterpret_cast<T*>(at);
  // The counter and the flags start at zero in every run (part of the timed work: one small memset).
  LP_CUDA(cudaMemsetAsync(status, 0, std::size_t(p.tiles + 1) * sizeof(unsigned), stream));
  auto launch = [&](auto kernel) {
    raise_shared_limit(kernel, p.smem);
    kernel<<<static_cast<unsigned>(p.tiles), p.threads, p.smem, stream>>>(labels, values, n, m, inclusive, out, status, aggregates, prefixes);
    LP_CUDA_LAUNCH("single_pass_kernel");
  };
  if (p.items == 8) launch(single_pass_kernel<Op, 8>);
  else if (p.items == 16) launch(single_pass_kernel<Op, 16>);
  else launch(single_pass_kernel<Op, 32>);
}

}  // namespace lp::multiscan
