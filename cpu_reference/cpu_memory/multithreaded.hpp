// The modern CPU baseline (beyond the thesis): multithreaded multireduce with
// std::thread — per-thread privatised buckets for small m, radix partitioning by the top label
// bits then per-partition sequential Alg 2.2 for large m — and a streaming-read kernel whose
// bandwidth is the ceiling any of them can reach. Scratch comes from the caller (sized by
// multireduce_mt_scratch_bytes) so that its pages follow the study's page axis.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

#include "../multireduce/cpu_multireduce.hpp"

namespace lp::cpu {

inline int resolve_threads(int threads) {
  return threads > 0 ? threads : std::max(1, int(std::thread::hardware_concurrency()));
}

// Private copies cost threads x m buckets and a threads x m merge. The threads study measured both paths
// at every m on the GPU host's 16 cores (results/h100-host/cpu_threads.json): private copies
// still win where they outgrow each core's 2 MiB L2 and sit in the L3 (2^18: 80% of the streaming
// read against 18%; 2^20: 30% against 12%); beyond 2^20 radix partitioning keeps each
// partition's buckets cached and the copies' merge grows with threads x m.
constexpr std::uint32_t kMtPrivateMaxBuckets = 1u << 20;
// A partition's buckets should fit in L2 (2^15 int32 = 128 KiB); at most 2^10 partitions, so the
// scatter's write streams stay few enough for the write-combining buffers and the TLB.
constexpr int kMtPartitionBucketBits = 15, kMtMaxPartitionBits = 10;

// Which path multireduce_mt takes: Auto chooses by m (private copies up to kMtPrivateMaxBuckets),
// the others force one (configs/cpu/threads.json measures both at every m).
enum class MtPath { Auto, Private, Partition };
inline bool mt_private(std::uint32_t m, MtPath path) {
  return path == MtPath::Private || (path == MtPath::Auto && m <= kMtPrivateMaxBuckets);
}

inline int mt_partition_bits(std::uint32_t m) {
  return std::clamp(label_bits(m) - kMtPartitionBucketBits, 1, kMtMaxPartitionBits);
}

template <class T>
std::size_t multireduce_mt_scratch_bytes(std::int64_t n, std::uint32_t m, int threads, MtPath path = MtPath::Auto) {
  threads = resolve_threads(threads);
  if (mt_private(m, path)) return std::size_t(threads) * m * sizeof(T);
  const std::size_t parts = std::size_t(1) << mt_partition_bits(m);
  return std::size_t(n) * (sizeof(std::uint32_t) + sizeof(T)) + alignof(T) + 2 * parts * threads * sizeof(std::int64_t) + 64;
}

// Runs f(t) for t in [0, threads) on threads-1 new threads and the caller.
template <class F>
void run_threads(int threads, F f) {
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(f, t);
  f(0);
  for (auto& th : pool) th.join();
}

// Modern baseline (not in the thesis): see the file comment. Thread chunks and partitions keep
// input order within a bucket, so the result equals Alg 2.2's for any associative operator.
// The values as a function of the row, value_at(i): a column, or one computed from a row's fields
// (the decimal study's price × quantity).
template <class Op, class ValueAt>
void multireduce_mt_by(const std::uint32_t* labels, ValueAt value_at, std::int64_t n, std::uint32_t m, int threads, void* scratch,
                       typename Op::value_type* buckets, MtPath path = MtPath::Auto) {
  using T = typename Op::value_type;
  threads = resolve_threads(threads);
  auto lo = [&](int t) { return n * t / threads; };
  if (mt_private(m, path)) {
    T* priv = static_cast<T*>(scratch);
    run_threads(threads, [&](int t) {
      T* mine = priv + std::size_t(t) * m;
      for (std::uint32_t b = 0; b < m; ++b) mine[b] = Op::identity();
      for (std::int64_t i = lo(t), e = lo(t + 1); i < e; ++i) mine[labels[i]] = Op::apply(mine[labels[i]], value_at(i));
    });
    // Merge: each thread owns a bucket range and folds the private copies in thread order.
    run_threads(threads, [&](int t) {
      for (std::uint32_t b = std::uint32_t(std::uint64_t(m) * t / threads), e = std::uint32_t(std::uint64_t(m) * (t + 1) / threads); b < e; ++b) {
        T acc = Op::identity();
        for (int k = 0; k < threads; ++k) acc = Op::apply(acc, priv[std::size_t(k) * m + b]);
        buckets[b] = acc;
      }
    });
    return;
  }
  const int pbits = mt_partition_bits(m), shift = label_bits(m) - pbits;
  const std::size_t parts = std::size_t(1) << pbits;
  std::uint32_t* pl = static_cast<std::uint32_t*>(scratch);
  // The values aligned for T after the labels (n labels end on a 4-byte boundary; 16-byte values
  // such as the decimal study's __int128 need their own alignment).
  T* pv = reinterpret_cast<T*>((reinterpret_cast<std::uintptr_t>(pl + n) + alignof(T) - 1) & ~std::uintptr_t(alignof(T) - 1));
  // Offsets aligned for int64 after the two arrays.
  std::uintptr_t at = reinterpret_cast<std::uintptr_t>(pv + n);
  std::int64_t* count = reinterpret_cast<std::int64_t*>((at + 7) & ~std::uintptr_t(7));  // [t][p]
  std::int64_t* pstart = count + parts * threads;                                         // [p] (+1 sentinel within [t][p] space)
  run_threads(threads, [&](int t) {
    std::int64_t* c = count + std::size_t(t) * parts;
    std::fill(c, c + parts, 0);
    for (std::int64_t i = lo(t), e = lo(t + 1); i < e; ++i) ++c[labels[i] >> shift];
  });
  // Partition-major offsets, threads in order within a partition: the partitioned arrays keep
  // input order inside each partition (stable).
  std::int64_t run = 0;
  for (std::size_t p = 0; p < parts; ++p) {
    pstart[p] = run;
    for (int t = 0; t < threads; ++t) {
      const std::int64_t k = count[std::size_t(t) * parts + p];
      count[std::size_t(t) * parts + p] = run;
      run += k;
    }
  }
  run_threads(threads, [&](int t) {
    std::int64_t* c = count + std::size_t(t) * parts;
    for (std::int64_t i = lo(t), e = lo(t + 1); i < e; ++i) {
      const std::int64_t to = c[labels[i] >> shift]++;
      pl[to] = labels[i];
      pv[to] = value_at(i);
    }
  });
  std::atomic<std::size_t> next{0};
  run_threads(threads, [&](int) {
    for (std::size_t p; (p = next.fetch_add(1, std::memory_order_relaxed)) < parts;) {
      const std::uint64_t b0 = std::uint64_t(p) << shift, b1 = std::min<std::uint64_t>(m, std::uint64_t(p + 1) << shift);
      for (std::uint64_t b = b0; b < b1; ++b) buckets[b] = Op::identity();
      const std::int64_t e = p + 1 < parts ? pstart[p + 1] : n;
      for (std::int64_t j = pstart[p]; j < e; ++j) buckets[pl[j]] = Op::apply(buckets[pl[j]], pv[j]);
    }
  });
}

template <class Op>
void multireduce_mt(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, int threads,
                    void* scratch, typename Op::value_type* buckets, MtPath path = MtPath::Auto) {
  multireduce_mt_by<Op>(labels, [values](std::int64_t i) { return values[i]; }, n, m, threads, scratch, buckets, path);
}

// Streaming read: the sum of n int32 words on `threads` threads, four independent accumulators per
// thread so the loop is bound by memory, not by the add chain. Its GB/s is the host's read bandwidth.
inline std::int64_t stream_read_sum(const std::int32_t* v, std::int64_t n, int threads) {
  threads = resolve_threads(threads);
  std::vector<std::int64_t> part(std::size_t(threads) * 8, 0);  // 64-byte apart: no false sharing
  run_threads(threads, [&](int t) {
    const std::int64_t b = n * t / threads, e = n * (t + 1) / threads;
    std::int64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0, i = b;
    for (; i + 4 <= e; i += 4) s0 += v[i], s1 += v[i + 1], s2 += v[i + 2], s3 += v[i + 3];
    for (; i < e; ++i) s0 += v[i];
    part[std::size_t(t) * 8] = s0 + s1 + s2 + s3;
  });
  std::int64_t s = 0;
  for (int t = 0; t < threads; ++t) s += part[std::size_t(t) * 8];
  return s;
}

// One core reading `streams` int32 columns of n words side by side (a loop that reads
// two arrays at once, as the multireduce does, gets more bandwidth than one that reads one; the
// timing model's floor is this rate at the algorithm's own stream count). Wrapping unsigned sums
// let the compiler vectorise the loop, so it is bound by memory, not by the adds.
template <int S>
std::uint32_t stream_read_columns_fixed(const std::int32_t* const* cols, std::int64_t n) {
  std::uint32_t s = 0;
  for (std::int64_t i = 0; i < n; ++i)
    for (int c = 0; c < S; ++c) s += std::uint32_t(cols[c][i]);
  return s;
}
inline std::uint32_t stream_read_columns(const std::int32_t* const* cols, int streams, std::int64_t n) {
  switch (streams) {
    case 1: return stream_read_columns_fixed<1>(cols, n);
    case 2: return stream_read_columns_fixed<2>(cols, n);
    case 3: return stream_read_columns_fixed<3>(cols, n);
    default: return stream_read_columns_fixed<4>(cols, n);
  }
}

}  // namespace lp::cpu
