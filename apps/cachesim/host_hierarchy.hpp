// The hierarchy of the machine the study runs on, read from Linux's sysfs cache description
// (/sys/devices/system/cpu/cpu0/cache/index*/), as JSON the simulator's parser takes. Latencies
// and overlap are left to the probes ("probe", "calibrate"). Virtual machines often hide sysfs'
// cache directory; then the caller names a JSON file or a preset instead.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

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

// Throws std::runtime_error with one line when sysfs has no usable description. Where the reported
// set count is not a power of two (some L3 slices), the sets are rounded down to one and the ways
// raised to keep the size: the simulator indexes sets by shift and mask. The TLB geometry is not in
// sysfs: a typical 64-entry L1 DTLB and 2048-entry second level are assumed, with the second
// level's walk measured by the probes.
// LP_SYSFS_CACHE_DIR replaces the sysfs directory (the CLI test feeds it a made-up machine).
inline nlohmann::json host_hierarchy_json() {
  const char* env = std::getenv("LP_SYSFS_CACHE_DIR");
  const std::string dir = env ? std::string(env) + "/" : "/sys/devices/system/cpu/cpu0/cache/";
  nlohmann::json levels = nlohmann::json::array();
  for (int i = 0; i < 16; ++i) {
    const std::string d = dir + "index" + std::to_string(i) + "/";
    const std::string type = read_line(d + "type");
    if (type.empty()) break;
    if (type == "Instruction") continue;
    const std::string size = read_line(d + "size"), ways = read_line(d + "ways_of_associativity"),
                      line = read_line(d + "coherency_line_size");
    if (size.empty() || ways.empty() || line.empty()) break;
    std::uint64_t bytes = parse_cache_size(size), w = std::stoull(ways), lb = std::stoull(line);
    if (w == 0 || lb == 0) break;
    std::uint64_t sets = bytes / (w * lb), p2 = 1;
    while (p2 * 2 <= sets) p2 *= 2;
    if (p2 != sets) w = (bytes + p2 * lb / 2) / (p2 * lb);
    nlohmann::json l = {{"name", "L" + read_line(d + "level")}, {"size_bytes", p2 * w * lb}, {"line_bytes", lb},
                        {"ways", w}, {"policy", "lru"}, {"latency_ns", "probe"}, {"mlp", "calibrate"}};
    if (levels.size() < 2) l["prefetcher"] = "next_line";
    levels.push_back(l);
  }
  if (levels.empty())
    throw std::runtime_error("host: " + dir + " describes no data cache (virtual machines often hide it); name a preset or a JSON file");
  return {{"name", "host (sysfs)"},
          {"levels", levels},
          {"tlbs", {{{"name", "DTLB"}, {"entries", 64u}, {"ways", 4u}, {"page_bytes", 4096u}, {"walk_ns", 2.0}},
                    {{"name", "STLB"}, {"entries", 2048u}, {"ways", 8u}, {"page_bytes", 4096u}, {"walk_ns", "probe"}}}},
          {"memory_latency_ns", "probe"},
          {"memory_mlp", "calibrate"},
          {"walk_mlp", "calibrate"}};
}

}  // namespace lp::cachesim_study
