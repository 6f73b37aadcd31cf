// The hierarchy of the machine the study runs on, read from Linux's sysfs cache description
// (/sys/devices/system/cpu/cpu0/cache/index*/), as JSON the simulator's parser takes. Latencies
// and overlap are left to the probes ("probe", "calibrate"). Virtual machines often hide sysfs'
// cache directory; on x86 the CPU's own report through CPUID then stands in (named "host (cpuid)"
// in the records), so that `bench reproduce thesis` runs its CPU chapter there too; elsewhere the
// caller names a JSON file or a preset instead.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>
#include <algorithm>
#include <vector>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

namespace lp::cachesim_study {

inline std::string read_line(const std::string& path) {
  std::ifstream f(path);
  std::string s;
  if (f) std::getline(f, s);
  return s;
}

inline std::uint64_t parse_cache_size(const std::string& s) {  // "48K", "1024K", "32M"
  std::uint64_t v = std::stoull(s);
  if (s.find('K') != std::string::npos) v <<= 10;
  if (s.find('M') != std::string::npos) v <<= 20;
  return v;
}

// One data or unified cache as a source reports it.
struct HostCache {
  int level = 0;
  std::uint64_t bytes = 0, ways = 0, line = 0;
};

// The data and unified caches sysfs describes, in its order (empty where it describes none).
inline std::vector<HostCache> sysfs_caches(const std::string& dir) {
  std::vector<HostCache> out;
  for (int i = 0; i < 16; ++i) {
    const std::string d = dir + "index" + std::to_string(i) + "/";
    const std::string type = read_line(d + "type");
    if (type.empty()) break;
    if (type == "Instruction") continue;
    const std::string size = read_line(d + "size"), ways = read_line(d + "ways_of_associativity"),
                      line = read_line(d + "coherency_line_size");
    if (size.empty() || ways.empty() || line.empty()) break;
    HostCache c{std::stoi("0" + read_line(d + "level")), parse_cache_size(size), std::stoull(ways), std::stoull(line)};
    if (c.ways == 0 || c.line == 0) break;
    out.push_back(c);
  }
  return out;
}

// The data and unified caches as the CPU reports them through CPUID: the deterministic cache
// parameters (leaf 4, Intel; 0x8000001D, AMD), else AMD's older size leaves (0x80000005 and
// 0x80000006, whose L3 is the whole package's and whose ways code 9 defers to the leaf a virtual
// machine hid: 16 ways taken, Zen's L3). Empty off x86 or where the CPU reports nothing.
inline std::vector<HostCache> cpuid_caches() {
  std::vector<HostCache> out;
#if defined(__x86_64__) || defined(__i386__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  auto deterministic = [&](unsigned leaf) {
    for (unsigned i = 0; i < 16; ++i) {
      __cpuid_count(leaf, i, a, b, c, d);
      const unsigned type = a & 31u;  // 0: no more caches, 1: data, 2: instruction, 3: unified
      if (type == 0) break;
      if (type == 2) continue;
      const std::uint64_t ways = ((b >> 22) & 1023u) + 1, parts = ((b >> 12) & 1023u) + 1, line = (b & 4095u) + 1, sets = std::uint64_t(c) + 1;
      out.push_back({int((a >> 5) & 7u), ways * parts * line * sets, ways, line});
    }
  };
  const unsigned max = __get_cpuid_max(0, nullptr), ext = __get_cpuid_max(0x80000000u, nullptr);
  if (max >= 4) deterministic(4);
  if (out.empty() && ext >= 0x8000001Du) deterministic(0x8000001Du);
  if (out.empty() && ext >= 0x80000006u) {
    auto ways_of = [](unsigned code, std::uint64_t bytes, std::uint64_t line) -> std::uint64_t {
      constexpr std::uint64_t kWays[16] = {0, 1, 2, 3, 4, 6, 8, 0, 16, 16, 32, 48, 64, 96, 128, 0};
      return code == 15 ? bytes / line : kWays[code];  // 15: fully associative
    };
    __cpuid(0x80000005u, a, b, c, d);
    const std::uint64_t l1 = std::uint64_t(c >> 24) << 10, l1_line = c & 255u, l1_ways = (c >> 16) & 255u;
    if (l1 && l1_line) out.push_back({1, l1, l1_ways == 255 ? l1 / l1_line : l1_ways, l1_line});
    __cpuid(0x80000006u, a, b, c, d);
    const std::uint64_t l2 = std::uint64_t(c >> 16) << 10, l2_line = c & 255u, l3 = std::uint64_t(d >> 18) << 19, l3_line = d & 255u;
    if (l2 && l2_line && ways_of((c >> 12) & 15u, l2, l2_line)) out.push_back({2, l2, ways_of((c >> 12) & 15u, l2, l2_line), l2_line});
    if (l3 && l3_line && ways_of((d >> 12) & 15u, l3, l3_line)) out.push_back({3, l3, ways_of((d >> 12) & 15u, l3, l3_line), l3_line});
  }
  out.erase(std::remove_if(out.begin(), out.end(), [](const HostCache& h) { return !h.bytes || !h.ways || !h.line; }), out.end());
#endif
  return out;
}

// Throws std::runtime_error with one line when neither sysfs nor CPUID gives a usable description.
// Where the reported set count is not a power of two (some L3 slices), the sets are rounded down
// to one and the ways raised to keep the size: the simulator indexes sets by shift and mask. The
// TLB geometry is in neither: a typical 64-entry L1 DTLB and 2048-entry second level are assumed,
// with the second level's walk measured by the probes.
// LP_SYSFS_CACHE_DIR replaces the sysfs directory and leaves CPUID out (the CLI test feeds it a
// made-up machine, or none); LP_HOST_CACHES=cpuid reads CPUID alone (the CLI test of that path on
// a machine whose sysfs is there).
inline nlohmann::json host_hierarchy_json() {
  const char* env = std::getenv("LP_SYSFS_CACHE_DIR");
  const char* source = std::getenv("LP_HOST_CACHES");
  const bool cpuid_only = source && std::string(source) == "cpuid";
  const std::string dir = env ? std::string(env) + "/" : "/sys/devices/system/cpu/cpu0/cache/";
  std::vector<HostCache> caches = cpuid_only ? std::vector<HostCache>() : sysfs_caches(dir);
  std::string name = "host (sysfs)";
  if (caches.empty() && (cpuid_only || !env)) {
    caches = cpuid_caches();
    name = "host (cpuid)";
  }
  nlohmann::json levels = nlohmann::json::array();
  for (const HostCache& h : caches) {
    std::uint64_t w = h.ways, sets = h.bytes / (w * h.line), p2 = 1;
    while (p2 * 2 <= sets) p2 *= 2;
    if (p2 != sets) w = (h.bytes + p2 * h.line / 2) / (p2 * h.line);
    nlohmann::json l = {{"name", "L" + std::to_string(h.level)}, {"size_bytes", p2 * w * h.line}, {"line_bytes", h.line},
                        {"ways", w}, {"policy", "lru"}, {"latency_ns", "probe"}, {"mlp", "calibrate"}};
    if (levels.size() < 2) l["prefetcher"] = "next_line";
    levels.push_back(l);
  }
  if (levels.empty())
    throw std::runtime_error("host: " + dir + " describes no data cache (virtual machines often hide it)" +
                             (env ? std::string() : std::string(" and CPUID reports none")) + "; name a preset or a JSON file");
  return {{"name", name},
          {"levels", levels},
          {"tlbs", {{{"name", "DTLB"}, {"entries", 64u}, {"ways", 4u}, {"page_bytes", 4096u}, {"walk_ns", 2.0}},
                    {{"name", "STLB"}, {"entries", 2048u}, {"ways", 8u}, {"page_bytes", 4096u}, {"walk_ns", "probe"}}}},
          {"memory_latency_ns", "probe"},
          {"memory_mlp", "calibrate"},
          {"walk_mlp", "calibrate"}};
}

}  // namespace lp::cachesim_study
