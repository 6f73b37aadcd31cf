// The two timing models of `bench cachesim` (issue 6) and their calibration from host probes.
//  - sequential (the thesis's, §2.4): every access pays the latency of the level that served it,
//    one after another, and every TLB miss pays its walk;
//  - overlap (beyond the thesis, its "follow-on work"): independent misses overlap, so the
//    accesses served by level k cost latency_k / mlp_k each (mlp_k: how many are in flight), and
//    the result is never faster than the memory traffic at the measured bandwidth.
// Calibration solves for the unknown latencies and mlps from probes the simulator replays too: a
// dependent pointer chase (latency) and an independent gather (overlap) at one working set per
// level. Each probe's time is the model applied to its simulated counts, so the solve is exact for
// the probes and everything else is a prediction.
#pragma once
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "cpu_reference/cachesim/cache_sim.hpp"

namespace lp::cachesim {

struct Prices {
  std::vector<double> latency;  // ns per access served by level k (memory last)
  std::vector<double> mlp;      // accesses served by level k in flight at once (overlap model)
  std::vector<double> walk_ns;  // per TLB level: a miss there
  double walk_mlp = 1;
  double bytes_per_ns = 0;  // memory bandwidth of one core (0: no floor)
  std::uint32_t line_bytes = 64;
};

// The prices a hierarchy states; kProbe and "calibrate" (0) entries stay to be filled in.
inline Prices prices_of(const Hierarchy& h) {
  Prices p;
  for (const Level& l : h.levels) p.latency.push_back(l.latency_ns), p.mlp.push_back(l.mlp);
  p.latency.push_back(h.memory_latency_ns);
  p.mlp.push_back(h.memory_mlp);
  for (const Tlb& t : h.tlbs) p.walk_ns.push_back(t.walk_ns);
  p.walk_mlp = h.walk_mlp;
  p.line_bytes = h.levels.back().line_bytes;
  return p;
}

inline bool needs_calibration(const Hierarchy& h) {
  const Prices p = prices_of(h);
  auto unknown = [](double x) { return x == kProbe; };
  return std::any_of(p.latency.begin(), p.latency.end(), unknown) || std::any_of(p.walk_ns.begin(), p.walk_ns.end(), unknown) ||
         std::any_of(p.mlp.begin(), p.mlp.end(), [](double x) { return x == 0; }) || (!h.tlbs.empty() && p.walk_mlp == 0);
}

// Counts of one replayed stream (an after-minus-before difference of Stats), per unit of work.
struct Counts {
  std::vector<double> served;    // per level, memory last
  std::vector<double> tlb_miss;  // per TLB level
  double memory_lines = 0;       // lines read from or written to memory
  double accesses = 0;
};

inline Counts counts_between(const Stats& before, const Stats& after, double units) {
  Counts c;
  for (std::size_t k = 0; k < after.served.size(); ++k) c.served.push_back(double(after.served[k] - before.served[k]) / units);
  for (std::size_t t = 0; t < after.tlbs.size(); ++t) c.tlb_miss.push_back(double(after.tlbs[t].misses - before.tlbs[t].misses) / units);
  c.memory_lines = double(after.memory_reads - before.memory_reads + after.memory_writes - before.memory_writes) / units;
  c.accesses = double(after.accesses - before.accesses) / units;
  return c;
}

struct Prediction {
  double sequential_ns = 0;  // the thesis's model
  double overlap_ns = 0;     // max(latency_bound, bandwidth_bound)
  double latency_bound_ns = 0, bandwidth_bound_ns = 0;
};

inline Prediction predict(const Counts& c, const Prices& p) {
  Prediction r;
  for (std::size_t k = 0; k < c.served.size(); ++k) {
    r.sequential_ns += c.served[k] * p.latency[k];
    r.latency_bound_ns += c.served[k] * p.latency[k] / std::max(p.mlp[k], 1e-9);
  }
  for (std::size_t t = 0; t < c.tlb_miss.size(); ++t) {
    r.sequential_ns += c.tlb_miss[t] * p.walk_ns[t];
    r.latency_bound_ns += c.tlb_miss[t] * p.walk_ns[t] / std::max(p.walk_mlp, 1e-9);
  }
  r.bandwidth_bound_ns = p.bytes_per_ns > 0 ? c.memory_lines * p.line_bytes / p.bytes_per_ns : 0;
  r.overlap_ns = std::max(r.latency_bound_ns, r.bandwidth_bound_ns);
  return r;
}

// What the host probes measured, with the simulator's counts for the same streams. Index k is the
// level whose latency the probe's working set isolates (memory last); *_4k are the probes at the
// largest working set on 4 KiB pages (the others run on 2 MiB pages, where the TLB reaches).
struct ProbeSet {
  std::vector<Counts> chase, gather;  // per step / per input
  std::vector<double> chase_ns, gather_ns;
  Counts chase_4k, gather_4k;
  double chase_4k_ns = 0, gather_4k_ns = 0;
  double bytes_per_ns = 0;
};

namespace detail {
inline double clamp_mlp(double x) { return x > 0 && x == x ? std::min(std::max(x, 1.0), 64.0) : 64.0; }
}

// Fills every unknown price of `given` (kProbe latencies and walks, 0 mlps) from the probes:
// Gauss-Seidel sweeps over "probe k's time = the model on probe k's counts", each solved for the
// unknown of level k (the level that serves most of probe k), until the prices settle.
inline Prices calibrate(const Prices& given, const ProbeSet& ps) {
  Prices p = given;
  const std::size_t K = p.latency.size();
  std::vector<bool> lat_unknown(K), mlp_unknown(K);
  for (std::size_t k = 0; k < K; ++k) {
    lat_unknown[k] = p.latency[k] == kProbe;
    mlp_unknown[k] = p.mlp[k] == 0;
    if (lat_unknown[k]) p.latency[k] = ps.chase_ns[k];
    if (mlp_unknown[k]) p.mlp[k] = 1;
  }
  // The last TLB level with a probed walk takes the 4 KiB-page surplus; earlier probed ones get 0.
  int walk_unknown = -1;
  for (std::size_t t = 0; t < p.walk_ns.size(); ++t)
    if (p.walk_ns[t] == kProbe) p.walk_ns[t] = 0, walk_unknown = int(t);
  const bool walk_mlp_unknown = p.walk_mlp == 0 && !p.walk_ns.empty();
  if (walk_mlp_unknown) p.walk_mlp = 1;
  p.bytes_per_ns = ps.bytes_per_ns;
  for (int sweep = 0; sweep < 8; ++sweep) {
    for (std::size_t k = 0; k < K; ++k) {
      if (!lat_unknown[k]) continue;
      const Counts& c = ps.chase[k];
      double rest = 0;
      for (std::size_t j = 0; j < K; ++j)
        if (j != k) rest += c.served[j] * p.latency[j];
      for (std::size_t t = 0; t < c.tlb_miss.size(); ++t) rest += c.tlb_miss[t] * p.walk_ns[t];
      if (c.served[k] > 0) p.latency[k] = std::max(0.0, (ps.chase_ns[k] - rest) / c.served[k]);
    }
    if (walk_unknown >= 0) {
      const Counts& c = ps.chase_4k;
      double rest = 0;
      for (std::size_t j = 0; j < K; ++j) rest += c.served[j] * p.latency[j];
      for (std::size_t t = 0; t < c.tlb_miss.size(); ++t)
        if (int(t) != walk_unknown) rest += c.tlb_miss[t] * p.walk_ns[t];
      if (c.tlb_miss[walk_unknown] > 0) p.walk_ns[walk_unknown] = std::max(0.0, (ps.chase_4k_ns - rest) / c.tlb_miss[walk_unknown]);
    }
    for (std::size_t k = 0; k < K; ++k) {
      if (!mlp_unknown[k]) continue;
      const Counts& c = ps.gather[k];
      double rest = 0;
      for (std::size_t j = 0; j < K; ++j)
        if (j != k) rest += c.served[j] * p.latency[j] / p.mlp[j];
      for (std::size_t t = 0; t < c.tlb_miss.size(); ++t) rest += c.tlb_miss[t] * p.walk_ns[t] / p.walk_mlp;
      p.mlp[k] = detail::clamp_mlp(c.served[k] * p.latency[k] / (ps.gather_ns[k] - rest));
    }
    if (walk_mlp_unknown) {
      const Counts& c = ps.gather_4k;
      double rest = 0, walks = 0;
      for (std::size_t j = 0; j < K; ++j) rest += c.served[j] * p.latency[j] / p.mlp[j];
      for (std::size_t t = 0; t < c.tlb_miss.size(); ++t) walks += c.tlb_miss[t] * p.walk_ns[t];
      p.walk_mlp = walks > 0 ? detail::clamp_mlp(walks / (ps.gather_4k_ns - rest)) : 1;
    }
  }
  return p;
}

}  // namespace lp::cachesim
