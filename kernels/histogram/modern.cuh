// Beyond the thesis (Hopper): block-private shared histograms with 32-bit counters, up to 32 copies
// (one per bank: BankTRISH's idea without its 8-bit counters), 16-byte loads and bundling of equal
// samples; and, where one copy no longer fits a block, one histogram per thread-block cluster in
// distributed shared memory. `auto` (auto_rule.hpp, the study) picks among them.
#pragma once
#include <cooperative_groups.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <string>

#include "../multireduce/cluster_privatized.cuh"
#include "common.cuh"
#include "multireduce_shared.cuh"

namespace lp::histogram {

namespace modern_detail {

constexpr int kDefaultThreads = 1024;

// Counter widths of a block copy: 32-bit words, or two 16-bit counters per word where a 32-bit
// copy no longer fits a block (65536 bins: 128 KiB instead of 256). A 16-bit counter that overflows
// is carried into the output histogram exactly (half_add), so the width bounds no count.
enum class Width { Full, Half };
inline std::size_t copy_bytes(std::uint32_t bins, Width w) {
  return w == Width::Full ? std::size_t(bins) * 4 : std::size_t((bins + 1) / 2) * 4;
}

// Copies of the histogram per block: the most (a power of two, at most one per bank) that leave
// room for two blocks per SM (as log2); -1 if not even one copy fits a block.
inline int copies_log2(std::uint32_t bins, Width w = Width::Full) {
  const std::size_t one = copy_bytes(bins, w), budget = max_shared_per_block() / 2;
  if (one > max_shared_per_block()) return -1;
  int r = 0;
  while (r < 5 && (one << (r + 1)) <= budget) ++r;
  return r;
}

// 16-bit counters, two per word (bin b in half b & 1 of word b / 2), kept exact by phases instead
// of carries: a block adds at most kHalfPhaseMax samples between two looks at its counters, and a
// look moves every half that has reached kHalfFlushAt to the output. A half then never passes
// kHalfFlushAt - 1 + kHalfPhaseMax < 2^16, so the adds need not return their old value. The carry
// test this replaces (a returning atomic, a compare and two branches a sample) was what kept the
// SMs issuing at 0.82 a cycle with DRAM at half its rate at 65536 bins
// (results/h200/histogram/profiles/README.md). A look costs a barrier and, at 65536 bins, eight
// 16-byte reads a thread of a 1024-thread block; a phase is three steps of 16 K samples there.
constexpr std::uint32_t kHalfFlushAt = 1u << 13;
constexpr std::uint32_t kHalfPhaseMax = 65536u - kHalfFlushAt - 16;  // 16: the n mod 16 tail samples (bytes)

// Blocks of a cluster that merge their 16-bit copies at the end (merge_halves; 1: none). Two: the
// pairs fill all 132 SMs of an H200 (one 128 KiB block an SM), where clusters of 4 or 8 fit only
// 120, whose lost SMs cost more than the adds they save (results/h200/histogram/probes/half_cluster.json).
constexpr int kHalfClusterDefault = 2;
// 16-byte loads a thread of the 16-bit path issues a step (and has in flight while it bins the
// step before): with half the warps resident, four keep DRAM busier than two (1-5% faster, 3%
// slower on a zipf(3) bin of 83% of the samples; a build with -DLP_HALF_VECS=2 is
// probes/half_cluster_two_loads.json).
#ifndef LP_HALF_VECS
#define LP_HALF_VECS 4
#endif
constexpr int kHalfVecs = LP_HALF_VECS;

// Where the output's bin pairs (2w, 2w + 1) take one 64-bit add (LP_HALF_PAIRS, n < 2^32: no
// bin's count reaches 2^32, so the even bin's sum never carries into the odd one): every add of
// the 16-bit path to the output goes through here, so that all of them are of one size. A warp's
// 32 pair adds cover 64 bins in 8 sectors with half the instructions of two 32-bit adds a word
// (a build with -DLP_HALF_PAIRS=0 is probes/half_cluster_words.json: 0.61-0.74 of the copy ceiling
// at 65536 bins against 0.70-0.75).
#ifndef LP_HALF_PAIRS
#define LP_HALF_PAIRS 1
#endif
__device__ __forceinline__ void add_pair(std::uint32_t* out, std::uint32_t w, std::uint32_t even, std::uint32_t odd, std::uint32_t bins,
                                         bool pairs) {
  if (pairs && 2 * w + 1 < bins) {
    if (even | odd)
      atomicAdd(reinterpret_cast<unsigned long long*>(out + 2 * w), static_cast<unsigned long long>(odd) << 32 | even);
    return;
  }
  if (even) atomicAdd(out + 2 * w, even);
  if (odd && 2 * w + 1 < bins) atomicAdd(out + 2 * w + 1, odd);
}

// The look: every half at or above kHalfFlushAt is subtracted from its entry (atomically, as the
// next phase's adds may already land) and added to the output. Entry e holds word e >> r_log2.
__device__ __forceinline__ void flush_entry(std::uint32_t* hist, std::uint32_t e, std::uint32_t x, int r_log2, std::uint32_t bins,
                                            std::uint32_t* out, bool pairs) {
  const std::uint32_t lo = x & 0xffffu, hi = x >> 16;
  const std::uint32_t take_lo = lo >= kHalfFlushAt ? lo : 0u, take_hi = hi >= kHalfFlushAt ? hi : 0u;
  if (!(take_lo | take_hi)) return;
  atomicSub(hist + e, take_lo | take_hi << 16);
  add_pair(out, e >> r_log2, take_lo, take_hi, bins, pairs);
}
__device__ __forceinline__ void flush_halves(std::uint32_t* hist, std::uint32_t entries, int r_log2, std::uint32_t bins,
                                             std::uint32_t* out, bool pairs) {
  constexpr std::uint32_t kHigh = 0xffffu & ~(kHalfFlushAt - 1), kMask = kHigh | kHigh << 16;
  const uint4* v = reinterpret_cast<const uint4*>(hist);
  for (std::uint32_t q = threadIdx.x; q < entries / 4; q += blockDim.x) {
    const uint4 x = v[q];
    if (!((x.x | x.y | x.z | x.w) & kMask)) continue;  // the common case: one read, one test
    flush_entry(hist, 4 * q, x.x, r_log2, bins, out, pairs);
    flush_entry(hist, 4 * q + 1, x.y, r_log2, bins, out, pairs);
    flush_entry(hist, 4 * q + 2, x.z, r_log2, bins, out, pairs);
    flush_entry(hist, 4 * q + 3, x.w, r_log2, bins, out, pairs);
  }
  for (std::uint32_t e = entries / 4 * 4 + threadIdx.x; e < entries; e += blockDim.x) flush_entry(hist, e, hist[e], r_log2, bins, out, pairs);
}

// The end of block_privatized's 16-bit path: the block (kC = 1), or block r of a thread-block
// cluster of kC, sums its share of the counter words over the kC copies (distributed shared memory;
// each thread issues the reads of kUnroll words of every copy before it sums any) and adds each bin
// pair's sum to the output: once a cluster instead of once a block. The output's L2 serves global
// atomics by the 32-byte sector a warp's instruction touches, so the adds stay coalesced: a warp's
// 32 lanes add 32 consecutive pairs, 256 bytes in 8 sectors (lanes a quad of words each would
// touch 32: at 65536 bins, 1.5-2.2x the whole kernel's time, results/h200/histogram/probes/).
// At 65536 bins every block ends with 32768 such adds, all blocks at once after their last sample
// with nothing left to overlap them; a cluster of kC blocks issues 1/kC of them.
template <int kC>
__device__ __forceinline__ void merge_halves(const std::uint32_t* hist, std::uint32_t words, std::uint32_t bins, std::uint32_t* out,
                                             bool pairs) {
  namespace cg = cooperative_groups;
  constexpr int kUnroll = kC >= 8 ? 2 : 4;  // words a thread reads ahead: 16 loads in flight at 8 copies, within 64 registers
  std::uint32_t rank = 0;
  if constexpr (kC > 1) {
    cg::cluster_group cluster = cg::this_cluster();
    cluster.sync();  // every copy of the cluster holds its last count
    rank = cluster.block_rank();
  } else {
    __syncthreads();
  }
  const std::uint32_t* copy[kC];
#pragma unroll
  for (int k = 0; k < kC; ++k) {
    if constexpr (kC > 1) copy[k] = cg::this_cluster().map_shared_rank(hist, (rank + k) % kC);
    else copy[k] = hist;
  }
  // Shares of whole warps' spans (32 words), so that a warp's adds start on a 256-byte boundary.
  const std::uint32_t share = ((words + kC - 1) / kC + 31) / 32 * 32, lo = rank * share, hi = min(words, lo + share);
  for (std::uint32_t first = lo + threadIdx.x; first < hi; first += kUnroll * blockDim.x) {
    std::uint32_t x[kUnroll][kC];
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      const std::uint32_t w = first + u * blockDim.x;
#pragma unroll
      for (int k = 0; k < kC; ++k) x[u][k] = w < hi ? copy[k][w] : 0u;
    }
#pragma unroll
    for (int u = 0; u < kUnroll; ++u) {
      std::uint32_t even = 0, odd = 0;  // at most kC * 65535
#pragma unroll
      for (int k = 0; k < kC; ++k) even += x[u][k] & 0xffffu, odd += x[u][k] >> 16;
      const std::uint32_t w = first + u * blockDim.x;
      if (w < hi) add_pair(out, w, even, odd, bins, pairs);
    }
  }
  if constexpr (kC > 1) cg::this_cluster().sync();  // no block leaves (and frees its shared memory) while another reads it
}

// Applies a bundle (bundle4) with apply(index, inc). Where every active lane of the warp holds one
// update, all on the same counter (degenerate inputs, a hot zipf bin), the warp adds them up first
// and one lane applies the sum: 32 atomics on one address would be serialised. The lanes in
// __activemask() are the ones executing this together, so the *_sync calls on that mask are safe
// in the ragged last iteration of a grid-stride loop too.
template <class Apply>
__device__ __forceinline__ void apply_bundle_warp(const Bundle& u, Apply apply) {
  const unsigned active = __activemask();
  const int leader = __ffs(active) - 1;
  const bool single = !u.live[1] && !u.live[2] && !u.live[3];
  const std::uint32_t first = __shfl_sync(active, u.index[0], leader);
  if (__all_sync(active, single && u.index[0] == first)) {
    const std::uint32_t total = __reduce_add_sync(active, u.inc[0]);
    if (int(threadIdx.x & 31) == leader) apply(first, total);
    return;
  }
#pragma unroll
  for (int j = 0; j < 4; ++j)
    if (u.live[j]) apply(u.index[j], u.inc[j]);
}

// Copy c of bin b at b * R + c, and lane l uses copy l mod R: with R = 32 (256 bins) every lane has
// its own bank, so no two lanes of a warp ever conflict or collide, whatever the data; with fewer
// copies, lanes hitting one bin spread over R addresses.
// kHalf: 16-bit counters bounded by phases (flush_halves), one copy (r_log2 = 0, a constant here:
// the address of an update is then a shift of the bin). kC (kHalf only): the blocks of a
// thread-block cluster of kC merge their copies before the global adds (merge_halves). The 16-bit
// path reaches 0.84-0.85 of the copy ceiling at 65536 bins (H200, 2^26 samples, L2 flushed clean):
// its one 1024-thread block an SM (the 128 KiB copy) is half the warps, and no warp is eligible in
// 41% of the scheduler's cycles behind the shared-memory adds and the loads (results/h200/histogram/profiles/).
template <class T, bool kHalf, int kC = 1>
__global__ void __launch_bounds__(1024) block_privatized_kernel(const T* __restrict__ samples, std::int64_t n, std::uint32_t bins,
                                                                int r_log2_arg, std::uint32_t* __restrict__ out) {
  static_assert(kHalf || kC == 1, "the cluster merge is the 16-bit path's");
  extern __shared__ __align__(16) std::uint32_t hist[];
  constexpr int kPer = 16 / sizeof(T);  // samples per 16-byte load
  const int r_log2 = kHalf ? 0 : r_log2_arg;
  const std::uint32_t R = 1u << r_log2, copy = threadIdx.x & (R - 1);
  const std::uint32_t words = kHalf ? (bins + 1) / 2 : bins;
  const bool pairs = LP_HALF_PAIRS && n < (std::int64_t(1) << 32);  // add_pair
  for (std::uint32_t i = threadIdx.x; i < (words << r_log2); i += blockDim.x) hist[i] = 0;
  __syncthreads();

  std::uint32_t* mine = hist + copy;
  // add_word: an update of a counter word as bundle4 makes them (two 16-bit fields with kHalf);
  // add: one bin's. Neither returns a value (the phases bound the 16-bit counters).
  auto add_word = [&](std::uint32_t word, std::uint32_t inc) { atomicAdd(mine + (word << r_log2), inc); };
  auto add = [&](std::uint32_t bin, std::uint32_t inc) {
    if constexpr (kHalf) add_word(bin >> 1, __funnelshift_l(0u, inc, bin << 4));  // inc << 16 * (bin & 1): the shift is taken mod 32
    else add_word(bin, inc);
  };
  auto bin_vec = [&](const uint4& v) {
    if constexpr (sizeof(T) == 1) {
      // Bytes need ~13 per clock per SM to keep up with HBM, so the common case stays lean: one
      // atomic per byte on the lane's own copy (no conflicts, no collisions); only whole words or
      // vectors of equal bytes (degenerate data, flat image regions) become one update.
      const std::uint32_t w[4] = {v.x, v.y, v.z, v.w};
      if (v.x == v.y && v.x == v.z && v.x == v.w && v.x == (v.x & 0xffu) * 0x01010101u) {
        add(v.x & 0xffu, 16u);
        return;
      }
#pragma unroll
      for (int k = 0; k < 4; ++k) {
        if (w[k] == (w[k] & 0xffu) * 0x01010101u) {
          add(w[k] & 0xffu, 4u);
        } else {
#pragma unroll
          for (int j = 0; j < 4; ++j) add((w[k] >> (8 * j)) & 0xffu, 1u);
        }
      }
    } else {
      // u32 samples arrive 4x slower per byte: there is time to bundle equal samples (bundle4), and
      // where lanes share copies, to combine a warp that hits one bin.
      const std::uint32_t bin[4] = {v.x, v.y, v.z, v.w};
      if constexpr (kHalf) {
        // 16-bit counters (65536 bins and so) are short of issue slots, and samples of a vector
        // rarely repeat a bin there unless the data is skewed. So a warp bundles (bundle4) only
        // where kSkewLanes of its threads see a repeat that is not the whole vector (three
        // compares, one ballot); otherwise a vector of one bin is one update of 4 and any other
        // four plain updates. H200, 2^26 samples over 65536 bins (results/h200/histogram/probes/),
        // of the copy ceiling: bundling always 0.60 uniform, 0.59 zipf(1), 0.54 zipf(3) (a bin of 83%
        // of the samples), 0.62 degenerate; never 0.68, 0.68, 0.40, 0.71; on any repeat in the
        // warp 0.69, 0.60, 0.52, 0.59; as here 0.69, 0.68, 0.53, 0.70.
        constexpr int kSkewLanes = 4;
        const bool e01 = bin[0] == bin[1], e23 = bin[2] == bin[3], e02 = bin[0] == bin[2], one = e01 && e23 && e02;
        const unsigned active = __activemask();
        if (__popc(__ballot_sync(active, (e01 || e23 || e02) && !one)) < kSkewLanes) {
          if (one) {
            Bundle u{};
            u.index[0] = bin[0] >> 1, u.inc[0] = 4u << (16 * (bin[0] & 1u)), u.live[0] = true;
            apply_bundle_warp(u, add_word);  // a warp of one bin: one update
          } else {
#pragma unroll
            for (int j = 0; j < 4; ++j) add(bin[j], 1u);
          }
          return;
        }
      }
      const Bundle u = bundle4<kHalf ? 16 : 32>(bin);
      if (R < 32) {
        apply_bundle_warp(u, add_word);
      } else {
#pragma unroll
        for (int j = 0; j < 4; ++j)
          if (u.live[j]) add_word(u.index[j], u.inc[j]);
      }
    }
  };

  const uint4* vec = reinterpret_cast<const uint4*>(samples);
  const std::int64_t n_vec = n / kPer, stride = std::int64_t(gridDim.x) * blockDim.x;
  // Two 16-byte loads in flight per thread before any update. With 16-bit counters a step is
  // kHalfVecs loads, and the next step's are issued before this step's updates, with one
  // 1024-thread block per SM (128 KiB of counters, half the warps) to hide them; elsewhere the
  // registers would cost the second block. The 16-bit steps are block-uniform, so that every
  // thread meets each phase's barrier.
  std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  if constexpr (kHalf) {
    constexpr int kV = kHalfVecs;
    const std::uint32_t steps_per_phase = kHalfPhaseMax / (kV * kPer * blockDim.x);
    std::uint32_t step = 0;
    // A step's loads: vector i + v * stride for v < kV, where it exists.
    auto load_step = [&](uint4 (&dst)[kV], bool (&ok)[kV]) {
#pragma unroll
      for (int v = 0; v < kV; ++v) {
        ok[v] = i + v * stride < n_vec;
        dst[v] = ok[v] ? __ldg(vec + i + v * stride) : uint4{};
      }
    };
    uint4 cur[kV];
    bool has[kV];
    load_step(cur, has);
    for (std::int64_t first = blockIdx.x * std::int64_t(blockDim.x); first < n_vec; first += kV * stride) {
      i += kV * stride;
      uint4 next[kV];
      bool has_next[kV];
      load_step(next, has_next);
#pragma unroll
      for (int v = 0; v < kV; ++v)
        if (has[v]) bin_vec(cur[v]);
#pragma unroll
      for (int v = 0; v < kV; ++v) cur[v] = next[v], has[v] = has_next[v];
      if (++step == steps_per_phase) {
        step = 0;
        __syncthreads();
        flush_halves(hist, words << r_log2, r_log2, bins, out, pairs);
      }
    }
  } else {
    for (; i < n_vec; i += 2 * stride) {
      const uint4 a = __ldg(vec + i);
      const bool has_b = i + stride < n_vec;
      const uint4 b = has_b ? __ldg(vec + i + stride) : uint4{};
      bin_vec(a);
      if (has_b) bin_vec(b);
    }
  }
  // The n mod kPer tail samples: block 0, one thread each.
  if (blockIdx.x == 0 && threadIdx.x < n - n_vec * kPer) add(std::uint32_t(samples[n_vec * kPer + threadIdx.x]), 1u);
  if constexpr (kHalf) {
    merge_halves<kC>(hist, words, bins, out, pairs);
  } else {
    __syncthreads();
    // Each bin summed over its R copies (starting at copy = lane keeps a warp's reads on distinct
    // banks when R = 32), then added to the output once per block.
    const std::uint32_t lane = threadIdx.x & 31;
    for (std::uint32_t b = threadIdx.x; b < bins; b += blockDim.x) {
      std::uint32_t sum = 0;
      for (std::uint32_t k = 0; k < R; ++k) sum += hist[(b << r_log2) + ((k + lane) & (R - 1))];
      if (sum) atomicAdd(out + b, sum);
    }
  }
}

// One histogram per cluster: block r of the cluster holds bins [lo + r * 2^shift, lo + (r+1) * 2^shift)
// of this pass; a sample's update goes to its owner block's shared memory (local or remote).
static __global__ void __launch_bounds__(1024) cluster_histogram_kernel(const std::uint32_t* __restrict__ samples, std::int64_t n,
                                                                 std::uint32_t bins, int shift, std::uint32_t lo,
                                                                 std::uint32_t* __restrict__ out) {
  namespace cg = cooperative_groups;
  cg::cluster_group cluster = cg::this_cluster();
  extern __shared__ __align__(16) std::uint32_t slice[];
  const std::uint32_t slice_size = 1u << shift, mask = slice_size - 1, span = slice_size * cluster.num_blocks();
  for (std::uint32_t i = threadIdx.x; i < slice_size; i += blockDim.x) slice[i] = 0;
  cluster.sync();  // every slice is zeroed before any block updates it

  auto update = [&](std::uint32_t bin, std::uint32_t inc) {
    bin -= lo;  // wraps above span for bins below lo: another pass's
    if (bin >= span) return;
    atomicAdd(cluster.map_shared_rank(slice, bin >> shift) + (bin & mask), inc);
  };
  const uint4* vec = reinterpret_cast<const uint4*>(samples);
  const std::int64_t n_vec = n / 4, stride = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n_vec; i += 2 * stride) {
    const uint4 a = __ldg(vec + i);
    const bool has_b = i + stride < n_vec;
    const uint4 b = has_b ? __ldg(vec + i + stride) : uint4{};
#pragma unroll
    for (int h = 0; h < 2; ++h) {
      if (h == 1 && !has_b) break;
      const uint4& v = h ? b : a;
      const std::uint32_t bin[4] = {v.x, v.y, v.z, v.w};
      apply_bundle_warp(bundle4<32>(bin), update);  // equal samples of a vector, or of a warp: one remote atomic
    }
  }
  if (blockIdx.x == 0 && threadIdx.x < n - n_vec * 4) update(samples[n_vec * 4 + threadIdx.x], 1u);
  cluster.sync();  // all updates of this block's slice are in (and no block leaves while others write to it)
  const std::uint32_t first = lo + (cluster.block_rank() << shift);
  for (std::uint32_t i = threadIdx.x; i < slice_size && first + i < bins; i += blockDim.x)
    if (slice[i]) atomicAdd(out + first + i, slice[i]);
}

// The launch of one cluster pass: the plan and the launch set-up are the multireduce study's
// (kernels/multireduce/cluster_privatized.cuh) for 32-bit buckets. Returns the blocks of one wave
// of resident clusters.
inline int cluster_grid(const multireduce::ClusterPlan& p, cudaLaunchConfig_t& cfg, cudaLaunchAttribute* attr) {
  return multireduce::cluster_wave(cluster_histogram_kernel, p, cfg, attr) * p.cluster;
}

}  // namespace modern_detail

// The counter width of block_privatized: 32-bit while a copy of them fits a block, else 16-bit.
inline modern_detail::Width block_width(std::uint32_t bins) {
  using modern_detail::Width;
  return modern_detail::copies_log2(bins, Width::Full) >= 0 ? Width::Full : Width::Half;
}

// Blocks a cluster of block_privatized's 16-bit path merges its copies over (tuning `cluster`;
// 0: kHalfClusterDefault, 1: none). The 32-bit path ignores it: the merge was built and measured
// for the 16-bit copies only.
inline int half_cluster(const Tuning& t) { return t.cluster > 0 ? t.cluster : modern_detail::kHalfClusterDefault; }

template <class T>
std::string block_privatized_unsupported(std::uint32_t bins, const Tuning& t) {
  if (modern_detail::copies_log2(bins, modern_detail::Width::Half) < 0)
    return "one copy of " + std::to_string(bins) + " 16-bit bins exceeds a block's " + std::to_string(max_shared_per_block()) + " B of shared memory";
  if (t.threads > 1024 || t.threads % 32) return "threads = " + std::to_string(t.threads) + ": whole warps, at most 1024";
  if (block_width(bins) == modern_detail::Width::Half && (t.cluster > 8 || (t.cluster & (t.cluster - 1))))
    return "cluster = " + std::to_string(t.cluster) + ": 16-bit copies merge over a power of two up to 8 blocks";
  return "";
}

template <class T>
void block_privatized(const T* samples, std::int64_t n, std::uint32_t bins, std::uint32_t* out, const Tuning& t, cudaStream_t s) {
  using namespace modern_detail;
  LP_CUDA(cudaMemsetAsync(out, 0, std::size_t(bins) * 4, s));
  if (n <= 0) return;
  const Width w = block_width(bins);
  // 16-bit counters run where a 32-bit copy does not fit a block, so two 16-bit copies do not fit
  // half of one: one copy (the kernel's constant).
  const int r_log2 = w == Width::Half ? 0 : copies_log2(bins, w), threads = t.threads > 0 ? t.threads : kDefaultThreads;
  const std::size_t smem = copy_bytes(bins, w) << r_log2;
  const std::int64_t vectors = ceil_div(n, 16 / sizeof(T));
  auto launch = [&](auto kernel) {
    lp::allow_dynamic_shared(kernel, smem);
    const int grid = grid_for(vectors, threads, resident_blocks(kernel, threads, smem, t, 0));
    kernel<<<grid, threads, smem, s>>>(samples, n, bins, r_log2, out);
    LP_CUDA_LAUNCH("block_privatized_kernel");
  };
  if (w == Width::Full) return launch(block_privatized_kernel<T, false>);
  const int cluster = half_cluster(t);
  if (cluster <= 1) return launch(block_privatized_kernel<T, true>);
  // One wave of resident clusters, fewer where the samples fill fewer blocks (whole clusters).
  auto launch_cluster = [&](auto kernel) {
    multireduce::ClusterPlan p;  // the multireduce's cluster launch set-up, for its sizes
    p.cluster = cluster, p.threads = threads, p.smem = smem;
    cudaLaunchAttribute attr[1];
    cudaLaunchConfig_t cfg{};
    const std::int64_t wanted = ceil_div(ceil_div(vectors, threads), cluster);
    cfg.gridDim = dim3(unsigned(std::min<std::int64_t>(multireduce::cluster_wave(kernel, p, cfg, attr), wanted) * cluster));
    cfg.stream = s;
    LP_CUDA(cudaLaunchKernelEx(&cfg, kernel, samples, n, bins, r_log2, out));
    LP_CUDA_LAUNCH("block_privatized_kernel (cluster merge)");
  };
  if (cluster == 2) return launch_cluster(block_privatized_kernel<T, true, 2>);
  if (cluster == 4) return launch_cluster(block_privatized_kernel<T, true, 4>);
  launch_cluster(block_privatized_kernel<T, true, 8>);
}

inline std::string cluster_privatized_unsupported(bool u8, std::uint32_t bins, const Tuning& t) {
  if (u8) return "u32 samples only (byte samples have at most 256 bins: block_privatized)";
  if (t.cluster && (t.cluster & (t.cluster - 1))) return "cluster = " + std::to_string(t.cluster) + ": a power of two up to 16";
  if (!multireduce::cluster_plan<std::uint32_t>(bins, as_multireduce(t)).cluster)
    return "bins = " + std::to_string(bins) + " needs more than 4 passes of 16 blocks' shared memory";
  return "";
}

inline void cluster_privatized(const std::uint32_t* samples, std::int64_t n, std::uint32_t bins, std::uint32_t* out, const Tuning& t,
                               cudaStream_t s) {
  using namespace modern_detail;
  LP_CUDA(cudaMemsetAsync(out, 0, std::size_t(bins) * 4, s));
  if (n <= 0) return;
  const multireduce::ClusterPlan p = multireduce::cluster_plan<std::uint32_t>(bins, as_multireduce(t));
  if (!p.cluster) throw std::invalid_argument("cluster_privatized: the histogram does not fit in a cluster");
  cudaLaunchConfig_t cfg{};
  cudaLaunchAttribute attr[1];
  cfg.gridDim = dim3(cluster_grid(p, cfg, attr));
  cfg.stream = s;
  const std::uint32_t span = std::uint32_t(p.cluster) << p.shift;
  for (int pass = 0; pass < p.passes; ++pass) {
    LP_CUDA(cudaLaunchKernelEx(&cfg, cluster_histogram_kernel, samples, n, bins, p.shift, std::uint32_t(pass) * span, out));
    LP_CUDA_LAUNCH("cluster_histogram_kernel");
  }
}

}  // namespace lp::histogram
