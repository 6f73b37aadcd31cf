// Hierarchies of the thesis's two CPUs (Eilers 2014, §2.2 and §2.4: Core2 Duo T7300, Opteron 6274)
// as JSON text, so presets go through the same parser and validation as user configs.
// Sizes, ways and line sizes are the vendors' published figures. Latencies and TLB sizes are
// typical values from vendor optimisation guides and public measurements (cycles converted at
// the nominal clock: T7300 2.0 GHz, 6274 2.2 GHz); they are starting points for calibration by
// the latency probe, not measurements of the thesis's machines. Their overlap (mlp) is not
// measurable any more: the T7300's memory mlp of 1.76 is the thesis's own ratio (111 ns latency,
// 63 ns per input for the simple multireduce at large m, §2.4); the Opteron's 4 is an assumption.
// L1 and L2 prefetch the next line, the thesis simulator's "rudimentary prefetching": without it
// every new line of the sequential label and value streams would pay a memory latency.
// "dev-vm" is the machine the study was developed on: its geometry is stated (the VM hides CPUID
// and sysfs) and its timings are measured by the probes of every run.
#pragma once
#include "cpu_reference/cachesim/cache_sim.hpp"

#include <string>
#include <vector>

namespace lp::cachesim {

// Core2 Duo T7300 (Merom): 32 KiB 8-way L1D (3 cycles), 4 MiB 16-way shared L2 (~14 cycles),
// DTLB0 16 entries 4-way (loads) and DTLB1 256 entries 4-way, DDR2 main memory. 111 ns is the
// thesis's pointer-chasing figure for its older test system (§2.4).
inline const char* const kCore2DuoT7300 = R"({
  "levels": [
    {"name": "L1D", "size_bytes": 32768,   "line_bytes": 64, "ways": 8,  "policy": "lru", "prefetcher": "next_line", "latency_ns": 1.5, "mlp": 1},
    {"name": "L2",  "size_bytes": 4194304, "line_bytes": 64, "ways": 16, "policy": "lru", "prefetcher": "next_line", "latency_ns": 7.0, "mlp": 2}
  ],
  "tlbs": [
    {"name": "DTLB0", "entries": 16,  "ways": 4, "page_bytes": 4096, "walk_ns": 1.0},
    {"name": "DTLB1", "entries": 256, "ways": 4, "page_bytes": 4096, "walk_ns": 15.0}
  ],
  "memory_latency_ns": 111.0,
  "memory_mlp": 1.76, "walk_mlp": 1
})";

// Opteron 6274 (Interlagos, Bulldozer): 16 KiB 4-way L1D per core (4 cycles), 2 MiB 16-way L2 per
// two-core module (~20 cycles), L3 per die (~65 cycles). The die's L3 is 8 MiB 64-way, of which
// the thesis's system reports 6 MiB usable (the rest is taken by the HT Assist probe filter);
// 6 MiB at 64 ways gives 1536 sets, which the simulator's shift/mask indexing cannot represent,
// so the preset keeps the 6 MiB and 2048 sets with 48 ways. L1 DTLB 32 entries fully associative,
// L2 DTLB 1024 entries 8-way.
inline const char* const kOpteron6274 = R"({
  "levels": [
    {"name": "L1D", "size_bytes": 16384,   "line_bytes": 64, "ways": 4,  "policy": "lru", "prefetcher": "next_line", "latency_ns": 1.8, "mlp": 1},
    {"name": "L2",  "size_bytes": 2097152, "line_bytes": 64, "ways": 16, "policy": "lru", "prefetcher": "next_line", "latency_ns": 9.1, "mlp": 2},
    {"name": "L3",  "size_bytes": 6291456, "line_bytes": 64, "ways": 48, "policy": "lru", "latency_ns": 30.0, "mlp": 2}
  ],
  "tlbs": [
    {"name": "L1DTLB", "entries": 32,   "ways": 32, "page_bytes": 4096, "walk_ns": 3.0},
    {"name": "L2DTLB", "entries": 1024, "ways": 8,  "page_bytes": 4096, "walk_ns": 25.0}
  ],
  "memory_latency_ns": 95.0,
  "memory_mlp": 4, "walk_mlp": 1
})";

// The developer VM (AMD EPYC, family 0x1A = Zen 5; 2 vCPUs): 48 KiB 12-way L1D, 1 MiB 16-way L2,
// 32 MiB 16-way L3 (the core complex's), the published Zen 5 geometry since the VM hides it.
// The TLB sizes are assumptions (96-entry L1 DTLB, 4096-entry L2 DTLB); latencies, the L2 DTLB's
// walk and every overlap are measured by the probes.
inline const char* const kDevVm = R"({
  "name": "dev-vm: AMD EPYC Zen 5, 2 vCPUs",
  "levels": [
    {"name": "L1D", "size_bytes": 49152,    "line_bytes": 64, "ways": 12, "policy": "lru", "prefetcher": "next_line", "latency_ns": "probe", "mlp": "calibrate"},
    {"name": "L2",  "size_bytes": 1048576,  "line_bytes": 64, "ways": 16, "policy": "lru", "prefetcher": "next_line", "latency_ns": "probe", "mlp": "calibrate"},
    {"name": "L3",  "size_bytes": 33554432, "line_bytes": 64, "ways": 16, "policy": "lru", "latency_ns": "probe", "mlp": "calibrate"}
  ],
  "tlbs": [
    {"name": "L1DTLB", "entries": 96,   "ways": 96, "page_bytes": 4096, "walk_ns": 2.0},
    {"name": "L2DTLB", "entries": 4096, "ways": 16, "page_bytes": 4096, "walk_ns": "probe"}
  ],
  "memory_latency_ns": "probe", "memory_mlp": "calibrate", "walk_mlp": "calibrate"
})";

// The GPU machine's host (results/h100-host): a KVM guest on an Intel Xeon (family 6,
// model 207) whose sysfs reports a 48 KiB 12-way L1D, a 2 MiB 16-way L2 and a 300 MiB 20-way L3.
// Those 245760 L3 sets are not a power of two, so the L3 is 131072 sets x 38 ways (304 MiB), as
// `hierarchy: host` rounds it there. The TLB sizes are host_hierarchy.hpp's assumptions. As a
// preset it lets any machine replay the widest hierarchy we simulate (the simulator-speed
// benchmark); its timings are probed, so they mean something only on that host.
inline const char* const kGpuHost = R"({
  "name": "gpu-host: Intel Xeon (6/207) KVM guest of the H100 machine, as its sysfs reports it",
  "levels": [
    {"name": "L1", "size_bytes": 49152,     "line_bytes": 64, "ways": 12, "policy": "lru", "prefetcher": "next_line", "latency_ns": "probe", "mlp": "calibrate"},
    {"name": "L2", "size_bytes": 2097152,   "line_bytes": 64, "ways": 16, "policy": "lru", "prefetcher": "next_line", "latency_ns": "probe", "mlp": "calibrate"},
    {"name": "L3", "size_bytes": 318767104, "line_bytes": 64, "ways": 38, "policy": "lru", "latency_ns": "probe", "mlp": "calibrate"}
  ],
  "tlbs": [
    {"name": "DTLB", "entries": 64,   "ways": 4, "page_bytes": 4096, "walk_ns": 2.0},
    {"name": "STLB", "entries": 2048, "ways": 8, "page_bytes": 4096, "walk_ns": "probe"}
  ],
  "memory_latency_ns": "probe", "memory_mlp": "calibrate", "walk_mlp": "calibrate"
})";

struct Preset {
  const char* name;
  const char* json;
};
inline std::vector<Preset> presets() {
  return {{"core2-t7300", kCore2DuoT7300}, {"opteron-6274", kOpteron6274}, {"dev-vm", kDevVm}, {"gpu-host", kGpuHost}};
}

inline Hierarchy preset(const std::string& name) {
  for (const Preset& p : presets())
    if (name == p.name) return parse_hierarchy(nlohmann::json::parse(p.json));
  throw ConfigError("preset: unknown machine '" + name + "' (core2-t7300, opteron-6274, dev-vm, gpu-host)");
}

}  // namespace lp::cachesim
