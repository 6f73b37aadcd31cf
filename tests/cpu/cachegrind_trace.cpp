// A program whose every data access is known, for checking lp::cachesim against Cachegrind
// (validation against a simulator nobody here wrote). Two modes:
//   cachegrind_trace trace <evict_bytes>
//       runs lp_cachegrind_traced() (to be run under valgrind --tool=cachegrind) and prints the
//       base addresses it used: "bases <evict> <idx> <buckets>" (hex);
//   cachegrind_trace replay <d1_bytes> <d1_ways> <line> <ll_bytes> <ll_ways> <evict_bytes> <evict> <idx> <buckets>
//       replays the same address stream through lp::cachesim configured as Cachegrind's D1/LL and
//       prints "sim D1 <misses> LL <misses>".
// The label stream comes from harness::labels with a fixed seed, so both modes see the same idx.
#include "cpu_reference/cachesim/cache_sim.hpp"
#include "apps/harness/datagen.hpp"

#include <sys/mman.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {
constexpr std::int64_t kN = 1 << 19;  // labels (2 MiB of idx, streamed)
constexpr std::uint32_t kM = 1 << 17;  // buckets (512 KiB: overflows D1 and the LLs tested)
constexpr std::uint64_t kSeed = 20140601;
constexpr std::size_t kLine = 64;
}  // namespace

// Cold start: Cachegrind's caches hold whatever the loader, libc and the label generator left,
// the simulator starts empty. The function therefore first reads one byte of every line of a
// never-touched buffer of >= 2x the LL: under LRU each set then holds only the most recent
// `ways` buffer lines in both simulators, whatever it held before, and every buffer read is a
// compulsory miss in both. Buffer lines are never used again, so only their count matters.
// Instruction fetches (I1 misses also fill Cachegrind's LL) happen before the first trace access
// of each iteration, so any code line that enters an LL set takes the place of a dead buffer line
// that is older than every trace line: the trace's hits and misses are unchanged.
// The loop is a multireduce count: idx[i] read sequentially, buckets[idx[i]] read-modify-written
// (one `add $1,(mem)` that Cachegrind counts as a single read; its write always hits, so the
// miss counts match the simulator's read-then-write). noinline + extern "C" give one fn= record.
// Compiled at -O2 the body is two register-only loops (checked with objdump): the only data
// accesses are evict[off], idx[i], buckets[idx[i]] and the final `ret`'s return-address read.
extern "C" __attribute__((noinline)) void lp_cachegrind_traced(const volatile unsigned char* evict, std::size_t evict_bytes,
                                                               const std::uint32_t* idx, std::size_t n,
                                                               std::uint32_t* buckets) {
  for (std::size_t off = 0; off < evict_bytes; off += kLine) (void)evict[off];
  for (std::size_t i = 0; i < n; ++i) buckets[idx[i]] += 1;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  const auto idx = harness::labels(kN, kM, "uniform", 0, kSeed);
  if (mode == "trace" && argc == 3) {
    const std::size_t evict_bytes = std::strtoull(argv[2], nullptr, 0);
    // Fresh anonymous pages: never read or written before the traced function (see above).
    void* ev = mmap(nullptr, evict_bytes, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    auto* buckets = static_cast<std::uint32_t*>(std::aligned_alloc(kLine, kM * sizeof(std::uint32_t)));
    if (ev == MAP_FAILED || !buckets) { std::fprintf(stderr, "allocation failed\n"); return 2; }
    std::memset(buckets, 0, kM * sizeof(std::uint32_t));
    lp_cachegrind_traced(static_cast<const volatile unsigned char*>(ev), evict_bytes, idx.data(), idx.size(), buckets);
    std::uint64_t total = 0;  // keeps the result observable
    for (std::uint32_t b = 0; b < kM; ++b) total += buckets[b];
    if (total != std::uint64_t(kN)) { std::fprintf(stderr, "bucket total %llu\n", (unsigned long long)total); return 1; }
    std::printf("bases %llx %llx %llx\n", (unsigned long long)reinterpret_cast<std::uintptr_t>(ev),
                (unsigned long long)reinterpret_cast<std::uintptr_t>(idx.data()),
                (unsigned long long)reinterpret_cast<std::uintptr_t>(buckets));
    return 0;
  }
  if (mode == "replay" && argc == 11) {
    auto num = [&](int i) { return std::strtoull(argv[i], nullptr, 0); };
    auto hex = [&](int i) { return std::strtoull(argv[i], nullptr, 16); };
    // Cachegrind's model (its manual, "Cache simulation specifics"): D1 and LL are LRU and
    // write-allocate, LL sees only D1 misses (and I1 misses), and no write-back traffic is
    // modelled; nothing is invalidated in D1 when LL evicts (non-inclusive).
    lp::cachesim::Hierarchy h;
    h.levels.resize(2);
    h.levels[0].name = "D1";
    h.levels[0].size_bytes = num(2);
    h.levels[0].ways = std::uint32_t(num(3));
    h.levels[0].line_bytes = std::uint32_t(num(4));
    h.levels[1].name = "LL";
    h.levels[1].size_bytes = num(5);
    h.levels[1].ways = std::uint32_t(num(6));
    h.levels[1].line_bytes = std::uint32_t(num(4));
    h.writeback_to_next_level = false;
    if (std::string err = lp::cachesim::validate(h); !err.empty()) { std::fprintf(stderr, "%s\n", err.c_str()); return 2; }
    const std::uint64_t evict_bytes = num(7), ev = hex(8), ia = hex(9), ba = hex(10);
    lp::cachesim::Simulator sim(h);
    for (std::uint64_t off = 0; off < evict_bytes; off += kLine) sim.access(ev + off, false);
    for (std::size_t i = 0; i < idx.size(); ++i) {
      sim.access(ia + 4 * i, false);
      sim.access(ba + 4ull * idx[i], false);
      sim.access(ba + 4ull * idx[i], true);
    }
    // The function's `ret` reads the return address from the stack: Cachegrind counts that data
    // read in this function. After the flush the stack line is in neither cache and the trace
    // never touches it, so it is a compulsory miss in D1 and LL whatever its address; any line
    // outside the buffers (here the top of the 47-bit user space) reproduces it exactly.
    sim.access((std::uint64_t(1) << 47) - kLine, false);
    std::printf("sim D1 %llu LL %llu\n", (unsigned long long)sim.stats().levels[0].misses,
                (unsigned long long)sim.stats().levels[1].misses);
    return 0;
  }
  std::fprintf(stderr, "usage: %s trace <evict_bytes> | replay <d1_bytes> <d1_ways> <line> <ll_bytes> <ll_ways> <evict_bytes> <evict> <idx> <buckets>\n", argv[0]);
  return 2;
}
