// The cache simulator (lp::cachesim) against facts that hold for any correct simulator: LRU hit
// rates of uniform streams, compulsory-only misses, LRU's inclusion property, write-back counts,
// config rejection; plus a throughput self-report (no timing assertion: CI machines vary).
#include "check.hpp"
#include "cpu_reference/cachesim/cache_sim.hpp"
#include "cpu_reference/cachesim/presets.hpp"
#include "cpu_reference/cachesim/streams.hpp"
#include "cpu_reference/cachesim/timing.hpp"
#include "apps/harness/datagen.hpp"

#include <algorithm>
#include <cmath>
#include <chrono>
#include <cstdio>

using namespace lp::cachesim;

namespace {

Level level(std::uint64_t size, std::uint32_t ways, Policy p = Policy::LRU, std::uint32_t line = 64) {
  Level l;
  l.size_bytes = size;
  l.ways = ways;
  l.line_bytes = line;
  l.policy = p;
  return l;
}
Hierarchy one(Level l) {
  Hierarchy h;
  h.levels = {l};
  return h;
}

// Uniform accesses over m lines: after warm-up, each set holds `ways` of the m/sets lines that map
// to it, so any policy that keeps the set full hits with probability C/m.
void uniform_hit_rate(Policy p) {
  for (std::uint64_t m : {2048u, 8192u}) {
    Simulator sim(one(level(32768, 8, p)));  // C = 512 lines
    harness::Rng rng(42 + m);
    for (int i = 0; i < 200000; ++i) sim.access(rng.below(m) * 64, false);
    const auto before = sim.stats().levels[0];
    const int n = 2000000;
    for (int i = 0; i < n; ++i) sim.access(rng.below(m) * 64 + 8, false);
    const double hit = double(sim.stats().levels[0].hits - before.hits) / n;
    CHECK_MSG(std::abs(hit - 512.0 / double(m)) < 0.02,
              policy_name(p) << " m=" << m << " hit " << hit << " vs " << 512.0 / double(m));
  }
}

void compulsory_only() {
  for (Policy p : {Policy::LRU, Policy::TreePLRU, Policy::Random}) {
    Hierarchy h;
    h.levels = {level(32768, 8, p), level(262144, 16, p)};
    Simulator sim(h);
    harness::Rng rng(7);
    const std::uint64_t lines = 400;  // contiguous: at most 7 lines per L1 set of 8 ways
    for (int i = 0; i < 100000; ++i) sim.access(0x10000 + rng.below(lines * 64), rng.below(4) == 0);
    CHECK_MSG(sim.stats().levels[0].misses == lines, policy_name(p) << " L1 misses " << sim.stats().levels[0].misses);
    CHECK(sim.stats().levels[1].misses == lines);
    CHECK(sim.stats().levels[0].writebacks == 0);  // nothing was ever evicted
    CHECK(sim.stats().memory_reads == lines);
  }
}

std::vector<std::uint64_t> trace(int kind, std::uint64_t seed) {
  std::vector<std::uint64_t> t;
  harness::Rng rng(seed);
  const int n = 200000;
  if (kind == 0) {  // uniform over 1 MiB
    for (int i = 0; i < n; ++i) t.push_back(rng.below(1 << 20));
  } else if (kind == 1) {  // multireduce-like: sequential labels plus a random bucket
    auto lab = harness::labels(n / 2, 1 << 16, "zipf", 0.8, seed);
    for (int i = 0; i < n / 2; ++i) { t.push_back(0x4000000 + 4ull * i); t.push_back(4ull * lab[i]); }
  } else {  // loops over working sets of varying size
    while (int(t.size()) < n) {
      const std::uint64_t ws = 4096 + rng.below(1 << 19), base = rng.below(1 << 22);
      for (std::uint64_t a = 0; a < ws && int(t.size()) < n; a += 64) t.push_back(base + a);
    }
  }
  return t;
}

std::uint64_t misses(const std::vector<std::uint64_t>& t, std::uint64_t size, std::uint32_t ways) {
  Simulator sim(one(level(size, ways)));
  for (auto a : t) sim.access(a, false);
  return sim.stats().levels[0].misses;
}

// LRU's stack property: more ways in the same sets, or twice the sets (each new set sees a
// subsequence of an old set's stream) can never add a miss.
void lru_monotone() {
  for (int kind = 0; kind < 3; ++kind)
    for (std::uint64_t seed : {1u, 2u}) {
      const auto t = trace(kind, seed);
      for (std::uint32_t ways : {1u, 2u, 4u, 8u, 16u}) {
        std::uint64_t prev = ~0ull;
        for (std::uint64_t size = 4096; size <= (1u << 20); size *= 2) {
          const std::uint64_t m = misses(t, size, ways);
          CHECK_MSG(m <= prev, "kind " << kind << " ways " << ways << " size " << size << ": " << m << " > " << prev);
          prev = m;
        }
      }
      for (std::uint64_t sets : {16u, 64u, 256u}) {
        std::uint64_t prev = ~0ull;
        for (std::uint32_t ways = 1; ways <= 32; ways *= 2) {
          const std::uint64_t m = misses(t, sets * ways * 64, ways);
          CHECK_MSG(m <= prev, "kind " << kind << " sets " << sets << " ways " << ways << ": " << m << " > " << prev);
          prev = m;
        }
      }
    }
}

void writebacks() {
  Hierarchy h;
  h.levels = {level(32768, 8), level(1 << 20, 16)};
  {
    Simulator sim(h);
    for (const auto a : trace(0, 3)) sim.access(a, false);
    for (const auto& l : sim.stats().levels) CHECK_MSG(l.writebacks == 0, l.name << " wrote back on a read-only trace");
    CHECK(sim.stats().memory_writes == 0);
  }
  {
    // Dirty 1024 lines, then stream 4096 clean ones through: every dirty line leaves L1 exactly
    // once; L2 (1 MiB) keeps them all, so nothing reaches memory.
    Simulator sim(h);
    for (std::uint64_t i = 0; i < 1024; ++i) sim.access(i * 64, true);
    for (std::uint64_t i = 0; i < 4096; ++i) sim.access((1 << 21) + i * 64, false);
    CHECK_MSG(sim.stats().levels[0].writebacks == 1024, sim.stats().levels[0].writebacks);
    CHECK(sim.stats().levels[1].writebacks == 0);
    CHECK(sim.stats().memory_writes == 0);
  }
}

void inclusive() {
  // 1 set x 4 ways in both levels. After A B C D and a hit on A in L1, L2's LRU line is A;
  // E evicts A from an inclusive L2, which must invalidate L1's copy, so A misses again.
  for (bool incl : {false, true}) {
    Hierarchy h;
    h.levels = {level(256, 4), level(256, 4)};
    h.levels[1].inclusive = incl;
    Simulator sim(h);
    for (std::uint64_t a : {0, 1, 2, 3, 0, 4, 0}) sim.access(a * 64, false);
    CHECK_MSG(sim.stats().levels[0].misses == (incl ? 6u : 5u), "inclusive=" << incl << " L1 misses " << sim.stats().levels[0].misses);
  }
}

void prefetchers_and_tlb() {
  for (Prefetch p : {Prefetch::NextLine, Prefetch::Stride}) {
    Level l = level(32768, 8);
    l.prefetcher = p;
    Simulator sim(one(l));
    const std::uint64_t stride = p == Prefetch::NextLine ? 1 : 3, n = 10000;
    for (std::uint64_t i = 0; i < n; ++i) sim.access(i * stride * 64, false);
    CHECK_MSG(sim.stats().levels[0].misses < n * 6 / 10, prefetch_name(p) << " misses " << sim.stats().levels[0].misses);
    CHECK(sim.stats().levels[0].prefetches > 0);
  }
  Hierarchy h = one(level(32768, 8));
  h.tlbs = {Tlb{"T1", 16, 4, 4096, 1.0}, Tlb{"T2", 256, 4, 4096, 20.0}};
  Simulator sim(h);
  for (int rep = 0; rep < 10; ++rep)
    for (std::uint64_t p = 0; p < 100; ++p) sim.access(p * 4096 + 128, false);  // 100 pages: fit T2 only
  CHECK(sim.stats().page_walks == 100);
  CHECK(sim.stats().tlbs[1].misses == 100);
  CHECK(sim.stats().tlbs[0].misses == 1000);  // 16 entries, 100 pages cycled: LRU always misses
}

// Wide LRU sets (a 38-way L3, a 96-way fully associative TLB), hit for hit against a
// move-to-front list per set, on a random stream with locality (a small hot range and a wide one).
void wide_lru_exact() {
  struct Oracle {
    std::uint64_t sets, ways, hits = 0, misses = 0;
    std::vector<std::vector<std::uint64_t>> lists;
    Oracle(std::uint64_t s, std::uint64_t w) : sets(s), ways(w), lists(s) {}
    void touch(std::uint64_t key) {
      auto& l = lists[key % sets];
      auto it = std::find(l.begin(), l.end(), key);
      if (it != l.end()) ++hits, l.erase(it);
      else if (++misses, l.size() == ways) l.pop_back();
      l.insert(l.begin(), key);
    }
  };
  for (std::uint64_t sets : {1u, 4u, 64u}) {
    Oracle cache(sets, 38), tlb(1, 96);
    Hierarchy h = one(level(sets * 38 * 64, 38));
    h.tlbs = {Tlb{"T1", 96, 96, 4096, 1.0}};
    Simulator sim(h);
    harness::Rng rng(sets);
    for (int i = 0; i < 300000; ++i) {
      const std::uint64_t span = rng.below(4) == 0 ? sets * 38 * 3 : sets * 30;  // lines
      const std::uint64_t addr = rng.below(span) * 64 + rng.below(64);
      sim.access(addr, rng.below(3) == 0);
      cache.touch(addr / 64);
      tlb.touch(addr / 4096);
    }
    CHECK_MSG(sim.stats().levels[0].hits == cache.hits && sim.stats().levels[0].misses == cache.misses,
              "38-way, " << sets << " sets: " << sim.stats().levels[0].misses << " misses, the list " << cache.misses);
    CHECK_MSG(sim.stats().tlbs[0].hits == tlb.hits && sim.stats().tlbs[0].misses == tlb.misses,
              "96-entry TLB: " << sim.stats().tlbs[0].misses << " misses, the list " << tlb.misses);
  }
}

// The simulator's LRU sets (move-to-front entries searched four ways a step, the near-hit short
// path, 32- and 64-bit entries) against a plain reference: one move-to-front std::vector per set, the model of cache_sim.hpp's top comment
// written out directly (demand fills, write-back victims into the next level or not, inclusive
// back-invalidation, next-line and stride prefetchers with tagged first use, TLBs). Every Stats
// field must match, in both entry widths, over random, strided and mixed streams of reads and
// writes on LRU hierarchies of 1 to 300 ways.
struct RefLru {
  struct Line { std::uint64_t line; bool dirty, prefetched; };
  struct Lvl {
    Level l;
    unsigned shift;
    std::uint64_t sets;
    std::vector<std::vector<Line>> s;  // most recent first
    std::uint64_t last_miss = ~0ull;
    std::int64_t last_stride = 0;
  };
  struct T { Tlb t; unsigned shift; std::uint64_t sets; std::vector<std::vector<std::uint64_t>> s; };
  Hierarchy h;
  std::vector<Lvl> c;
  std::vector<T> tl;
  Stats st;
  explicit RefLru(const Hierarchy& hh) : h(hh) {
    for (const Level& l : h.levels) {
      const std::uint64_t sets = l.size_bytes / (std::uint64_t(l.line_bytes) * l.ways);
      c.push_back({l, detail::log2u(l.line_bytes), sets, std::vector<std::vector<Line>>(sets)});
      st.levels.push_back({l.name});
    }
    for (const Tlb& t : h.tlbs) {
      tl.push_back({t, detail::log2u(t.page_bytes), t.entries / t.ways, std::vector<std::vector<std::uint64_t>>(t.entries / t.ways)});
      st.tlbs.push_back({t.name});
    }
    st.served.assign(h.levels.size() + 1, 0);
  }
  std::vector<Line>& set_of(std::size_t i, std::uint64_t line) { return c[i].s[line % c[i].sets]; }
  static std::vector<Line>::iterator find(std::vector<Line>& v, std::uint64_t line) {
    return std::find_if(v.begin(), v.end(), [&](const Line& x) { return x.line == line; });
  }
  void access(std::uint64_t addr, bool w) {
    ++st.accesses;
    if (!tl.empty()) translate(addr);
    fetch(0, addr, w, false);
  }
  void translate(std::uint64_t addr) {
    std::size_t k = 0;
    for (; k < tl.size(); ++k) {
      const std::uint64_t page = addr >> tl[k].shift;
      auto& v = tl[k].s[page % tl[k].sets];
      auto it = std::find(v.begin(), v.end(), page);
      if (it != v.end()) {
        v.erase(it), v.insert(v.begin(), page), ++st.tlbs[k].hits;
        break;
      }
      ++st.tlbs[k].misses;
    }
    if (k == tl.size()) ++st.page_walks;
    for (std::size_t j = 0; j < k; ++j) {
      const std::uint64_t page = addr >> tl[j].shift;
      auto& v = tl[j].s[page % tl[j].sets];
      v.insert(v.begin(), page);
      if (v.size() > tl[j].t.ways) v.pop_back();
    }
  }
  int lookup(std::size_t i, std::uint64_t line, bool dirty) {  // 0 miss, 1 hit, 2 first use of a prefetched line
    auto& v = set_of(i, line);
    auto it = find(v, line);
    if (it == v.end()) return 0;
    Line x = *it;
    const int r = x.prefetched ? 2 : 1;
    x.prefetched = false, x.dirty = x.dirty || dirty;
    v.erase(it), v.insert(v.begin(), x);
    return r;
  }
  void insert(std::size_t i, std::uint64_t line, bool dirty, bool prefetched) {
    auto& v = set_of(i, line);
    Line victim{0, false, false};
    bool evict = false;
    if (v.size() == c[i].l.ways) victim = v.back(), v.pop_back(), evict = true;
    v.insert(v.begin(), Line{line, dirty, prefetched});
    if (evict) evicted(i, victim.line, victim.dirty);
  }
  void evicted(std::size_t i, std::uint64_t line, bool dirty) {
    const std::uint64_t addr = line << c[i].shift, bytes = std::uint64_t(1) << c[i].shift;
    if (c[i].l.inclusive)
      for (std::size_t j = 0; j < i; ++j)
        for (std::uint64_t a = addr & ~((1ull << c[j].shift) - 1); a < addr + bytes; a += 1ull << c[j].shift) {
          auto& v = set_of(j, a >> c[j].shift);
          auto it = find(v, a >> c[j].shift);
          if (it != v.end()) dirty = dirty || it->dirty, v.erase(it);
        }
    if (!dirty) return;
    ++st.levels[i].writebacks;
    if (!h.writeback_to_next_level) return;
    if (i + 1 == c.size()) { ++st.memory_writes; return; }
    const std::uint64_t nl = addr >> c[i + 1].shift;
    if (!lookup(i + 1, nl, true)) insert(i + 1, nl, true, false);
  }
  void fetch(std::size_t i, std::uint64_t addr, bool w, bool pf) {
    if (i == c.size()) {
      ++st.memory_reads;
      if (!pf) ++st.served[i];
      return;
    }
    const std::uint64_t line = addr >> c[i].shift;
    if (const int hit = lookup(i, line, w)) {
      ++st.levels[i].hits;
      if (!pf) ++st.served[i];
      if (hit == 2 && !pf) prefetch(i, line);
      return;
    }
    ++st.levels[i].misses;
    fetch(i + 1, addr, false, pf);
    insert(i, line, w, false);
    if (c[i].l.prefetcher != Prefetch::None && !pf) prefetch(i, line);
  }
  void prefetch(std::size_t i, std::uint64_t line) {
    Lvl& l = c[i];
    std::uint64_t target = ~0ull;
    if (l.l.prefetcher == Prefetch::NextLine) {
      target = line + 1;
    } else {
      const std::int64_t d = l.last_miss == ~0ull ? 0 : std::int64_t(line - l.last_miss);
      if (d != 0 && d == l.last_stride) target = line + std::uint64_t(d);
      l.last_stride = d, l.last_miss = line;
    }
    if (target == ~0ull) return;
    auto& v = set_of(i, target);
    if (find(v, target) != v.end()) return;
    ++st.levels[i].prefetches;
    fetch(i + 1, target << l.shift, false, true);
    insert(i, target, false, true);
  }
};

bool same_stats(const Stats& a, const Stats& b) {
  bool same = a.accesses == b.accesses && a.memory_reads == b.memory_reads && a.memory_writes == b.memory_writes &&
              a.page_walks == b.page_walks && a.served == b.served && a.levels.size() == b.levels.size() &&
              a.tlbs.size() == b.tlbs.size();
  for (std::size_t k = 0; same && k < a.levels.size(); ++k)
    same = a.levels[k].hits == b.levels[k].hits && a.levels[k].misses == b.levels[k].misses &&
           a.levels[k].writebacks == b.levels[k].writebacks && a.levels[k].prefetches == b.levels[k].prefetches;
  for (std::size_t k = 0; same && k < a.tlbs.size(); ++k) same = a.tlbs[k].hits == b.tlbs[k].hits && a.tlbs[k].misses == b.tlbs[k].misses;
  return same;
}

void lru_against_reference() {
  auto lv = [](std::uint64_t sets, std::uint32_t ways, std::uint32_t line, Prefetch p, bool incl) {
    Level l = level(sets * ways * line, ways, Policy::LRU, line);
    l.prefetcher = p, l.inclusive = incl;
    return l;
  };
  const Prefetch N = Prefetch::None, NL = Prefetch::NextLine, S = Prefetch::Stride;
  std::vector<Hierarchy> hs(6);
  hs[0].levels = {lv(64, 12, 64, NL, false), lv(128, 17, 64, S, true), lv(256, 38, 64, NL, true)};
  hs[0].tlbs = {Tlb{"T1", 16, 4, 4096, 1.0}, Tlb{"T2", 64, 64, 4096, 1.0}};
  hs[1].levels = {lv(32, 1, 64, N, false), lv(64, 3, 64, NL, false), lv(64, 64, 64, S, true)};
  hs[1].writeback_to_next_level = false;
  hs[2].levels = {lv(16, 2, 64, S, false), lv(64, 16, 64, NL, true), lv(32, 300, 64, N, true)};
  hs[2].tlbs = {Tlb{"T1", 8, 2, 4096, 1.0}};
  hs[3].levels = {lv(8, 16, 32, NL, false), lv(64, 38, 64, N, true), lv(64, 12, 128, NL, true)};  // mixed line sizes
  hs[3].writeback_to_next_level = false;
  hs[4].levels = {lv(4, 3, 64, NL, false), lv(16, 17, 64, NL, false), lv(8192, 17, 64, S, true)};  // narrow L3
  hs[5].levels = {lv(64, 12, 64, NL, false), lv(2048, 16, 64, NL, false), lv(8192, 38, 64, NL, true), lv(1, 2, 4096, N, true)};
  hs[5].tlbs = {Tlb{"T1", 64, 4, 4096, 1.0}};
  for (std::size_t hi = 0; hi < hs.size(); ++hi)
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const Hierarchy& h = hs[hi];
      RefLru ref(h);
      Simulator narrow(h), wide(h, false);
      harness::Rng rng(100 * hi + seed);
      const std::uint64_t base = std::uint64_t(1) << 40;
      const int n = hi == 2 ? 60000 : 120000;
      std::uint64_t cursor = 0;
      std::int64_t stride = 64;
      for (int i = 0; i < n; ++i) {
        std::uint64_t addr;
        const int phase = (i / 5000) % 3;  // random, strided, then mixed
        const bool strided = phase == 1 || (phase == 2 && rng.below(2) == 0);
        if (strided) {
          if (rng.below(2000) == 0) stride = (std::int64_t(rng.below(9)) - 4) * 64 + std::int64_t(rng.below(2)) * 8;
          cursor = (cursor + std::uint64_t(stride)) & ((1u << 24) - 1);
          addr = base + cursor;
        } else {
          const std::uint64_t span = rng.below(3) == 0 ? (1u << 24) : rng.below(2) ? (1u << 16) : (1u << 12);
          addr = base + rng.below(span);
        }
        const bool w = rng.below(3) == 0;
        ref.access(addr, w), narrow.access(addr, w), wide.access(addr, w);
      }
      CHECK_MSG(same_stats(narrow.stats(), ref.st), "hierarchy " << hi << " seed " << seed << ": 32-bit levels differ from the reference LRU");
      CHECK_MSG(same_stats(wide.stats(), ref.st), "hierarchy " << hi << " seed " << seed << ": 64-bit levels differ from the reference LRU");
    }
}

std::string parse_error(const std::string& text) {
  try {
    parse_hierarchy(nlohmann::json::parse(text));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

void config_errors() {
  auto bad = [](const std::string& level, const std::string& key) {
    const std::string err = parse_error(R"({"levels":[{"size_bytes":32768,"ways":8},)" + level + "]}");
    CHECK_MSG(err.find(key) != std::string::npos && err.find('\n') == std::string::npos,
              "expected '" << key << "' in: " << err);
  };
  bad(R"({"size_bytes":1000,"line_bytes":64,"ways":8})", "levels[1].size_bytes");
  bad(R"({"size_bytes":65536,"ways":0})", "levels[1].ways");
  bad(R"({"size_bytes":65536,"ways":4,"policy":"fifo"})", "levels[1].policy");
  bad(R"({"size_bytes":65536,"ways":4,"assoc":4})", "levels[1].assoc");
  bad(R"({"size_bytes":65536,"ways":4,"line_bytes":48})", "levels[1].line_bytes");
  bad(R"({"size_bytes":196608,"ways":4})", "levels[1].size_bytes");  // 768 sets
  bad(R"({"size_bytes":65536,"ways":4,"prefetcher":"magic"})", "levels[1].prefetcher");
  bad(R"({"size_bytes":65536,"ways":-4})", "levels[1].ways");
  CHECK(parse_error(R"({"levels":[{"ways":8}],"bogus":1})").find("bogus") != std::string::npos);
  CHECK(parse_error(R"({"levels":[{"ways":8}],"tlbs":[{"entries":48,"ways":0}]})").find("tlbs[0].ways") != std::string::npos);
  CHECK(parse_error(R"({"levels":[{"ways":8}]})").empty());
  CHECK(parse_error(R"({"levels":[{"ways":8},{"size_bytes":65536,"inclusive":true,"prefetcher":"stride"}],"writeback_to_next_level":false})").empty());
  CHECK(parse_error(R"({"levels":[{"ways":8,"inclusive":1}]})").find("levels[0].inclusive") != std::string::npos);
  for (const Preset& p : presets()) CHECK_MSG(parse_error(p.json).empty(), p.name << ": " << parse_error(p.json));
  Hierarchy h = one(level(32768, 0));
  CHECK(validate(h).find("levels[0].ways") == 0);
  // Addresses are x86-64's 48 bits (the narrow levels' 32-bit tags rest on it): one beyond is refused.
  Simulator sim(preset("gpu-host"));
  bool refused = false;
  try {
    sim.access(std::uint64_t(1) << 48, false);
  } catch (const std::out_of_range&) {
    refused = true;
  }
  CHECK(refused && sim.stats().accesses == 0);
}

// Levels kept in 32-bit tags count exactly as the same levels in 64-bit entries: every preset, and
// a hierarchy whose narrow L2 and L3 write back, back-invalidate and prefetch (the victims' lines
// are rebuilt from tag and set), over addresses spread across the 48 bits, reads and writes.
void narrow_tags_exact() {
  std::vector<Hierarchy> hs;
  for (const Preset& p : presets()) hs.push_back(preset(p.name));
  Hierarchy h = one(level(32768, 8));
  Level l2 = level(std::uint64_t(1) << 22, 8), l3 = level(std::uint64_t(1) << 24, 16);  // 8192 and 16384 sets: narrow
  l2.prefetcher = Prefetch::Stride, l3.inclusive = true, l3.prefetcher = Prefetch::NextLine;
  h.levels.push_back(l2), h.levels.push_back(l3);
  h.name = "narrow L2 and L3";
  hs.push_back(h);
  for (const Hierarchy& hh : hs) {
    Simulator narrow(hh), wide(hh, false);
    harness::Rng rng(11);
    for (int i = 0; i < 300000; ++i) {
      const std::uint64_t region = std::uint64_t(rng.below(16)) << 43;
      const std::uint64_t addr = region + (i % 3 == 0 ? std::uint64_t(i) * 64 : rng.below(1u << 26) * 8);
      const bool write = rng.below(3) == 0;
      narrow.access(addr, write), wide.access(addr, write);
    }
    const Stats &a = narrow.stats(), &b = wide.stats();
    bool same = a.memory_reads == b.memory_reads && a.memory_writes == b.memory_writes && a.page_walks == b.page_walks && a.served == b.served;
    for (std::size_t k = 0; k < a.levels.size(); ++k)
      same = same && a.levels[k].hits == b.levels[k].hits && a.levels[k].misses == b.levels[k].misses &&
             a.levels[k].writebacks == b.levels[k].writebacks && a.levels[k].prefetches == b.levels[k].prefetches;
    CHECK_MSG(same, hh.name << ": the narrow levels count differently from the wide ones");
  }
}

// Multireduce-shaped stream on a 2-level hierarchy (the thesis's T7300 without TLBs): one
// sequential label read and a random bucket read-modify-write per input.
void throughput() {
  Hierarchy h = preset("core2-t7300");
  h.tlbs.clear();
  for (std::uint32_t m : {1u << 12, 1u << 20, 1u << 24}) {
    const std::int64_t n = 1 << 22;
    const auto lab = harness::labels(n, m, "uniform", 0, 5);
    Simulator sim(h);
    const std::uint64_t labels_base = 1ull << 40;
    const auto t0 = std::chrono::steady_clock::now();
    for (std::int64_t i = 0; i < n; ++i) {
      sim.access(labels_base + 4 * std::uint64_t(i), false);
      sim.access(4ull * lab[std::size_t(i)], false);
      sim.access(4ull * lab[std::size_t(i)], true);
    }
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("cachesim throughput: m=2^%d, 2 levels: %.1f M accesses/s (L1 miss %.3f, L2 miss %.3f)\n",
                int(detail::log2u(m)), 3.0 * n / s / 1e6,
                double(sim.stats().levels[0].misses) / double(3 * n),
                double(sim.stats().levels[1].misses) / double(sim.stats().levels[0].misses));
  }
}


// The streams make exactly the algorithms' accesses, every access is served by one level, and the
// sorted stream's final pass reads the labels in the order the real partial sort leaves them.
void streams() {
  const std::int64_t n = 5000;
  for (std::uint32_t m : {1u, 77u, 4096u, 100000u}) {
    const auto lab = harness::labels(n, m, "uniform", 1.0, 7 + m);
    for (int bits : {0, 1, 3, 8}) {
      Simulator sim(preset("core2-t7300"));
      std::vector<std::uint32_t> sorted;
      multireduce_sorted_stream(lab.data(), n, m, bits, sorted, [&](std::uint64_t a, bool w) { sim.access(a, w); });
      const int b = lp::cpu::effective_sort_bits(m, bits);
      const std::uint64_t d = std::uint64_t(1) << b;
      const std::uint64_t want = m + 3 * std::uint64_t(n) + (b ? (d + 1) + 2 * std::uint64_t(n) + d + 5 * std::uint64_t(n) : 0);
      CHECK_MSG(sim.stats().accesses == want, "m=" << m << " bits=" << bits << ": " << sim.stats().accesses << " accesses, want " << want);
      std::uint64_t served = 0;
      for (auto x : sim.stats().served) served += x;
      CHECK_MSG(served == sim.stats().accesses, "served " << served << " of " << sim.stats().accesses);
      if (b) {
        lp::cpu::SortScratch<std::int32_t> sc;
        lp::cpu::partial_sort_by_top_bits<std::int32_t>(lab.data(), nullptr, n, m, bits, false, sc);
        CHECK_MSG(sorted == sc.labels, "m=" << m << " bits=" << bits << ": sorted stream differs from the partial sort");
      }
    }
  }
}

// Calibration inverts the model: probe times made by known prices (latency curves that
// rise inside a level, overlaps, a walk) from the probes' own counts give those prices back,
// exactly without noise and within a few percent with +-5% noise on every probe; the fit reports
// its residual.
Prices truth_prices() {
  Prices t = prices_of(preset("core2-t7300"));
  t.latency = {Curve::constant(1.3), Curve{{17, 21}, {5.0, 9.0}}, Curve{{23, 28}, {90.0, 130.0}}};
  t.mlp = {Curve::constant(8.0), Curve::constant(5.0), Curve{{23, 28}, {10.0, 14.0}}};
  t.walk = {Curve::constant(1.0), Curve{{22, 28}, {15.0, 30.0}}};  // dearer as the page tables leave the caches
  t.walk_mlp = Curve{{22, 28}, {2.0, 4.0}};
  return t;
}
ProbeSet synthetic_probes(const Prices& truth, double noise, std::uint64_t seed) {
  ProbeSet ps;
  harness::Rng rng(seed);
  auto jitter = [&] { return 1 + noise * (2 * double(rng.below(1u << 20)) / double(1u << 20) - 1); };
  for (int lg = 14; lg <= 28; ++lg) {  // 16 KiB .. 256 MiB: L1 to 32 KiB, L2 to 4 MiB, then memory
    const double ws = std::exp2(lg);
    const int level = lg <= 15 ? 0 : lg <= 22 ? 1 : 2;
    for (bool small : {false, true}) {
      if (small && lg < 22) continue;
      Counts c, g;  // a chase step and an update (a label read, then the table's line)
      c.working_set_bytes = g.working_set_bytes = ws;
      c.served = {0.02, 0.02, 0.02}, g.served = {1.0, 0.005, 0.005};
      c.served[level] += 0.94, g.served[level] += 0.99;
      c.tlb_miss = {small ? 0.9 : 0.001, small ? 0.3 + 0.02 * lg : 0.0005};
      g.tlb_miss = {small ? 0.8 : 0.001, small ? 0.2 + 0.02 * lg : 0.0005};
      c.accesses = 1, g.accesses = 2;
      Probe pc{c, predict(c, truth).sequential_ns * jitter(), small}, pg{g, predict(g, truth).latency_bound_ns * jitter(), small};
      ps.chase.push_back(pc), ps.update.push_back(pg);
    }
  }
  ps.bytes_per_ns = {10, 15};
  return ps;
}
void calibration_recovers_prices() {
  const Prices truth = truth_prices();
  // The probes' shape: two cache levels and memory, every latency probed, every overlap calibrated.
  // (This once took the dev-vm preset, whose third cache level the probes' counts do not have:
  // calibrate read past them, and passed on whatever the heap held there.)
  Prices unknown = truth;
  for (Curve& c : unknown.latency) c = Curve::constant(kProbe);
  for (Curve& c : unknown.mlp) c = Curve::constant(0);
  unknown.walk = {Curve::constant(1.0), Curve::constant(kProbe)};
  unknown.walk_mlp = Curve::constant(0);
  auto near = [](double got, double want, double tol) { return std::abs(got / want - 1) <= tol; };
  for (double noise : {0.0, 0.05}) {
    for (std::uint64_t seed : {1, 2, 3}) {
      const Calibrated c = calibrate(unknown, synthetic_probes(truth, noise, seed));
      const double tol = noise == 0 ? 1e-6 : 0.15;
      for (double lg : {14.0, 19.0, 21.0, 24.0, 27.0}) {
        const double ws = std::exp2(lg);
        const std::size_t k = lg <= 15 ? 0 : lg <= 22 ? 1 : 2;
        CHECK_MSG(near(c.prices.latency[k].at(ws), truth.latency[k].at(ws), tol),
                  "noise " << noise << " level " << k << " latency at 2^" << lg << ": " << c.prices.latency[k].at(ws) << " want " << truth.latency[k].at(ws));
        CHECK_MSG(near(c.prices.mlp[k].at(ws), truth.mlp[k].at(ws), noise == 0 ? 1e-6 : 0.35),
                  "noise " << noise << " level " << k << " mlp at 2^" << lg << ": " << c.prices.mlp[k].at(ws) << " want " << truth.mlp[k].at(ws));
      }
      for (double lg : {22.0, 24.5, 28.0}) {  // the 4 KiB-page probes' range: the walk's curves come back
        const double ws = std::exp2(lg);
        CHECK_MSG(near(c.prices.walk[1].at(ws), truth.walk[1].at(ws), noise == 0 ? 1e-6 : 0.2),
                  "walk at 2^" << lg << ": " << c.prices.walk[1].at(ws) << " want " << truth.walk[1].at(ws));
        CHECK_MSG(near(c.prices.walk_mlp.at(ws), truth.walk_mlp.at(ws), noise == 0 ? 1e-6 : 0.35),
                  "walk mlp at 2^" << lg << ": " << c.prices.walk_mlp.at(ws) << " want " << truth.walk_mlp.at(ws));
      }
      CHECK(c.prices.walk[0].at(1 << 24) == 1.0);  // a given price stays
      // The residuals say how far the probes are from the model: none without noise, and at most
      // about the noise with it.
      CHECK_MSG(c.fit.chase_rms <= (noise == 0 ? 1e-9 : 2 * noise) && c.fit.update_rms <= (noise == 0 ? 1e-9 : 3 * noise),
                "noise " << noise << ": residuals " << c.fit.chase_rms << " " << c.fit.update_rms);
      CHECK(c.fit.chase_probes == 15 && c.fit.walk_probes == 7 && c.fit.update_probes == 22);
      CHECK(c.prices.bandwidth(2) == 15 && c.prices.bandwidth(9) == 15 && c.prices.bandwidth(1) == 10);
    }
  }
  // One probe off by 2x (a noisy VM) moves the overlap curve by at most a step of its trend (the
  // running median), where a curve through every point would halve it there.
  {
    ProbeSet ps = synthetic_probes(truth, 0, 1);
    for (Probe& q : ps.update)
      if (!q.small_pages && q.counts.working_set_bytes == std::exp2(26)) q.ns *= 2;
    const Calibrated c = calibrate(unknown, ps);
    for (double lg : {24.0, 25.0, 26.0, 27.0})
      CHECK_MSG(near(c.prices.mlp[2].at(std::exp2(lg)), truth.mlp[2].at(std::exp2(lg)), 0.1),
                "outlier: memory mlp at 2^" << lg << ": " << c.prices.mlp[2].at(std::exp2(lg)));
    CHECK_MSG(c.fit.update_max > 0.3, "the outlier shows in the residual: " << c.fit.update_max);
  }
  // A level stated as numbers keeps them: the constant curves of a preset.
  const Prices given = prices_of(preset("core2-t7300"));
  CHECK(given.latency[2].at(1e9) == 111.0 && given.mlp[2].at(64) == 1.76);
  // Phases add: the overlap model takes each phase's own bound.
  Counts a, b;
  a.served = {1, 0, 0}, b.served = {0, 0, 1};
  a.tlb_miss = b.tlb_miss = {0, 0};
  a.memory_lines = 1, b.memory_lines = 0;
  Prices fl = given;
  fl.bytes_per_ns = {64.0 / 100};  // a line per 100 ns
  const Prediction sum = predict(std::vector<Counts>{a, b}, fl);
  CHECK_MSG(std::abs(sum.overlap_ns - (100 + 111 / 1.76)) < 1e-9, "phases: " << sum.overlap_ns);
  // A sort pass the host probed at its sort bits costs what the probe measured; other bits, other
  // phases, and no probe price from the counts.
  {
    Prices pr = fl;
    pr.sort_count_ns = {0, 0.4, 0.5}, pr.sort_scatter_ns = {0, 2.5, 3.5};
    Counts sc = a, cn = a, rd = a;
    sc.phase = "scatter", cn.phase = "count", rd.phase = "reduce";
    sc.sort_bits = cn.sort_bits = rd.sort_bits = 2;
    CHECK(predict(sc, pr).overlap_ns == 3.5 && predict(cn, pr).overlap_ns == 0.5);
    CHECK(predict(rd, pr).overlap_ns == predict(a, fl).overlap_ns);
    sc.sort_bits = 3;  // beyond the probes
    CHECK(predict(sc, pr).overlap_ns == predict(a, fl).overlap_ns);
    CHECK(predict(sc, pr).sequential_ns == predict(a, fl).sequential_ns);
  }
  CHECK(needs_calibration(preset("dev-vm")));
  CHECK(!needs_calibration(preset("core2-t7300")));
  // "probe" and "calibrate" are the only words a timing field takes.
  CHECK(parse_error(R"({"levels": [{"size_bytes": 32768, "ways": 8, "latency_ns": "measure"}]})").find("latency_ns") != std::string::npos);
}
}  // namespace

int main() {
  uniform_hit_rate(Policy::LRU);
  uniform_hit_rate(Policy::TreePLRU);
  uniform_hit_rate(Policy::Random);
  compulsory_only();
  lru_monotone();
  writebacks();
  inclusive();
  prefetchers_and_tlb();
  wide_lru_exact();
  lru_against_reference();
  narrow_tags_exact();
  config_errors();
  streams();
  calibration_recovers_prices();
  throughput();
  return test_summary("test_cachesim");
}
