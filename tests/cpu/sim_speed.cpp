// The cache simulator's speed on Alg 2.2's stream (streams.hpp's multireduce_stream: the buckets'
// identity fill, then per input a label read, a value read and the bucket read-modify-write),
// n = 2^22 uniform labels, m = 2^4..2^26, through one preset (default gpu-host). Prints per m the
// simulated accesses per second (one core) and a checksum of every Stats field, so two builds of
// the simulator can be compared run against run: compile this file against another copy of the
// header by putting that copy's root first on the include path, e.g.
//   g++ -O2 -std=c++17 -I/tmp/sim_old -I. tests/cpu/sim_speed.cpp -o /tmp/sim_old_bin
// Usage: sim_speed [preset] [log2 n] [log2 m ...]
#include "cpu_reference/cachesim/cache_sim.hpp"
#include "cpu_reference/cachesim/presets.hpp"
#include "cpu_reference/cachesim/streams.hpp"
#include "apps/harness/datagen.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

using namespace lp::cachesim;

static std::uint64_t checksum(const Stats& s) {
  std::uint64_t c = s.accesses + s.memory_reads + s.memory_writes + s.page_walks;
  for (const auto& l : s.levels) c += l.hits + l.misses + l.writebacks + l.prefetches;
  for (const auto& t : s.tlbs) c += t.hits + t.misses;
  for (const auto v : s.served) c += v;
  return c;
}

int main(int argc, char** argv) {
  const std::string name = argc > 1 ? argv[1] : "gpu-host";
  const int log_n = argc > 2 ? std::atoi(argv[2]) : 22;
  std::vector<int> log_m;
  for (int a = 3; a < argc; ++a) log_m.push_back(std::atoi(argv[a]));
  if (log_m.empty()) log_m = {4, 8, 12, 14, 16, 18, 20, 22, 24, 26};
  const Hierarchy h = preset(name);
  const std::int64_t n = std::int64_t(1) << log_n;
  for (const int k : log_m) {
    const std::uint32_t m = std::uint32_t(1) << k;
    const auto lab = harness::labels(n, m, "uniform", 1.0, 17 + std::uint64_t(k));
    Simulator sim(h);
    const auto t0 = std::chrono::steady_clock::now();
    multireduce_stream(lab.data(), n, m, [&](std::uint64_t a, bool w) { sim.access(a, w); });
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("m=2^%d %.1f M/s chk=%llu\n", k, double(sim.stats().accesses) / s / 1e6,
                static_cast<unsigned long long>(checksum(sim.stats())));
    std::fflush(stdout);
  }
  return 0;
}
