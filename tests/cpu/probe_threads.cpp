// A probe of the threaded multireduce's owned-range design on a many-core host (not a test): the
// design of cpu_reference/cpu_memory/multireduce_owned.hpp with its knobs open (slice, depth,
// threads pinned to CPUs, the split's runs pushed to the shared L3 with CLDEMOTE), beside private
// buckets and the streaming read, n = 2^26 int32 pairs, all hardware threads, interleaved rounds.
// Prints GB/s (8 bytes an input) per variant and m. Usage: probe_threads [rounds]
#include <pthread.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "cpu_reference/cpu_memory/multithreaded.hpp"

namespace {
using Op = lp::multireduce::Add<std::int32_t>;
struct Pair { std::uint32_t label; std::int32_t value; };
struct Knobs { std::int64_t slice = 16384; int depth = 4; bool pin = false, demote = false; };

template <class F>
void run(int threads, bool pin, F f) {
  std::vector<std::thread> pool;
  auto body = [&](int t) {
    if (pin) {
      cpu_set_t s;
      CPU_ZERO(&s);
      CPU_SET(t % int(std::thread::hardware_concurrency()), &s);
      pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
    }
    f(t);
  };
  for (int t = 1; t < threads; ++t) pool.emplace_back(body, t);
  body(0);
  for (auto& th : pool) th.join();
}

void owned(const std::uint32_t* labels, const std::int32_t* values, std::int64_t n, std::uint32_t m, int T, const Knobs& k, std::int32_t* buckets) {
  const int lb = lp::label_bits(m), D = k.depth;
  const std::int64_t S = k.slice;
  auto owner = [&](std::uint32_t l) { return int((std::uint64_t(l) * std::uint64_t(T)) >> lb); };
  auto range_lo = [&](int o) { return std::uint32_t(std::min<std::uint64_t>(((std::uint64_t(o) << lb) + T - 1) / T, m)); };
  std::vector<std::vector<Pair>> pairs(std::size_t(T) * D, std::vector<Pair>(std::size_t(S)));
  // Each slot's offsets on lines of their own, as in the library (no false sharing between a
  // producer writing its offsets and the owners reading theirs).
  const std::size_t stride = (std::size_t(T) + 1 + 7) / 8 * 8;
  std::vector<std::int64_t> start_all(std::size_t(T) * D * stride + 8);
  auto* start0 = reinterpret_cast<std::int64_t*>((reinterpret_cast<std::uintptr_t>(start_all.data()) + 63) & ~std::uintptr_t(63));
  auto start_of = [&](std::size_t i) { return start0 + i * stride; };
  struct alignas(64) Prog { std::atomic<std::int64_t> split{0}, applied{0}; };
  std::unique_ptr<Prog[]> prog(new Prog[std::size_t(T)]);
  const std::int64_t block = S * T, blocks = (n + block - 1) / block;
  auto least = [&](std::atomic<std::int64_t> Prog::*w) {
    std::int64_t x = INT64_MAX;
    for (int p = 0; p < T; ++p) x = std::min(x, (prog[std::size_t(p)].*w).load(std::memory_order_acquire));
    return x;
  };
  run(T, k.pin, [&](int t) {
    for (std::uint32_t b = range_lo(t), e = range_lo(t + 1); b < e; ++b) buckets[b] = 0;
    std::vector<std::int64_t> count(std::size_t(T) + 1 + 16);  // its own lines
    std::int64_t splits = 0, applies = 0, seen_a = 0, seen_s = 0;
    for (int idle = 0; applies < blocks;) {
      bool moved = false;
      if (splits < blocks && (seen_a >= splits - D + 1 || (seen_a = least(&Prog::applied)) >= splits - D + 1)) {
        const int slot = int(splits % D);
        const std::int64_t lo = std::min(n, splits * block + t * S), hi = std::min(n, lo + S);
        std::fill(count.begin(), count.end(), 0);
        for (std::int64_t i = lo; i < hi; ++i) ++count[std::size_t(owner(labels[i])) + 1];
        std::int64_t* s = start_of(std::size_t(t) * D + slot);
        s[0] = 0;
        for (int o = 0; o < T; ++o) s[o + 1] = s[o] + count[std::size_t(o) + 1], count[std::size_t(o)] = s[o];
        Pair* out = pairs[std::size_t(t) * D + slot].data();
        for (std::int64_t i = lo; i < hi; ++i) {
          const std::uint32_t l = labels[i];
          out[count[std::size_t(owner(l))]++] = Pair{l, values[i]};
        }
        if (k.demote)
          for (const char *p = reinterpret_cast<const char*>(out), *e = reinterpret_cast<const char*>(out + (hi - lo)); p < e; p += 64)
            asm volatile("cldemote %0" ::"m"(*p));
        prog[std::size_t(t)].split.store(++splits, std::memory_order_release);
        moved = true;
      }
      if (applies < splits && (seen_s >= applies + 1 || (seen_s = least(&Prog::split)) >= applies + 1)) {
        const int slot = int(applies % D);
        for (int p = 0; p < T; ++p) {
          const Pair* q = pairs[std::size_t(p) * D + slot].data();
          const std::int64_t* s = start_of(std::size_t(p) * D + slot);
          for (std::int64_t j = s[t]; j < s[t + 1]; ++j) buckets[q[j].label] += q[j].value;
        }
        prog[std::size_t(t)].applied.store(++applies, std::memory_order_release);
        moved = true;
      }
      if (moved) idle = 0;
      else if (++idle > 64) std::this_thread::yield();
    }
  });
}

void priv(const std::uint32_t* labels, const std::int32_t* values, std::int64_t n, std::uint32_t m, int T, bool pin, std::vector<std::int32_t>& scratch, std::int32_t* buckets) {
  scratch.resize(std::size_t(T) * m);
  run(T, pin, [&](int t) {
    std::int32_t* mine = scratch.data() + std::size_t(t) * m;
    std::fill(mine, mine + m, 0);
    for (std::int64_t i = n * t / T, e = n * (t + 1) / T; i < e; ++i) mine[labels[i]] += values[i];
  });
  run(T, pin, [&](int t) {
    for (std::uint32_t b = std::uint32_t(std::uint64_t(m) * t / T), e = std::uint32_t(std::uint64_t(m) * (t + 1) / T); b < e; ++b) {
      std::int32_t a = 0;
      for (int k = 0; k < T; ++k) a += scratch[std::size_t(k) * m + b];
      buckets[b] = a;
    }
  });
}
}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::atoi(argv[1]) : 3;
  const int T = int(std::thread::hardware_concurrency());
  const std::int64_t n = std::int64_t(1) << 26;
  std::vector<std::uint32_t> labels(static_cast<std::size_t>(n)), base(static_cast<std::size_t>(n));
  std::vector<std::int32_t> values(static_cast<std::size_t>(n), 1), scratch;
  std::mt19937_64 g(7);
  for (auto& x : base) x = std::uint32_t(g());
  struct V { std::string name; int kind; Knobs k; };
  const std::vector<V> vs = {{"stream_read", 0, {}}, {"private", 1, {}}, {"private_pinned", 1, {16384, 4, true, false}},
                             {"owned", 2, {}}, {"owned_pinned", 2, {16384, 4, true, false}}, {"owned_demote", 2, {16384, 4, false, true}},
                             {"owned_pinned_demote", 2, {16384, 4, true, true}}, {"owned_slice64k_depth8", 2, {65536, 8, false, false}},
                             {"owned_slice4k_depth8", 2, {4096, 8, false, false}}};
  std::printf("threads %d n 2^26\n", T);
  for (int lm : {14, 16, 18, 20, 22}) {
    const std::uint32_t m = 1u << lm;
    for (std::size_t i = 0; i < base.size(); ++i) labels[i] = base[i] & (m - 1);
    std::vector<std::int32_t> b(m), ref(m, 0);
    for (std::int64_t i = 0; i < n; ++i) ref[labels[std::size_t(i)]] += 1;
    std::vector<std::vector<double>> gbps(vs.size());
    for (int r = 0; r < rounds; ++r)
      for (std::size_t v = 0; v < vs.size(); ++v) {
        for (int rep = 0; rep < 2; ++rep) {  // a warm-up, then the timed run
          const auto t0 = std::chrono::steady_clock::now();
          volatile std::int64_t sink = 0;
          if (vs[v].kind == 0) sink = lp::cpu::stream_read_sum(values.data(), n, T);
          else if (vs[v].kind == 1) priv(labels.data(), values.data(), n, m, T, vs[v].k.pin, scratch, b.data());
          else owned(labels.data(), values.data(), n, m, T, vs[v].k, b.data());
          const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
          (void)sink;
          if (rep == 1) gbps[v].push_back((vs[v].kind == 0 ? 4.0 : 8.0) * double(n) / s / 1e9);
          if (vs[v].kind != 0 && b != ref) { std::printf("WRONG %s m=2^%d\n", vs[v].name.c_str(), lm); return 1; }
        }
      }
    for (std::size_t v = 0; v < vs.size(); ++v) {
      std::sort(gbps[v].begin(), gbps[v].end());
      std::printf("m=2^%d %-24s median %.1f GB/s (min %.1f max %.1f)\n", lm, vs[v].name.c_str(), gbps[v][gbps[v].size() / 2], gbps[v].front(), gbps[v].back());
    }
    std::fflush(stdout);
  }
}
