// The `bench cpu` algorithms (cpu_reference/cpu_memory) against brute force: scatter (Alg 2.1),
// gather and its sorted form (Alg 2.6), multiscan (Algs 2.3, 2.5), the enforced-sequential
// multireduce (Fig 2.8), the multithreaded baseline (both regimes), the streaming read and the
// pointer chase, over sizes including n = 0 and 1 and m not a power of two, several seeds. Huge
// pages must fall back and say so; counters must give a number or a reason, never crash.
#include <cstdio>
#include <numeric>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "check.hpp"
#include "cpu_reference/cpu_memory/enforced.hpp"
#include "cpu_reference/cpu_memory/huge_pages.hpp"
#include "cpu_reference/cpu_memory/latency.hpp"
#include "cpu_reference/cpu_memory/multiscan.hpp"
#include "cpu_reference/cpu_memory/multithreaded.hpp"
#include "cpu_reference/cpu_memory/multireduce_owned.hpp"
#include "cpu_reference/cpu_memory/perf_counters.hpp"
#include "cpu_reference/cpu_memory/scatter_gather.hpp"

using Op = lp::multireduce::Add<std::int32_t>;
using T = std::int32_t;
namespace cpu = lp::cpu;

void check_algorithms() {
  for (std::uint64_t seed : {1ull, 2ull, 77ull})
    for (std::uint32_t m : {1u, 2u, 7u, 16u, 1000u, 65536u, 65537u, 300007u})
      for (std::int64_t n : {std::int64_t(0), std::int64_t(1), std::int64_t(5), std::int64_t(4099), std::int64_t(100003)})
        for (const char* dist : {"uniform", "sequential"}) {
          std::vector<std::uint32_t> labels;
          if (std::string(dist) == "sequential") {
            for (std::int64_t i = 0; i < n; ++i) labels.push_back(std::uint32_t(i % m));
          } else {
            labels = harness::labels(n, m, "uniform", 1.0, seed * 1000 + m);
          }
          harness::Rng rng(seed ^ std::uint64_t(n));
          std::vector<T> values(static_cast<std::size_t>(n));
          for (auto& v : values) v = T(rng.next());
          const std::string at = " n=" + std::to_string(n) + " m=" + std::to_string(m) + " " + dist + " seed=" + std::to_string(seed);

          const auto want_mr = cpu::multireduce_brute_force<Op>(labels, values, m);
          std::vector<T> got(m, 123);
          for (int bits : {0, 2, 5, 32}) {
            std::fill(got.begin(), got.end(), 123);
            cpu::multireduce_enforced_sorted<Op>(labels.data(), values.data(), n, m, bits, 0u, got.data());
            CHECK_MSG(got == want_mr, "enforced bits=" << bits << at);
          }
          for (int threads : {1, 3, 8}) {
            std::vector<char> scratch(cpu::multireduce_mt_scratch_bytes<T>(n, m, threads) + 8);
            std::fill(got.begin(), got.end(), 123);
            cpu::multireduce_mt<Op>(labels.data(), values.data(), n, m, threads, scratch.data(), got.data());
            CHECK_MSG(got == want_mr, "multireduce_mt threads=" << threads << at);
            for (cpu::MtPath path : {cpu::MtPath::Private, cpu::MtPath::Partition, cpu::MtPath::Owned}) {
              std::vector<char> forced(cpu::multireduce_mt_scratch_bytes<T>(n, m, threads, path) + 8);
              std::fill(got.begin(), got.end(), 123);
              cpu::multireduce_mt<Op>(labels.data(), values.data(), n, m, threads, forced.data(), got.data(), path);
              CHECK_MSG(got == want_mr, "multireduce_mt path=" << int(path) << " threads=" << threads << at);
            }
            std::vector<char> owned(cpu::multireduce_owned_scratch_bytes<T>(threads));
            std::fill(got.begin(), got.end(), 123);
            cpu::multireduce_owned<Op>(labels.data(), values.data(), n, m, threads, owned.data(), got.data());
            CHECK_MSG(got == want_mr, "multireduce_owned threads=" << threads << at);
          }

          const auto want_scan = cpu::multiscan_brute_force<Op>(labels, values, m);
          std::vector<T> scan(static_cast<std::size_t>(n), 99), buckets(m);
          cpu::multiscan_sequential<Op>(labels.data(), values.data(), n, m, buckets.data(), scan.data());
          CHECK_MSG(scan == want_scan, "multiscan_seq" << at);
          for (int bits : {1, 3, 9, 32}) {
            std::fill(scan.begin(), scan.end(), 99);
            cpu::multiscan_sorted<Op>(labels.data(), values.data(), n, m, bits, buckets.data(), scan.data());
            CHECK_MSG(scan == want_scan, "multiscan_sorted bits=" << bits << at);
          }

          std::fill(got.begin(), got.end(), 123);
          cpu::scatter_sequential<T>(labels.data(), values.data(), n, m, T(-5), got.data());
          CHECK_MSG(got == cpu::scatter_brute_force<T>(labels, values, m, T(-5)), "scatter_seq" << at);

          std::vector<T> table(m);
          for (std::uint32_t b = 0; b < m; ++b) table[b] = T(rng.next());
          const auto want_g = cpu::gather_brute_force<T>(labels, table);
          std::vector<T> g(static_cast<std::size_t>(n), 7);
          cpu::gather_sequential<T>(labels.data(), table.data(), n, g.data());
          CHECK_MSG(g == want_g, "gather_seq" << at);
          for (int bits : {0, 1, 4, 32}) {
            std::fill(g.begin(), g.end(), 7);
            cpu::gather_sorted<T>(labels.data(), table.data(), n, m, bits, g.data());
            CHECK_MSG(g == want_g, "gather_sorted bits=" << bits << at);
          }

          std::int64_t want_sum = 0;
          for (T v : values) want_sum += v;
          for (int threads : {1, 5})
            CHECK_MSG(cpu::stream_read_sum(values.data(), n, threads) == want_sum, "stream_read threads=" << threads << at);
        }
}

// The threaded paths keep each bucket's input order (Last: the last value in input order wins, which
// a reordering path would miss), in every path and with more threads than this machine has cores.
void check_threads_keep_order() {
  using LastOp = lp::multireduce::Last;
  for (std::uint64_t seed : {3ull, 4ull})
    for (std::uint32_t m : {5u, 4096u, 300007u})
      for (std::int64_t n : {std::int64_t(70001), std::int64_t(1) << 19}) {
        const auto labels = harness::labels(n, m, "uniform", 1.0, seed * 31 + m);
        std::vector<std::int32_t> values(static_cast<std::size_t>(n));
        for (std::int64_t i = 0; i < n; ++i) values[std::size_t(i)] = std::int32_t(i);
        const auto want = cpu::multireduce_brute_force<LastOp>(labels, values, m);
        for (int threads : {2, 5, 16})
          for (cpu::MtPath path : {cpu::MtPath::Auto, cpu::MtPath::Private, cpu::MtPath::Partition, cpu::MtPath::Owned}) {
            std::vector<char> scratch(cpu::multireduce_mt_scratch_bytes<std::int32_t>(n, m, threads, path) + 8);
            std::vector<std::int32_t> got(m, 7);
            cpu::multireduce_mt<LastOp>(labels.data(), values.data(), n, m, threads, scratch.data(), got.data(), path);
            CHECK_MSG(got == want, "Last path=" << int(path) << " threads=" << threads << " n=" << n << " m=" << m);
          }
      }
}

// multireduce_mt's choice from m, the threads and the L2: owned ranges where one copy takes more
// than 4 L2s and there are 8 threads or more, private copies otherwise; a forced path stays forced.
void check_mt_path_rule() {
  const cpu::CacheSizes l2{std::size_t(2) << 20};  // 2 MiB: 4 L2s are 2^21 int32 buckets
  CHECK(cpu::mt_path<std::int32_t>(1u << 21, 16, cpu::MtPath::Auto, l2) == cpu::MtPath::Private);
  CHECK(cpu::mt_path<std::int32_t>((1u << 21) + 1, 16, cpu::MtPath::Auto, l2) == cpu::MtPath::Owned);
  CHECK(cpu::mt_path<std::int32_t>(1u << 26, 8, cpu::MtPath::Auto, l2) == cpu::MtPath::Owned);
  CHECK(cpu::mt_path<std::int32_t>(1u << 26, 7, cpu::MtPath::Auto, l2) == cpu::MtPath::Private);  // a share of a seventh or more
  CHECK(cpu::mt_path<std::int32_t>(1u << 26, 2, cpu::MtPath::Auto, l2) == cpu::MtPath::Private);
  CHECK(cpu::mt_path<std::int32_t>(1u << 19, 16, cpu::MtPath::Partition, l2) == cpu::MtPath::Partition);
  CHECK(cpu::mt_path<__int128>((1u << 19) + 1, 16, cpu::MtPath::Auto, l2) == cpu::MtPath::Owned);  // 16-byte buckets
  CHECK(cpu::mt_path<std::int32_t>(1u << 4, 16, cpu::MtPath::Owned, l2) == cpu::MtPath::Owned);
  CHECK(cpu::mt_path<std::int32_t>((1u << 20) + 1, 16, cpu::MtPath::Auto, cpu::CacheSizes{}) == cpu::MtPath::Owned);  // unknown L2: 1 MiB assumed
}

void check_pointer_chase() {
  for (std::uint32_t m : {1u, 2u, 3u, 1000u, 4096u})
    for (std::uint64_t seed : {5ull, 6ull}) {
      auto order = harness::permutation(m, seed);
      std::vector<std::uint32_t> next(m);
      cpu::make_cycle(order, next.data());
      // One cycle through every slot: m steps return to the start and visit each slot once.
      std::vector<bool> seen(m, false);
      std::uint32_t p = order[0];
      for (std::uint32_t k = 0; k < m; ++k) seen[p] = true, p = next[p];
      CHECK_MSG(p == order[0] && std::count(seen.begin(), seen.end(), true) == std::int64_t(m), "cycle m=" << m);
      for (std::int64_t steps : {std::int64_t(0), std::int64_t(1), std::int64_t(12345)})
        CHECK_MSG(cpu::pointer_chase(next.data(), steps, order[0]) == order[std::size_t(steps % m)], "chase m=" << m << " steps=" << steps);
    }
}

void check_huge_pages() {
  for (auto kind : {cpu::PageKind::Small4k, cpu::PageKind::Thp2m, cpu::PageKind::HugeTlb})
    for (std::size_t bytes : {std::size_t(0), std::size_t(4096), std::size_t(5) << 20}) {
      cpu::Region r(bytes, kind);
      CHECK(r.data() != nullptr);
      CHECK(reinterpret_cast<std::uintptr_t>(r.data()) % cpu::kHugePage == 0);
      CHECK(r.mapped_bytes() >= bytes && r.mapped_bytes() % cpu::kHugePage == 0);
      // Writable everywhere (a fallback must still be usable memory).
      auto* p = r.as<unsigned char>();
      for (std::size_t i = 0; i < r.mapped_bytes(); i += 4096) p[i] = 1;
      const auto a = reinterpret_cast<std::uintptr_t>(r.data());
      const std::int64_t huge = cpu::huge_page_bytes({{a, a + r.mapped_bytes()}});
      CHECK(huge <= std::int64_t(r.mapped_bytes()));
      const bool fell_back = r.got() != r.asked();
      CHECK(!fell_back || !r.note().empty());  // a fallback always says why
      const std::string s = cpu::huge_page_status(kind, fell_back, huge, std::int64_t(r.mapped_bytes()));
      if (kind == cpu::PageKind::Small4k) CHECK(s == "n/a");
      else CHECK(s == "backed" || s == "partial" || s == "refused" || s == "unavailable");
      if (kind == cpu::PageKind::Small4k && huge >= 0) CHECK(huge == 0);  // MADV_NOHUGEPAGE honoured
      std::printf("pages %d bytes %zu: huge %lld of %zu -> %s%s%s\n", int(kind), bytes, (long long)huge, r.mapped_bytes(), s.c_str(),
                  r.note().empty() ? "" : ": ", r.note().c_str());
    }
  // Moving a region moves ownership (the point keeps them in members).
  cpu::Region a(4096, cpu::PageKind::Thp2m), b;
  void* p = a.data();
  b = std::move(a);
  CHECK(b.data() == p && !a);
}

void check_counters() {
  cpu::PerfCounters pc;
  pc.start();
  std::vector<std::uint32_t> v(1 << 20, 1);
  volatile std::uint64_t s = std::accumulate(v.begin(), v.end(), std::uint64_t(0));
  (void)s;
  const auto r = pc.stop();
  CHECK(r.size() == 3);
  for (const auto& c : r) {
    CHECK(c.available || !c.why.empty());
    std::printf("counter %s: %s\n", c.name.c_str(), c.available ? std::to_string(c.count).c_str() : ("unavailable: " + c.why).c_str());
  }
}

int main() {
  check_algorithms();
  check_threads_keep_order();
  check_mt_path_rule();
  check_pointer_chase();
  check_huge_pages();
  check_counters();
  return test_summary("cpu_memory");
}
