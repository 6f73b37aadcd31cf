// Multithreaded multireduce with owned bucket ranges (beyond the thesis): where a private
// bucket set per thread outgrows L1/L2, thread o owns the o-th of `threads` bucket ranges (m /
// threads buckets, cache-resident), and the input is processed in blocks: every thread splits its
// slice of a block by owner into a cache-resident buffer, then every owner applies what all
// threads found for it. The labels are read once from memory; only the block's pairs cross
// between cores, through the shared cache. One barrier per block: a thread splits block k while
// others may still apply block k - 2, so the buffers are triple.
// Slices, blocks and producers are consumed in input order, so a bucket folds its values in input
// order: the result equals Alg 2.2's for any associative operator.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>

#include "multithreaded.hpp"

namespace lp::cpu {

constexpr std::int64_t kOwnedSlice = 16384;  // inputs a thread splits per block: 3 x 128 KiB of pairs stay in L2

template <class T>
std::size_t multireduce_owned_scratch_bytes(int threads) {
  threads = resolve_threads(threads);
  const std::size_t per = 4 * ((std::size_t(threads) + 1) * 8 + 64) + 3 * std::size_t(kOwnedSlice) * (sizeof(std::uint32_t) + sizeof(T)) + 3 * 128;
  return std::size_t(threads) * (per + 64) + 64 + alignof(T);
}

// A sense-reversing spin barrier; waiting threads yield, so more threads than cores still progress.
class SpinBarrier {
 public:
  explicit SpinBarrier(int n) : n_(n), left_(n) {}
  void wait() {
    const bool sense = !sense_.load(std::memory_order_relaxed);
    if (left_.fetch_sub(1, std::memory_order_acq_rel) == 1) {
      left_.store(n_, std::memory_order_relaxed);
      sense_.store(sense, std::memory_order_release);
      return;
    }
    for (int spin = 0; sense_.load(std::memory_order_acquire) != sense; ++spin)
      if (spin > 64) std::this_thread::yield();
  }

 private:
  const int n_;
  std::atomic<int> left_;
  std::atomic<bool> sense_{false};
};

template <class Op, class ValueAt>
void multireduce_owned_by(const std::uint32_t* labels, ValueAt value_at, std::int64_t n, std::uint32_t m, int threads, void* scratch,
                          typename Op::value_type* buckets) {
  using T = typename Op::value_type;
  threads = resolve_threads(threads);
  const int lb = label_bits(m);
  // owner(l) = floor(l * threads / 2^lb): ranges of equal width over the label space.
  auto owner = [&](std::uint32_t l) { return int((std::uint64_t(l) * std::uint64_t(threads)) >> lb); };
  auto range_lo = [&](int o) {
    const std::uint64_t lo = ((std::uint64_t(o) << lb) + std::uint64_t(threads) - 1) / std::uint64_t(threads);
    return std::uint32_t(std::min<std::uint64_t>(lo, m));
  };
  struct Part {  // one thread's triple buffer: pairs grouped by owner, and where each owner's begin
    std::uint32_t* label[3];
    T* value[3];
    std::int64_t* start[3];  // threads + 1 offsets
    std::int64_t* count;     // the split's cursors, on lines of their own (no false sharing)
  };
  std::vector<Part> part;
  part.resize(std::size_t(threads));
  {
    auto at = reinterpret_cast<std::uintptr_t>(scratch);
    auto take = [&](std::size_t bytes, std::size_t align) {
      at = (at + align - 1) & ~std::uintptr_t(align - 1);
      void* p = reinterpret_cast<void*>(at);
      at += bytes;
      return p;
    };
    for (Part& p : part) {
      p.count = static_cast<std::int64_t*>(take((std::size_t(threads) + 1) * 8 + 64, 64));
      for (int b = 0; b < 3; ++b) {
        p.value[b] = static_cast<T*>(take(std::size_t(kOwnedSlice) * sizeof(T), alignof(T) < 64 ? 64 : alignof(T)));
        p.label[b] = static_cast<std::uint32_t*>(take(std::size_t(kOwnedSlice) * 4, 4));
        p.start[b] = static_cast<std::int64_t*>(take((std::size_t(threads) + 1) * 8, 64));
      }
    }
  }
  const std::int64_t block = kOwnedSlice * threads, blocks = (n + block - 1) / block;
  SpinBarrier barrier(threads);
  run_threads(threads, [&](int t) {
    for (std::uint32_t b = range_lo(t), e = range_lo(t + 1); b < e; ++b) buckets[b] = Op::identity();
    for (std::int64_t k = 0; k <= blocks; ++k) {
      if (k < blocks) {  // split this thread's slice of block k by owner
        Part& p = part[std::size_t(t)];
        std::int64_t* count = p.count;
        const int buf = int(k % 3);
        const std::int64_t lo = std::min(n, k * block + t * kOwnedSlice), hi = std::min(n, lo + kOwnedSlice);
        std::fill(count, count + threads + 1, 0);
        for (std::int64_t i = lo; i < hi; ++i) ++count[owner(labels[i]) + 1];
        std::int64_t* s = p.start[buf];
        s[0] = 0;
        for (int o = 0; o < threads; ++o) s[o + 1] = s[o] + count[o + 1], count[o] = s[o];
        for (std::int64_t i = lo; i < hi; ++i) {
          const std::int64_t to = count[owner(labels[i])]++;
          p.label[buf][to] = labels[i];
          p.value[buf][to] = value_at(i);
        }
      }
      barrier.wait();
      if (k > 0) {  // apply block k - 1's pairs for this owner, producers in order
        const int buf = int((k - 1) % 3);
        for (const Part& p : part)
          for (std::int64_t j = p.start[buf][t], e = p.start[buf][t + 1]; j < e; ++j) {
            const std::uint32_t l = p.label[buf][j];
            buckets[l] = Op::apply(buckets[l], p.value[buf][j]);
          }
      }
    }
  });
}

template <class Op>
void multireduce_owned(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, int threads,
                       void* scratch, typename Op::value_type* buckets) {
  multireduce_owned_by<Op>(labels, [values](std::int64_t i) { return values[i]; }, n, m, threads, scratch, buckets);
}

}  // namespace lp::cpu
