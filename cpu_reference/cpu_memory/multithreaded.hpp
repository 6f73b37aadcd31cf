// The modern CPU baseline (beyond the thesis): multithreaded multireduce with
// std::thread, by one of two paths chosen from m, the threads and the host's L2: per-thread
// private buckets, or owned bucket ranges (multireduce_owned.hpp) where one copy of the buckets
// far outgrows a core's L2 and there are many threads; radix partitioning by the top label bits,
// then per-partition sequential Alg 2.2, is a third path the threads study forces; and a
// streaming-read kernel whose bandwidth is the ceiling any of them can reach. Scratch comes from
// the caller (sized by
// multireduce_mt_scratch_bytes) so that its pages follow the study's page axis.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <vector>
#if defined(__unix__)
#include <unistd.h>
#endif

#include "../multireduce/cpu_multireduce.hpp"
#include "multireduce_owned.hpp"
#include "threads.hpp"

namespace lp::cpu {

// The cache sizes multireduce_mt chooses by: a core's L2 (bytes; 0 where the host does not say).
struct CacheSizes {
  std::size_t l2 = 0;
};
inline CacheSizes host_cache_sizes() {
  CacheSizes c;
#if defined(_SC_LEVEL2_CACHE_SIZE)
  const long l2 = sysconf(_SC_LEVEL2_CACHE_SIZE);  // glibc reads it from CPUID: a VM that hides sysfs still says
  if (l2 > 0) c.l2 = std::size_t(l2);
#endif
  return c;
}
constexpr std::size_t kMtAssumedL2 = std::size_t(1) << 20;  // where the host does not say

// Which path multireduce_mt takes: Auto chooses from m and the L2 (mt_path), the others force one
// (configs/cpu/threads.json measures each at every m).
//  - owned ranges where one copy of the buckets takes more than 4 L2s and there are 8 threads or
//    more. A pair then crosses between cores once (about 7 ns a pair a thread on the H200's host),
//    which pays only where a private copy's every update goes to the L3 or memory and a thread's
//    share is an eighth of the buckets or less. On the H200's 16-thread host owned ranges tied
//    private copies at 2^20 (4 MiB, 24-29% against 23-28% of the streaming read) and beat them from 2^22
//    (19-23% against 7-13%: results/h200-host/cpu_threads.json and the two runs beside it); with
//    the dev VM's 2 threads they held 4-6% at every m, where private copies held 30-36% at
//    2^18-2^20 and 8% at 2^22 (results/dev-vm/cpu_threads.json);
//  - private copies otherwise (a copy within the L2s is an L2 read-modify-write an update).
// Radix partitioning reads and writes every pair through memory once more; it held 10-23% at
// m >= 2^18 on the H200's host where owned ranges held 17-29%, so it is a forced path only.
enum class MtPath { Auto, Private, Partition, Owned };
constexpr int kMtOwnedMinThreads = 8;
template <class T>
MtPath mt_path(std::uint32_t m, int threads, MtPath path, CacheSizes caches = host_cache_sizes()) {
  if (path != MtPath::Auto) return path;
  const std::size_t l2 = caches.l2 ? caches.l2 : kMtAssumedL2, bytes = std::size_t(m) * sizeof(T);
  return bytes > 4 * l2 && resolve_threads(threads) >= kMtOwnedMinThreads ? MtPath::Owned : MtPath::Private;
}
// A partition's buckets should fit in L2 (2^15 int32 = 128 KiB); at most 2^10 partitions, so the
// scatter's write streams stay few enough for the write-combining buffers and the TLB.
constexpr int kMtPartitionBucketBits = 15, kMtMaxPartitionBits = 10;

inline int mt_partition_bits(std::uint32_t m) {
  return std::clamp(label_bits(m) - kMtPartitionBucketBits, 1, kMtMaxPartitionBits);
}

template <class T>
std::size_t multireduce_mt_scratch_bytes(std::int64_t n, std::uint32_t m, int threads, MtPath path = MtPath::Auto) {
  threads = resolve_threads(threads);
  path = mt_path<T>(m, threads, path);
  if (path == MtPath::Owned) return multireduce_owned_scratch_bytes<T>(threads);
  if (path == MtPath::Private) return std::size_t(threads) * m * sizeof(T);
  const std::size_t parts = std::size_t(1) << mt_partition_bits(m);
  return std::size_t(n) * (sizeof(std::uint32_t) + sizeof(T)) + alignof(T) + 2 * parts * threads * sizeof(std::int64_t) + 64;
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
  path = mt_path<T>(m, threads, path);
  if (path == MtPath::Owned) return multireduce_owned_by<Op>(labels, value_at, n, m, threads, scratch, buckets);
  auto lo = [&](int t) { return n * t / threads; };
  if (path == MtPath::Private) {
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
