// Data-cache hierarchy simulator for the thesis's §2.4 cache simulator (Eilers 2014, ch. 2.3-2.4).
//
// Model, stated once so every caller knows what is and is not simulated:
//  - Levels are searched L1 first. A demand miss at level i reads the whole line from level i+1
//    (or memory) and fills it into level i: write-back with write-allocate is the only write
//    policy (a store marks the line dirty; the dirty line is written out only when evicted).
//  - A dirty victim is counted as a write-back of the level that evicts it and, unless
//    Hierarchy::writeback_to_next_level is false, written into level i+1 (marking it dirty there,
//    allocating it if absent). false reproduces Cachegrind, which models no write-back traffic.
//  - An inclusive level back-invalidates the inner copies of every line it evicts (their dirty
//    data travels with the victim).
//  - A prefetcher watches the demand-miss stream of the level it is attached to and fills lines
//    into that level through the outer levels; prefetch fills never trigger further prefetches.
//    The first demand hit on a prefetched line counts as a miss for training (tagged prefetching):
//    otherwise a successful prefetch would hide the very miss that keeps the stream going.
//  - TLB levels are looked up in order for every access; a miss in all of them is a page walk.
//  - Timing fields (latency_ns, walk_ns, memory_latency_ns, mlp) are carried for the timing models
//    of `bench cachesim` (timing.hpp); the simulator itself only counts events, among them which
//    level served each core access (Stats::served), the quantity the timing models price.
//  - A latency given as "probe" (kProbe) and an mlp given as "calibrate" (0) are measured on the
//    host by `bench cachesim` before any prediction.
// Speed matters (the study replays 2^26-access streams for many m), so the hot path uses flat
// arrays, shift/mask set indexing and no allocation; LRU sets are kept in move-to-front order
// (the lines in use sit at the first ways, found at once), searched four ways per SSE2 step past
// the first four, and an access whose page and line are among the first two of their sets takes a
// short path (near_hit). We measured the alternatives: per-way recency stamps and per-set
// rank bytes both read or rewrite every way on every hit and were slower; a queue that prefetched
// the big levels' sets ahead (batched replay) cost 40% while the buckets fit in L1 and gained
// nothing reliable beyond; fixed tag slots with a 64-bit order word per set (up to 16 ways) or
// rank bytes (wider) kept every count but were about 15% slower while the buckets fit in L1 (the
// order word is read before the tags) and no faster beyond (results/dev-vm/
// sim_speed_slots_old_new.txt); prefetching, at a miss, the outer levels' sets and the dirty
// victim's set was slower at m = 2^20-2^22. Beyond the L2 a replay waits on the host's own misses
// on the largest tag array (perf at m = 2^20: 70% of the time on the GPU host L3's tag loads, a
// 20 MiB array read at random three to four times an input), not on moving entries. A level whose
// tags fit 29 bits keeps 32-bit entries, and the tag arrays ask for 2 MiB pages (see Set::narrow
// and HugePageAllocator), which halved those misses' cost.
#pragma once
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#if defined(__linux__)
#include <sys/mman.h>
#endif
#include <cstdlib>
#include <new>

// The two widths' bodies are inlined into their dispatch, so that a level of either keeps the one
// call the single width had.
#if defined(__GNUC__)
#define LP_SIM_INLINE __attribute__((always_inline)) inline
#else
#define LP_SIM_INLINE inline
#endif

namespace lp::cachesim {

enum class Policy { LRU, TreePLRU, Random };
enum class Prefetch { None, NextLine, Stride };

inline const char* policy_name(Policy p) {
  return p == Policy::LRU ? "lru" : p == Policy::TreePLRU ? "tree_plru" : "random";
}
inline const char* prefetch_name(Prefetch p) {
  return p == Prefetch::None ? "none" : p == Prefetch::NextLine ? "next_line" : "stride";
}

struct Level {
  std::string name = "L1";
  std::uint64_t size_bytes = 32768;
  std::uint32_t line_bytes = 64;
  std::uint32_t ways = 8;
  Policy policy = Policy::LRU;
  // The only write policy simulated; kept as a field so a config states it explicitly and a
  // config asking for anything else (write-through, no-allocate) is rejected, not ignored.
  bool write_back_write_allocate = true;
  bool inclusive = false;  // of all inner levels
  Prefetch prefetcher = Prefetch::None;
  double latency_ns = 1.0;  // kProbe: measured by the pointer-chase probe
  double mlp = 0;           // misses served here that overlap (memory-level parallelism); 0 = calibrate
};

constexpr double kProbe = -1.0;

struct Tlb {
  std::string name = "DTLB";
  std::uint32_t entries = 64;
  std::uint32_t ways = 4;
  std::uint64_t page_bytes = 4096;
  double walk_ns = 0.0;  // cost of a miss in this level that the next level (or the walk) serves; kProbe: measured
};

struct Hierarchy {
  std::string name;           // the machine, for reports
  std::vector<Level> levels;  // L1 first
  std::vector<Tlb> tlbs;      // first level first
  double memory_latency_ns = 100.0;  // kProbe: measured
  double memory_mlp = 0;             // 0 = calibrate
  double walk_mlp = 0;               // page walks in flight; 0 = calibrate
  bool writeback_to_next_level = true;
  std::uint64_t seed = 1;  // for Policy::Random
};

namespace detail {
#if defined(__SSE2__)
// The first way whose entry, flags masked off, equals `want` (a tag with its two flag bits clear);
// -1 if none.
inline int find_way(const std::uint64_t* e, std::uint32_t ways, std::uint64_t want) {
  // Move-to-front keeps the lines in use at the first ways: look there one by one first.
  const std::uint32_t near = ways < 4 ? ways : 4;
  for (std::uint32_t k = 0; k < near; ++k)
    if ((e[k] & ~std::uint64_t(3)) == want) return int(k);
  const __m128i w = _mm_set1_epi64x(static_cast<long long>(want)), m = _mm_set1_epi64x(~3ll);
  std::uint32_t k = near;
  for (; k + 4 <= ways; k += 4) {
    __m128i a = _mm_cmpeq_epi32(_mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(e + k)), m), w);
    __m128i b = _mm_cmpeq_epi32(_mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(e + k + 2)), m), w);
    a = _mm_and_si128(a, _mm_shuffle_epi32(a, 0xB1));  // both 32-bit halves equal
    b = _mm_and_si128(b, _mm_shuffle_epi32(b, 0xB1));
    const int bits = _mm_movemask_pd(_mm_castsi128_pd(a)) | (_mm_movemask_pd(_mm_castsi128_pd(b)) << 2);
    if (bits) return int(k) + __builtin_ctz(unsigned(bits));
  }
  for (; k < ways; ++k)
    if ((e[k] & ~std::uint64_t(3)) == want) return int(k);
  return -1;
}
// The same over 32-bit entries (a level whose tags fit: half the bytes a set takes, four ways a
// compare).
inline int find_way(const std::uint32_t* e, std::uint32_t ways, std::uint32_t want) {
  const std::uint32_t near = ways < 4 ? ways : 4;
  for (std::uint32_t k = 0; k < near; ++k)
    if ((e[k] & ~std::uint32_t(3)) == want) return int(k);
  const __m128i w = _mm_set1_epi32(static_cast<int>(want)), m = _mm_set1_epi32(~3);
  std::uint32_t k = near;
  for (; k + 4 <= ways; k += 4) {
    const __m128i a = _mm_cmpeq_epi32(_mm_and_si128(_mm_loadu_si128(reinterpret_cast<const __m128i*>(e + k)), m), w);
    if (const int bits = _mm_movemask_ps(_mm_castsi128_ps(a))) return int(k) + __builtin_ctz(unsigned(bits));
  }
  for (; k < ways; ++k)
    if ((e[k] & ~std::uint32_t(3)) == want) return int(k);
  return -1;
}
#else
template <class E>
inline int find_way(const E* e, std::uint32_t ways, E want) {
  for (std::uint32_t k = 0; k < ways; ++k)
    if ((e[k] & ~E(3)) == want) return int(k);
  return -1;
}
#endif
// Moves e[w] to e[0], shifting e[0..w) one way back: a short inline copy for the common near-front
// hit, memmove (vectorised) for a deep one.
template <class E>
inline void to_front(E* e, std::uint32_t w, E v) {
  if (w < 16) {
    for (std::uint32_t k = w; k > 0; --k) e[k] = e[k - 1];
  } else {
    std::memmove(e + 1, e, std::size_t(w) * sizeof(E));
  }
  e[0] = v;
}
inline bool pow2(std::uint64_t x) { return x && !(x & (x - 1)); }

// The simulated levels' tag arrays, on 2 MiB pages where the kernel gives them (transparent huge
// pages on request): a large level's array (the GPU host's L3: 20 MiB) is read at random, one set
// an access, and on 4 KiB pages nearly every such read also missed the host's own TLB.
template <class T>
struct HugePageAllocator {
  using value_type = T;
  static constexpr std::size_t kHuge = std::size_t(2) << 20;
  HugePageAllocator() = default;
  template <class U>
  HugePageAllocator(const HugePageAllocator<U>&) {}
  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    if (bytes < kHuge) return std::allocator<T>().allocate(n);
    const std::size_t whole = (bytes + kHuge - 1) / kHuge * kHuge;
    void* p = nullptr;
    if (posix_memalign(&p, kHuge, whole) != 0) throw std::bad_alloc();
#if defined(__linux__) && defined(MADV_HUGEPAGE)
    madvise(p, whole, MADV_HUGEPAGE);  // a hint: 4 KiB pages if refused
#endif
    return static_cast<T*>(p);
  }
  void deallocate(T* p, std::size_t n) {
    if (n * sizeof(T) < kHuge) return std::allocator<T>().deallocate(p, n);
    std::free(p);
  }
  template <class U>
  bool operator==(const HugePageAllocator<U>&) const { return true; }
  template <class U>
  bool operator!=(const HugePageAllocator<U>&) const { return false; }
};
template <class T>
using TagArray = std::vector<T, HugePageAllocator<T>>;
inline unsigned log2u(std::uint64_t x) { unsigned r = 0; while (x >>= 1) ++r; return r; }
}  // namespace detail

// "" when the hierarchy can be simulated, else one line naming the offending key.
inline std::string validate(const Hierarchy& h) {
  using detail::pow2;
  if (h.levels.empty()) return "levels: at least one cache level is required";
  for (std::size_t i = 0; i < h.levels.size(); ++i) {
    const Level& l = h.levels[i];
    const std::string k = "levels[" + std::to_string(i) + "].";
    if (l.ways == 0) return k + "ways: must be >= 1";
    if (!pow2(l.line_bytes)) return k + "line_bytes: " + std::to_string(l.line_bytes) + " is not a power of two";
    const std::uint64_t way_bytes = std::uint64_t(l.line_bytes) * l.ways;
    if (l.size_bytes == 0 || l.size_bytes % way_bytes)
      return k + "size_bytes: " + std::to_string(l.size_bytes) + " is not a multiple of line_bytes x ways (" +
             std::to_string(way_bytes) + ")";
    const std::uint64_t sets = l.size_bytes / way_bytes;
    if (!pow2(sets)) return k + "size_bytes: gives " + std::to_string(sets) + " sets, not a power of two";
    if (l.policy == Policy::TreePLRU && (!pow2(l.ways) || l.ways > 64))
      return k + "ways: tree_plru needs a power of two <= 64, got " + std::to_string(l.ways);
    if (!l.write_back_write_allocate) return k + "write_back_write_allocate: only write-back write-allocate is simulated";
    if (!(l.latency_ns >= 0 || l.latency_ns == kProbe)) return k + "latency_ns: must be >= 0 or \"probe\"";
    if (!(l.mlp >= 0)) return k + "mlp: must be >= 0 (0 = calibrate)";
  }
  for (std::size_t i = 0; i < h.tlbs.size(); ++i) {
    const Tlb& t = h.tlbs[i];
    const std::string k = "tlbs[" + std::to_string(i) + "].";
    if (t.ways == 0) return k + "ways: must be >= 1";
    if (t.entries == 0 || t.entries % t.ways) return k + "entries: " + std::to_string(t.entries) + " is not a multiple of ways";
    if (!pow2(t.entries / t.ways)) return k + "entries: gives " + std::to_string(t.entries / t.ways) + " sets, not a power of two";
    if (!pow2(t.page_bytes)) return k + "page_bytes: " + std::to_string(t.page_bytes) + " is not a power of two";
    if (!(t.walk_ns >= 0 || t.walk_ns == kProbe)) return k + "walk_ns: must be >= 0 or \"probe\"";
  }
  if (!(h.memory_latency_ns >= 0 || h.memory_latency_ns == kProbe)) return "memory_latency_ns: must be >= 0 or \"probe\"";
  if (!(h.memory_mlp >= 0)) return "memory_mlp: must be >= 0 (0 = calibrate)";
  if (!(h.walk_mlp >= 0)) return "walk_mlp: must be >= 0 (0 = calibrate)";
  return "";
}

// ---- JSON --------------------------------------------------------------------------------------
// Every error is one line naming the key; unknown keys are rejected so a typo ("assoc" for "ways")
// cannot silently fall back to a default.
struct ConfigError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

namespace detail {
inline void reject_unknown(const nlohmann::json& j, const std::string& where, std::initializer_list<const char*> known) {
  if (!j.is_object()) throw ConfigError(where + ": must be an object");
  for (auto it = j.begin(); it != j.end(); ++it) {
    bool ok = false;
    for (const char* k : known) ok = ok || it.key() == k;
    if (!ok) throw ConfigError(where + (where.empty() ? "" : ".") + it.key() + ": unknown key");
  }
}
template <class T>
void get(const nlohmann::json& j, const char* key, const std::string& where, T& out) {
  auto it = j.find(key);
  if (it == j.end()) return;
  try {
    if constexpr (std::is_unsigned_v<T> && !std::is_same_v<T, bool>) {  // no silent wrap of -4
      if (!it->is_number_unsigned()) throw ConfigError("");
    }
    out = it->get<T>();
  } catch (const std::exception&) {
    throw ConfigError(where + key + ": wrong type (" + std::string(it->type_name()) + ")");
  }
}
// A timing field: a number, or the word that asks for a measurement ("probe" -> kProbe,
// "calibrate" -> 0).
inline void get_timing(const nlohmann::json& j, const char* key, const std::string& where, const char* word, double sentinel,
                       double& out) {
  auto it = j.find(key);
  if (it == j.end()) return;
  if (it->is_string()) {
    if (it->get<std::string>() != word) throw ConfigError(where + key + ": a number or \"" + word + "\", got '" + it->get<std::string>() + "'");
    out = sentinel;
    return;
  }
  get(j, key, where, out);
}
}  // namespace detail

inline Policy parse_policy(const std::string& s, const std::string& key) {
  if (s == "lru") return Policy::LRU;
  if (s == "tree_plru" || s == "plru") return Policy::TreePLRU;
  if (s == "random") return Policy::Random;
  throw ConfigError(key + ": unknown policy '" + s + "' (lru, tree_plru, random)");
}
inline Prefetch parse_prefetch(const std::string& s, const std::string& key) {
  if (s == "none") return Prefetch::None;
  if (s == "next_line") return Prefetch::NextLine;
  if (s == "stride") return Prefetch::Stride;
  throw ConfigError(key + ": unknown prefetcher '" + s + "' (none, next_line, stride)");
}

// Parses and validates; throws ConfigError with one line naming the key.
inline Hierarchy parse_hierarchy(const nlohmann::json& j) {
  using detail::get;
  detail::reject_unknown(j, "", {"name", "levels", "tlbs", "memory_latency_ns", "memory_mlp", "walk_mlp", "writeback_to_next_level", "seed"});
  Hierarchy h;
  get(j, "name", "", h.name);
  detail::get_timing(j, "memory_latency_ns", "", "probe", kProbe, h.memory_latency_ns);
  detail::get_timing(j, "memory_mlp", "", "calibrate", 0, h.memory_mlp);
  detail::get_timing(j, "walk_mlp", "", "calibrate", 0, h.walk_mlp);
  get(j, "writeback_to_next_level", "", h.writeback_to_next_level);
  get(j, "seed", "", h.seed);
  if (!j.contains("levels") || !j["levels"].is_array()) throw ConfigError("levels: required array of cache levels");
  for (std::size_t i = 0; i < j["levels"].size(); ++i) {
    const auto& e = j["levels"][i];
    const std::string w = "levels[" + std::to_string(i) + "]";
    detail::reject_unknown(e, w, {"name", "size_bytes", "line_bytes", "ways", "policy", "write_policy", "inclusive",
                                  "prefetcher", "latency_ns", "mlp"});
    Level l;
    l.name = "L" + std::to_string(i + 1);
    const std::string p = w + ".";
    get(e, "name", p, l.name);
    get(e, "size_bytes", p, l.size_bytes);
    get(e, "line_bytes", p, l.line_bytes);
    get(e, "ways", p, l.ways);
    get(e, "inclusive", p, l.inclusive);
    detail::get_timing(e, "latency_ns", p, "probe", kProbe, l.latency_ns);
    detail::get_timing(e, "mlp", p, "calibrate", 0, l.mlp);
    std::string s;
    if (e.contains("policy")) { get(e, "policy", p, s); l.policy = parse_policy(s, p + "policy"); }
    if (e.contains("prefetcher")) { get(e, "prefetcher", p, s); l.prefetcher = parse_prefetch(s, p + "prefetcher"); }
    if (e.contains("write_policy")) {
      get(e, "write_policy", p, s);
      if (s != "write_back_write_allocate")
        throw ConfigError(p + "write_policy: '" + s + "' not simulated (only write_back_write_allocate)");
    }
    h.levels.push_back(l);
  }
  if (j.contains("tlbs")) {
    if (!j["tlbs"].is_array()) throw ConfigError("tlbs: must be an array");
    for (std::size_t i = 0; i < j["tlbs"].size(); ++i) {
      const auto& e = j["tlbs"][i];
      const std::string w = "tlbs[" + std::to_string(i) + "]";
      detail::reject_unknown(e, w, {"name", "entries", "ways", "page_bytes", "walk_ns"});
      Tlb t;
      t.name = "TLB" + std::to_string(i + 1);
      const std::string p = w + ".";
      get(e, "name", p, t.name);
      get(e, "entries", p, t.entries);
      get(e, "ways", p, t.ways);
      get(e, "page_bytes", p, t.page_bytes);
      detail::get_timing(e, "walk_ns", p, "probe", kProbe, t.walk_ns);
      h.tlbs.push_back(t);
    }
  }
  if (std::string err = validate(h); !err.empty()) throw ConfigError(err);
  return h;
}

// ---- simulation --------------------------------------------------------------------------------
struct LevelStats {
  std::string name;
  std::uint64_t hits = 0, misses = 0;  // demand accesses (core, inner-level fills, prefetch fills)
  std::uint64_t writebacks = 0;        // dirty lines this level evicted
  std::uint64_t prefetches = 0;        // fills issued by this level's prefetcher
};
struct TlbStats {
  std::string name;
  std::uint64_t hits = 0, misses = 0;
};
struct Stats {
  std::vector<LevelStats> levels;
  std::vector<TlbStats> tlbs;
  std::uint64_t accesses = 0, memory_reads = 0, memory_writes = 0, page_walks = 0;
  // served[i]: core accesses whose data level i held (served[levels] = memory), the count the
  // timing models price; prefetch fills are not core accesses and stay off it.
  std::vector<std::uint64_t> served;
};

class Simulator {
 public:
  // narrow_tags = false keeps every level in 64-bit entries: the same simulation, for the tests
  // that check the narrow levels against it.
  explicit Simulator(const Hierarchy& h, bool narrow_tags = true) : h_(h) {
    if (std::string err = validate(h); !err.empty()) throw ConfigError(err);
    for (std::size_t i = 0; i < h.levels.size(); ++i) {
      const Level& l = h.levels[i];
      Set s;
      s.ways = l.ways;
      s.line_shift = detail::log2u(l.line_bytes);
      s.set_mask = l.size_bytes / (std::uint64_t(l.line_bytes) * l.ways) - 1;
      s.set_bits = detail::log2u(s.set_mask + 1);
      s.policy = l.policy;
      s.inclusive = l.inclusive;
      s.prefetch = l.prefetcher;
      // A level whose tags (the address bits above its line and set bits) fit 29 bits keeps them
      // in 32-bit entries: a 38-way set of the GPU host's L3 then takes 152 bytes instead of 304,
      // and the simulator's own misses on it are what a large-m replay waits for.
      s.narrow = narrow_tags && kAddressBits - s.line_shift - s.set_bits <= 29;
      if (s.narrow)
        s.entry32.assign((s.set_mask + 1) * l.ways, kEmpty<std::uint32_t>);
      else
        s.entry.assign((s.set_mask + 1) * l.ways, kInvalid);
      if (l.policy == Policy::TreePLRU) s.plru.assign(s.set_mask + 1, 0);
      s.rng = h.seed * 0x9e3779b97f4a7c15ull + i + 1;
      c_.push_back(std::move(s));
      stats_.levels.push_back({l.name});
    }
    for (const Tlb& t : h.tlbs) {
      TlbState s;
      s.ways = t.ways;
      s.page_shift = detail::log2u(t.page_bytes);
      s.set_mask = t.entries / t.ways - 1;
      s.entry.assign(t.entries, kInvalid);
      t_.push_back(std::move(s));
      stats_.tlbs.push_back({t.name});
    }
    stats_.served.assign(h.levels.size() + 1, 0);
  }

  void access(std::uint64_t addr, bool is_write) {
    if (addr >> kAddressBits) throw std::out_of_range("cachesim: address " + std::to_string(addr) + " is beyond 48 bits");
    ++stats_.accesses;
    if (near_hit(addr, is_write)) return;
    if (!t_.empty()) translate(addr);
    fetch(0, addr, is_write, false);
  }

  const Stats& stats() const { return stats_; }
  const Hierarchy& hierarchy() const { return h_; }

 private:
  // An entry is (line << 2) | (prefetched, not yet used << 1) | dirty; an all-ones entry is an
  // empty way (no real line number reaches 2^62 - 1).
  static constexpr std::uint64_t kDirty = 1, kPrefetched = 2, kFlags = 3;
  static constexpr std::uint64_t kInvalid = ~std::uint64_t(0);
  // A narrow level's entry is (tag << 2) | flags, the tag being line >> set_bits (below 2^29, so
  // no entry or key reaches the all-ones empty way); addresses are x86-64's 48 bits.
  template <class E>
  static constexpr E kEmpty = E(~E(0));  // an empty way, either width (kInvalid for 64 bits)
  static constexpr unsigned kAddressBits = 48;

  // Makes `want` the first of e[0..ways) if it is one of the first two; false if not.
  static bool front_two(std::uint64_t* e, std::uint32_t ways, std::uint64_t want, std::uint64_t mask, std::uint64_t set) {
    if ((e[0] & mask) == want) return e[0] |= set, true;
    if (ways < 2 || (e[1] & mask) != want) return false;
    const std::uint64_t v = e[1] | set;
    e[1] = e[0];
    e[0] = v;
    return true;
  }
  // The common case without the general path: the page is one of the two most recent of its
  // first-level TLB set and the line one of the two most recent of its L1 set (two streams read
  // side by side share both), and not a prefetched line's first use (that trains the
  // prefetcher). The state and counts are exactly what translate() and fetch() would make.
  bool near_hit(std::uint64_t addr, bool is_write) {
    Set& c = c_[0];
    if (c.policy != Policy::LRU || c.narrow) return false;
    const std::uint64_t line = addr >> c.line_shift;
    std::uint64_t* e = &c.entry[(line & c.set_mask) * c.ways];
    const std::uint64_t want = line << 2;
    // Present among the first two and not prefetched-unused: then the TLB decides alone.
    if ((e[0] & ~kDirty) != want && (c.ways < 2 || (e[1] & ~kDirty) != want)) return false;
    if (!t_.empty()) {
      TlbState& t = t_[0];
      const std::uint64_t page = addr >> t.page_shift;
      if (!front_two(&t.entry[(page & t.set_mask) * t.ways], t.ways, page << 2, ~std::uint64_t(0), 0)) return false;
      ++stats_.tlbs[0].hits;
    }
    front_two(e, c.ways, want, ~kDirty, std::uint64_t(is_write));
    ++stats_.levels[0].hits;
    ++stats_.served[0];
    return true;
  }

  struct Set {  // one cache level: sets x ways entries, set-major
    std::uint32_t ways = 0, line_shift = 0, set_bits = 0;
    std::uint64_t set_mask = 0;
    Policy policy = Policy::LRU;
    bool inclusive = false, narrow = false;
    Prefetch prefetch = Prefetch::None;
    detail::TagArray<std::uint64_t> entry;    // LRU: each set ordered most recent first
    detail::TagArray<std::uint32_t> entry32;  // the same, narrow (32-bit tags)
    std::vector<std::uint64_t> plru;   // tree bits per set, heap-numbered from 1
    std::uint64_t rng = 1;
    std::uint64_t last_miss = kInvalid;  // stride prefetcher state
    std::int64_t last_stride = 0;
  };
  struct TlbState {
    std::uint32_t ways = 0, page_shift = 0;
    std::uint64_t set_mask = 0;
    std::vector<std::uint64_t> entry;  // LRU-ordered page numbers per set
  };

  static void plru_touch(std::uint64_t& bits, std::uint32_t way, std::uint32_t ways) {
    // Walk root to leaf, pointing every node on the path away from the way just used.
    std::uint32_t node = 1;
    for (std::uint32_t half = ways >> 1; half; half >>= 1) {
      const std::uint32_t dir = (way & half) ? 1 : 0;
      if (dir) bits &= ~(std::uint64_t(1) << node); else bits |= std::uint64_t(1) << node;
      node = 2 * node + dir;
    }
  }
  static std::uint32_t plru_victim(std::uint64_t bits, std::uint32_t ways) {
    std::uint32_t node = 1, way = 0;
    for (std::uint32_t half = ways >> 1; half; half >>= 1) {
      const std::uint32_t dir = (bits >> node) & 1;
      way |= dir ? half : 0;
      node = 2 * node + dir;
    }
    return way;
  }

  // A set's entries, the key a line is found by, and the line an entry holds, for either width.
  template <class E>
  static E* ways_of(Set& c, std::uint64_t set) {
    if constexpr (sizeof(E) == 4) return &c.entry32[set * c.ways]; else return &c.entry[set * c.ways];
  }
  template <class E>
  static E key(const Set& c, std::uint64_t line) {
    if constexpr (sizeof(E) == 4) return E((line >> c.set_bits) << 2); else return line << 2;
  }
  template <class E>
  static std::uint64_t line_of(const Set& c, E v, std::uint64_t set) {
    if constexpr (sizeof(E) == 4) return ((std::uint64_t(v) >> 2) << c.set_bits) | set; else return v >> 2;
  }
  // Looks the line up; on a hit updates recency (and the dirty bit) and returns 1, or 2 for the
  // first use of a prefetched line; 0 on a miss.
  static int lookup(Set& c, std::uint64_t line, bool dirty) {
    return c.narrow ? lookup_in<std::uint32_t>(c, line, dirty) : lookup_in<std::uint64_t>(c, line, dirty);
  }
  template <class E>
  LP_SIM_INLINE static int lookup_in(Set& c, std::uint64_t line, bool dirty) {
    const std::uint64_t set = line & c.set_mask;
    E* e = ways_of<E>(c, set);
    const int w = detail::find_way(e, c.ways, key<E>(c, line));
    if (w < 0) return 0;
    const int first_use = (e[w] & E(kPrefetched)) ? 2 : 1;
    const E v = E((e[w] & ~E(kPrefetched)) | E(dirty));
    if (c.policy == Policy::LRU) {
      detail::to_front(e, std::uint32_t(w), v);
    } else {
      e[w] = v;
      if (c.policy == Policy::TreePLRU) plru_touch(c.plru[set], std::uint32_t(w), c.ways);
    }
    return first_use;
  }
  static bool present(Set& c, std::uint64_t line) {
    const std::uint64_t set = line & c.set_mask;
    return c.narrow ? detail::find_way(ways_of<std::uint32_t>(c, set), c.ways, key<std::uint32_t>(c, line)) >= 0
                    : detail::find_way(ways_of<std::uint64_t>(c, set), c.ways, key<std::uint64_t>(c, line)) >= 0;
  }

  // Puts `line` into level i, evicting a victim (write-back, back-invalidation) if the set is full.
  void insert(std::size_t i, std::uint64_t line, std::uint64_t flags) {
    if (c_[i].narrow) insert_in<std::uint32_t>(i, line, flags); else insert_in<std::uint64_t>(i, line, flags);
  }
  template <class E>
  LP_SIM_INLINE void insert_in(std::size_t i, std::uint64_t line, std::uint64_t flags) {
    Set& c = c_[i];
    const std::uint64_t set = line & c.set_mask;
    E* e = ways_of<E>(c, set);
    std::uint32_t w = c.ways - 1;  // LRU: empty ways always sit at the tail, so the tail is the victim
    if (c.policy != Policy::LRU) {
      const int empty = detail::find_way(e, c.ways, E(kEmpty<E> & ~E(kFlags)));
      w = empty >= 0 ? std::uint32_t(empty)
          : c.policy == Policy::TreePLRU ? plru_victim(c.plru[set], c.ways)
                                         : static_cast<std::uint32_t>(next_rng(c.rng) % c.ways);
    }
    const E victim = e[w];
    const E v = E(key<E>(c, line) | E(flags));
    if (c.policy == Policy::LRU) {
      detail::to_front(e, w, v);
    } else {
      e[w] = v;
      if (c.policy == Policy::TreePLRU) plru_touch(c.plru[set], w, c.ways);
    }
    if (victim != kEmpty<E>) evicted(i, line_of<E>(c, victim, set), victim & E(kDirty));
  }

  void evicted(std::size_t i, std::uint64_t line, bool dirty) {
    const std::uint64_t addr = line << c_[i].line_shift;
    if (c_[i].inclusive)
      for (std::size_t j = 0; j < i; ++j) dirty |= invalidate_range(j, addr, std::uint64_t(1) << c_[i].line_shift);
    if (!dirty) return;
    ++stats_.levels[i].writebacks;
    if (!h_.writeback_to_next_level) return;
    if (i + 1 == c_.size()) { ++stats_.memory_writes; return; }
    Set& n = c_[i + 1];
    const std::uint64_t nl = addr >> n.line_shift;
    if (!lookup(n, nl, true)) insert(i + 1, nl, kDirty);
  }

  // Drops every line of level j inside [addr, addr + bytes); returns whether any was dirty.
  bool invalidate_range(std::size_t j, std::uint64_t addr, std::uint64_t bytes) {
    return c_[j].narrow ? invalidate_in<std::uint32_t>(c_[j], addr, bytes) : invalidate_in<std::uint64_t>(c_[j], addr, bytes);
  }
  template <class E>
  static bool invalidate_in(Set& c, std::uint64_t addr, std::uint64_t bytes) {
    bool dirty = false;
    const std::uint64_t step = std::uint64_t(1) << c.line_shift;
    for (std::uint64_t a = addr & ~(step - 1); a < addr + bytes; a += step) {
      const std::uint64_t line = a >> c.line_shift;
      E* e = ways_of<E>(c, line & c.set_mask);
      const int w = detail::find_way(e, c.ways, key<E>(c, line));
      if (w < 0) continue;
      dirty |= (e[w] & E(kDirty)) != 0;
      if (c.policy == Policy::LRU) {  // keep empty ways at the tail so the tail is the victim
        std::memmove(e + w, e + w + 1, std::size_t(c.ways - 1 - w) * sizeof(E));
        e[c.ways - 1] = kEmpty<E>;
      } else {
        e[w] = kEmpty<E>;
      }
    }
    return dirty;
  }

  void fetch(std::size_t i, std::uint64_t addr, bool is_write, bool is_prefetch) {
    if (i == c_.size()) {
      ++stats_.memory_reads;
      if (!is_prefetch) ++stats_.served[i];
      return;
    }
    Set& c = c_[i];
    const std::uint64_t line = addr >> c.line_shift;
    if (const int hit = lookup(c, line, is_write)) {
      ++stats_.levels[i].hits;
      if (!is_prefetch) ++stats_.served[i];
      if (hit == 2 && !is_prefetch) prefetch(i, line);
      return;
    }
    ++stats_.levels[i].misses;
    fetch(i + 1, addr, false, is_prefetch);  // write-allocate: the line is read, then written here
    insert(i, line, is_write ? kDirty : 0);
    if (c.prefetch != Prefetch::None && !is_prefetch) prefetch(i, line);
  }

  void prefetch(std::size_t i, std::uint64_t line) {
    Set& c = c_[i];
    std::uint64_t target = kInvalid;
    if (c.prefetch == Prefetch::NextLine) {
      target = line + 1;
    } else {  // stride: two equal consecutive deltas in this level's miss stream
      const std::int64_t d = c.last_miss == kInvalid ? 0 : std::int64_t(line - c.last_miss);
      if (d != 0 && d == c.last_stride) target = line + std::uint64_t(d);
      c.last_stride = d;
      c.last_miss = line;
    }
    if (target == kInvalid) return;
    if (present(c, target)) return;  // already present: no recency change
    ++stats_.levels[i].prefetches;
    fetch(i + 1, target << c.line_shift, false, true);
    insert(i, target, kPrefetched);
  }

  void translate(std::uint64_t addr) {
    std::size_t k = 0;
    for (; k < t_.size(); ++k) {
      TlbState& t = t_[k];
      const std::uint64_t page = addr >> t.page_shift;
      std::uint64_t* e = &t.entry[(page & t.set_mask) * t.ways];
      const int w = e[0] == page << 2 ? 0 : detail::find_way(e, t.ways, page << 2);
      if (w >= 0) {
        detail::to_front(e, std::uint32_t(w), page << 2);
        ++stats_.tlbs[k].hits;
        break;
      }
      ++stats_.tlbs[k].misses;
    }
    if (k == t_.size()) ++stats_.page_walks;
    // Fill every level that missed (LRU: the tail is the victim).
    for (std::size_t j = 0; j < k && j < t_.size(); ++j) {
      TlbState& t = t_[j];
      const std::uint64_t page = addr >> t.page_shift;
      std::uint64_t* e = &t.entry[(page & t.set_mask) * t.ways];
      detail::to_front(e, t.ways - 1, page << 2);
    }
  }

  static std::uint64_t next_rng(std::uint64_t& s) {  // xorshift64*: cheap, seeded, reproducible
    s ^= s >> 12; s ^= s << 25; s ^= s >> 27;
    return s * 0x2545f4914f6cdd1dull;
  }

  Hierarchy h_;
  std::vector<Set> c_;
  std::vector<TlbState> t_;
  Stats stats_;
};

}  // namespace lp::cachesim
