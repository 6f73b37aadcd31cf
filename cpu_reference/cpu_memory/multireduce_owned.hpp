// Multithreaded multireduce with owned bucket ranges (beyond the thesis): thread o owns the o-th of
// `threads` bucket ranges (m / threads buckets, which stay in its own L2 where one private copy of
// all m per thread would not), and the input goes in blocks: every thread splits its slice of a
// block by owner into runs of (label, value) pairs, and every owner applies, in bulk, the runs all
// threads made for it. The labels and values are read once from memory; each pair then crosses
// between cores once, through the shared cache: a block's runs (kOwnedSlice pairs a thread, a few
// MiB for all) are sized to stay in the L3 while they wait for their owners.
// No barrier: each thread publishes how many blocks it has split and how many it has applied, and
// goes on with whichever of the two it may do; a split runs up to kOwnedDepth blocks ahead of the
// slowest owner. The first form of this design (one barrier a block, three buffers, labels and
// values in separate runs) held 11-16 GB/s at every m on the H100's host, where private buckets
// reached 41-82: every block waited for the slowest of 16 virtual CPUs.
// Blocks, and the producers within a block, are applied in input order, so a bucket folds its
// values in input order: the result equals Alg 2.2's for any associative operator.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <thread>
#include <vector>

#include "../../kernels/common/label_bits.hpp"
#include "threads.hpp"

namespace lp::cpu {

constexpr std::int64_t kOwnedSlice = 16384;  // inputs a thread splits per block
constexpr int kOwnedDepth = 4;               // blocks a thread's split may run ahead of the slowest owner

template <class T>
struct OwnedPair {
  std::uint32_t label;
  T value;
};

template <class T>
std::size_t multireduce_owned_scratch_bytes(int threads) {
  threads = resolve_threads(threads);
  const std::size_t offsets = (std::size_t(threads) + 1) * 8 + 64;
  const std::size_t per = offsets + kOwnedDepth * (offsets + std::size_t(kOwnedSlice) * sizeof(OwnedPair<T>) + alignof(OwnedPair<T>) + 64);
  return std::size_t(threads) * (per + 64) + 64;
}

template <class Op, class ValueAt>
void multireduce_owned_by(const std::uint32_t* labels, ValueAt value_at, std::int64_t n, std::uint32_t m, int threads, void* scratch,
                          typename Op::value_type* buckets) {
  using T = typename Op::value_type;
  using Pair = OwnedPair<T>;
  threads = resolve_threads(threads);
  const int lb = label_bits(m);
  // owner(l) = floor(l * threads / 2^lb): ranges of equal width over the label space.
  auto owner = [&](std::uint32_t l) { return int((std::uint64_t(l) * std::uint64_t(threads)) >> lb); };
  auto range_lo = [&](int o) {
    const std::uint64_t lo = ((std::uint64_t(o) << lb) + std::uint64_t(threads) - 1) / std::uint64_t(threads);
    return std::uint32_t(std::min<std::uint64_t>(lo, m));
  };
  struct Part {  // one thread's kOwnedDepth slots: its runs of a block, grouped by owner, and where each owner's begins
    Pair* pairs[kOwnedDepth];
    std::int64_t* start[kOwnedDepth];  // threads + 1 offsets
    std::int64_t* count;               // the split's cursors
  };
  std::vector<Part> part(static_cast<std::size_t>(threads));
  {
    auto at = reinterpret_cast<std::uintptr_t>(scratch);
    auto take = [&](std::size_t bytes, std::size_t align) {
      at = (at + align - 1) & ~std::uintptr_t(align - 1);
      void* p = reinterpret_cast<void*>(at);
      at += bytes;
      return p;
    };
    for (Part& p : part) {
      p.count = static_cast<std::int64_t*>(take((std::size_t(threads) + 1) * 8, 64));
      for (int b = 0; b < kOwnedDepth; ++b) {
        p.pairs[b] = static_cast<Pair*>(take(std::size_t(kOwnedSlice) * sizeof(Pair), std::max<std::size_t>(64, alignof(Pair))));
        p.start[b] = static_cast<std::int64_t*>(take((std::size_t(threads) + 1) * 8, 64));
      }
    }
  }
  // Each thread's progress, on lines of their own: blocks split, blocks applied.
  struct alignas(64) Progress {
    std::atomic<std::int64_t> split{0}, applied{0};
  };
  std::unique_ptr<Progress[]> progress(new Progress[std::size_t(threads)]);
  const std::int64_t block = kOwnedSlice * threads, blocks = (n + block - 1) / block;
  // The least of every thread's counter (split or applied), read until it reaches `want`; a cache of
  // what was seen, so that a thread that is ahead does not read 16 contended lines on every turn.
  auto all_reached = [&](std::atomic<std::int64_t> Progress::*which, std::int64_t want, std::int64_t& seen) {
    if (seen >= want) return true;
    std::int64_t least = INT64_MAX;
    for (int p = 0; p < threads; ++p) least = std::min(least, (progress[std::size_t(p)].*which).load(std::memory_order_acquire));
    seen = least;
    return seen >= want;
  };
  run_threads(threads, [&](int t) {
    for (std::uint32_t b = range_lo(t), e = range_lo(t + 1); b < e; ++b) buckets[b] = Op::identity();
    Part& mine = part[std::size_t(t)];
    std::int64_t splits = 0, applies = 0, seen_applied = 0, seen_split = 0;
    for (int idle = 0; applies < blocks;) {
      bool moved = false;
      // Split the next block into its slot once every owner has applied what the slot held.
      if (splits < blocks && all_reached(&Progress::applied, splits - kOwnedDepth + 1, seen_applied)) {
        const int slot = int(splits % kOwnedDepth);
        std::int64_t* count = mine.count;
        const std::int64_t lo = std::min(n, splits * block + t * kOwnedSlice), hi = std::min(n, lo + kOwnedSlice);
        std::fill(count, count + threads + 1, 0);
        for (std::int64_t i = lo; i < hi; ++i) ++count[owner(labels[i]) + 1];
        std::int64_t* s = mine.start[slot];
        s[0] = 0;
        for (int o = 0; o < threads; ++o) s[o + 1] = s[o] + count[o + 1], count[o] = s[o];
        Pair* out = mine.pairs[slot];
        for (std::int64_t i = lo; i < hi; ++i) {
          const std::uint32_t l = labels[i];
          out[count[owner(l)]++] = Pair{l, value_at(i)};
        }
        progress[std::size_t(t)].split.store(++splits, std::memory_order_release);
        moved = true;
      }
      // Apply the next block's runs for this owner once every thread has split it, producers in order.
      if (applies < splits && all_reached(&Progress::split, applies + 1, seen_split)) {
        const int slot = int(applies % kOwnedDepth);
        for (const Part& p : part)
          for (const Pair *q = p.pairs[slot] + p.start[slot][t], *e = p.pairs[slot] + p.start[slot][t + 1]; q < e; ++q)
            buckets[q->label] = Op::apply(buckets[q->label], q->value);
        progress[std::size_t(t)].applied.store(++applies, std::memory_order_release);
        moved = true;
      }
      if (moved) idle = 0;
      else if (++idle > 64) std::this_thread::yield();  // more threads than cores still progress
    }
  });
}

template <class Op>
void multireduce_owned(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, int threads,
                       void* scratch, typename Op::value_type* buckets) {
  multireduce_owned_by<Op>(labels, [values](std::int64_t i) { return values[i]; }, n, m, threads, scratch, buckets);
}

}  // namespace lp::cpu
