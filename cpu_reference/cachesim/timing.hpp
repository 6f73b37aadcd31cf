// The two timing models of `bench cachesim` (the overlap model is the one that predicts)
// and their calibration from host probes.
//  - sequential (the thesis's, §2.4): every access pays the latency of the level that served it,
//    one after another, and every TLB miss pays its walk;
//  - overlap (beyond the thesis, its "follow-on work"): independent misses overlap, so the
//    accesses served by level k cost latency_k / mlp_k each (mlp_k: how many are in flight), and
//    a phase is never faster than its memory traffic at the bandwidth of its own stream count.
// A level's latency is a curve over the working set (the measured pointer-chase curve:
// on a VM an "L3" of 300 MiB costs 27 ns at 4 MiB and 92 ns at 16 MiB), so is its overlap (from
// update probes: independent read-modify-writes, the multireduce's kind of access, which overlap
// less than independent reads where a line is updated again while its update is in flight), so
// are the page walk's price and its overlap (from 4 KiB-page chases and updates: a walk gets dearer
// as the page tables themselves leave the caches; on the H100's host the walks cost 6.6 ns an input
// at 256 MiB, where one price fitted over 4 MiB-1 GiB gave 3.3), every fit reports
// its residual, and a stream is priced phase by phase (init, count, scatter, reduce), each with its
// own working set and stream count. The partial sort's count and scatter passes are priced by their
// own probe where one ran (Prices::sort_count_ns, sort_scatter_ns): a scatter into 2^b runs of
// pairs costs what the host's write-combining and TLB make of 2^(b+1) write streams, which the
// simulated caches do not see (they priced it at 1.2-1.6 ns an input where it took 3-4).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cpu_reference/cachesim/cache_sim.hpp"

namespace lp::cachesim {

// A price by working set: points (log2 bytes, value) in increasing order, linear in log2 bytes
// between them and flat beyond the first and the last.
struct Curve {
  std::vector<double> log2_bytes, value;
  static Curve constant(double v) { return Curve{{0.0}, {v}}; }
  bool unknown() const { return value.size() == 1 && value[0] == kProbe; }
  double at(double bytes) const {
    if (value.empty()) return 0;
    const double x = std::log2(std::max(bytes, 1.0));
    if (x <= log2_bytes.front()) return value.front();
    if (x >= log2_bytes.back()) return value.back();
    std::size_t i = 1;
    while (log2_bytes[i] < x) ++i;
    const double t = (x - log2_bytes[i - 1]) / (log2_bytes[i] - log2_bytes[i - 1]);
    return value[i - 1] + t * (value[i] - value[i - 1]);
  }
};

struct Prices {
  std::vector<Curve> latency;  // ns per access served by level k (memory last), by working set
  std::vector<Curve> mlp;      // accesses served by level k in flight at once (overlap model), by working set
  std::vector<Curve> walk;     // per TLB level: ns a miss there costs, by working set
  Curve walk_mlp = Curve::constant(1);  // walks in flight at once, by working set
  // The partial sort's passes measured on this host, ns per input, indexed by sort bits (0 unused;
  // empty or 0: the phase is priced from its counts like any other).
  std::vector<double> sort_count_ns, sort_scatter_ns;
  // One core's read bandwidth with s + 1 streams read at once (bytes per ns); empty: no floor.
  std::vector<double> bytes_per_ns;
  std::uint32_t line_bytes = 64;
  double bandwidth(int streams) const {
    if (bytes_per_ns.empty()) return 0;
    return bytes_per_ns[std::size_t(std::clamp(streams, 1, int(bytes_per_ns.size())) - 1)];
  }
};

// The prices a hierarchy states; kProbe and "calibrate" (0) entries stay to be filled in.
inline Prices prices_of(const Hierarchy& h) {
  Prices p;
  for (const Level& l : h.levels) p.latency.push_back(Curve::constant(l.latency_ns)), p.mlp.push_back(Curve::constant(l.mlp));
  p.latency.push_back(Curve::constant(h.memory_latency_ns));
  p.mlp.push_back(Curve::constant(h.memory_mlp));
  for (const Tlb& t : h.tlbs) p.walk.push_back(Curve::constant(t.walk_ns));
  p.walk_mlp = Curve::constant(h.walk_mlp);
  p.line_bytes = h.levels.back().line_bytes;
  return p;
}

inline bool needs_calibration(const Hierarchy& h) {
  const Prices p = prices_of(h);
  return std::any_of(p.latency.begin(), p.latency.end(), [](const Curve& c) { return c.unknown(); }) ||
         std::any_of(p.walk.begin(), p.walk.end(), [](const Curve& c) { return c.unknown(); }) ||
         std::any_of(p.mlp.begin(), p.mlp.end(), [](const Curve& c) { return c.value.size() == 1 && c.value[0] == 0; }) ||
         (!h.tlbs.empty() && p.walk_mlp.value[0] == 0);
}

// Counts of one replayed phase (an after-minus-before difference of Stats) per unit of work, with
// what prices them: the working set its random accesses range over and the streams it moves.
struct Counts {
  std::vector<double> served;    // per level, memory last
  std::vector<double> tlb_miss;  // per TLB level
  double memory_lines = 0;       // lines read from or written to memory
  double accesses = 0;
  double working_set_bytes = 0;
  int streams = 1;
  // Which phase of which stream (PhaseInfo's name, sort bits): a sort pass with a probe of its
  // own is priced by it.
  std::string phase;
  int sort_bits = 0;
};

inline Counts counts_between(const Stats& before, const Stats& after, double units, double working_set_bytes = 0, int streams = 1) {
  Counts c;
  for (std::size_t k = 0; k < after.served.size(); ++k) c.served.push_back(double(after.served[k] - before.served[k]) / units);
  for (std::size_t t = 0; t < after.tlbs.size(); ++t) c.tlb_miss.push_back(double(after.tlbs[t].misses - before.tlbs[t].misses) / units);
  c.memory_lines = double(after.memory_reads - before.memory_reads + after.memory_writes - before.memory_writes) / units;
  c.accesses = double(after.accesses - before.accesses) / units;
  c.working_set_bytes = working_set_bytes;
  c.streams = streams;
  return c;
}

struct Prediction {
  double sequential_ns = 0;  // the thesis's model
  double overlap_ns = 0;     // per phase max(latency_bound, bandwidth_bound), summed
  double latency_bound_ns = 0, bandwidth_bound_ns = 0;
};

// The overlap model's latency bound is max(core, beyond): the L1 hits the core works through, and
// the misses beyond it (each level's share at its overlap, and the walks), which proceed while the
// core goes on with the hits. Summing them (this model's first form) charged a memory-bound loop for its
// L1-served stream accesses as well, +30-50% beyond the caches on the dev VM.
inline Prediction predict(const Counts& c, const Prices& p) {
  Prediction r;
  double core = 0, beyond = 0;
  for (std::size_t k = 0; k < c.served.size(); ++k) {
    const double lat = p.latency[k].at(c.working_set_bytes);
    r.sequential_ns += c.served[k] * lat;
    (k == 0 ? core : beyond) += c.served[k] * lat / std::max(p.mlp[k].at(c.working_set_bytes), 1e-9);
  }
  for (std::size_t t = 0; t < c.tlb_miss.size(); ++t) {
    const double walk = c.tlb_miss[t] * p.walk[t].at(c.working_set_bytes);
    r.sequential_ns += walk;
    beyond += walk / std::max(p.walk_mlp.at(c.working_set_bytes), 1e-9);
  }
  r.latency_bound_ns = std::max(core, beyond);
  const double bw = p.bandwidth(c.streams);
  r.bandwidth_bound_ns = bw > 0 ? c.memory_lines * p.line_bytes / bw : 0;
  r.overlap_ns = std::max(r.latency_bound_ns, r.bandwidth_bound_ns);
  // A sort pass the host's own probe timed at these sort bits costs what the probe measured.
  const std::vector<double>* probed = c.phase == "count" ? &p.sort_count_ns : c.phase == "scatter" ? &p.sort_scatter_ns : nullptr;
  if (probed && c.sort_bits > 0 && std::size_t(c.sort_bits) < probed->size() && (*probed)[std::size_t(c.sort_bits)] > 0)
    r.overlap_ns = (*probed)[std::size_t(c.sort_bits)];
  return r;
}

// A stream of several phases costs the sum of its phases.
inline Prediction predict(const std::vector<Counts>& phases, const Prices& p) {
  Prediction r;
  for (const Counts& c : phases) {
    const Prediction q = predict(c, p);
    r.sequential_ns += q.sequential_ns, r.overlap_ns += q.overlap_ns;
    r.latency_bound_ns += q.latency_bound_ns, r.bandwidth_bound_ns += q.bandwidth_bound_ns;
  }
  return r;
}

// One host probe: its measured ns per step (chase) or per input (update), and the simulator's
// counts for the same stream; counts.working_set_bytes is the probe's working set.
struct Probe {
  Counts counts;
  double ns = 0;
  bool small_pages = false;  // 4 KiB pages (the page-walk probes); else 2 MiB
};

struct ProbeSet {
  std::vector<Probe> chase, update;
  std::vector<double> bytes_per_ns;  // the read bandwidth by stream count (Prices::bytes_per_ns)
  std::vector<double> sort_count_ns, sort_scatter_ns;  // the partial sort's passes by sort bits (Prices'), if probed
};

// How well the calibrated prices reproduce the probes: root mean square and largest relative
// residual (model / measured - 1) of each family of probes.
struct FitReport {
  double chase_rms = 0, chase_max = 0, walk_rms = 0, walk_max = 0, update_rms = 0, update_max = 0;
  int chase_probes = 0, walk_probes = 0, update_probes = 0;
};

struct Calibrated {
  Prices prices;
  FitReport fit;
};

namespace detail {
inline std::size_t dominant(const Counts& c) {
  return std::size_t(std::max_element(c.served.begin(), c.served.end()) - c.served.begin());
}
// The level whose overlap an update probe measures: the farthest that serves at least 0.3 accesses
// per input (its table updates, however many stream accesses the L1 serves besides).
inline std::size_t overlap_level(const Counts& c) {
  for (std::size_t k = c.served.size(); k-- > 1;)
    if (c.served[k] >= 0.3) return k;
  return 0;
}
// Tukey's running median of three, with his end-point rule: one probe off by noise (a VM's speed
// flips while it runs) moves no point of the curve, while a trend over several probes stays.
inline std::vector<double> running_median3(const std::vector<double>& y) {
  const std::size_t n = y.size();
  if (n < 3) return y;
  auto med = [](double a, double b, double c) { return std::max(std::min(a, b), std::min(std::max(a, b), c)); };
  std::vector<double> s(y);
  for (std::size_t i = 1; i + 1 < n; ++i) s[i] = med(y[i - 1], y[i], y[i + 1]);
  s[0] = med(y[0], s[1], 3 * s[1] - 2 * s[2]);
  s[n - 1] = med(y[n - 1], s[n - 2], 3 * s[n - 2] - 2 * s[n - 3]);
  return s;
}
inline double walks(const Counts& c, const std::vector<Curve>& walk) {
  double s = 0;
  for (std::size_t t = 0; t < c.tlb_miss.size(); ++t) s += c.tlb_miss[t] * walk[t].at(c.working_set_bytes);
  return s;
}
// A curve through points (x, y) taken in increasing x, smoothed by the running median of three.
inline Curve smoothed_curve(std::vector<std::pair<double, double>> pts) {
  std::sort(pts.begin(), pts.end());
  Curve c;
  for (const auto& [x, y] : pts) c.log2_bytes.push_back(x), c.value.push_back(y);
  c.value = running_median3(c.value);
  return c;
}
// A 4 KiB-page probe prices the walk only where it walks at all: below this many walks per step
// or input, its time beyond the caches is noise divided by almost nothing.
constexpr double kMinWalksPerStep = 0.05;
inline void residuals(const std::vector<double>& model, const std::vector<double>& measured, double& rms, double& mx) {
  double ss = 0;
  rms = mx = 0;
  for (std::size_t j = 0; j < model.size(); ++j) {
    const double r = model[j] / measured[j] - 1;
    ss += r * r;
    mx = std::max(mx, std::abs(r));
  }
  if (!model.empty()) rms = std::sqrt(ss / double(model.size()));
}
inline double clamp_mlp(double x) { return x > 0 && x == x ? std::min(std::max(x, 1.0), 64.0) : 64.0; }
}  // namespace detail

// Fills every unknown price of `given` (kProbe latencies and walks, 0 mlps) from the probes.
//  1. Latency curves: each 2 MiB-page chase probe, after the other levels' and the walks' share of
//     its time, gives one point of the curve of the level that serves most of it (Gauss-Seidel
//     sweeps, since a probe's share of other levels is priced by their curves).
//  2. The walk of the last probed TLB level: a line over log2 of the working set, fitted to the
//     4 KiB-page chases' time beyond the latencies against their misses; earlier probed levels
//     cost 0.
//  3. Overlaps: each level's mlp a curve through the overlaps its 2 MiB-page update probes imply,
//     and walk_mlp a curve through what the 4 KiB-page updates imply; all kept in [1, 64].
// The overlap curves are smoothed by a running median of three.
// Every fit reports its residual, so a reader sees how far the model is from the probes it was
// fitted to before looking at anything it predicts.
inline Calibrated calibrate(const Prices& given, const ProbeSet& ps) {
  Calibrated out;
  Prices& p = out.prices;
  p = given;
  const std::size_t K = p.latency.size();
  std::vector<bool> lat_unknown(K), mlp_unknown(K);
  for (std::size_t k = 0; k < K; ++k) lat_unknown[k] = p.latency[k].unknown(), mlp_unknown[k] = p.mlp[k].value.size() == 1 && p.mlp[k].value[0] == 0;
  int walk_unknown = -1;
  for (std::size_t t = 0; t < p.walk.size(); ++t)
    if (p.walk[t].unknown()) p.walk[t] = Curve::constant(0), walk_unknown = int(t);
  const bool walk_mlp_unknown = p.walk_mlp.value[0] == 0 && !p.walk.empty();
  p.bytes_per_ns = ps.bytes_per_ns;
  p.sort_count_ns = ps.sort_count_ns, p.sort_scatter_ns = ps.sort_scatter_ns;

  // Every probe's counts must describe the priced hierarchy: a level the counts lack would be read
  // past their end.
  for (const auto* set : {&ps.chase, &ps.update})
    for (const Probe& q : *set)
      if (q.counts.served.size() != K || q.counts.tlb_miss.size() != p.walk.size())
        throw std::invalid_argument("calibrate: a probe's counts have " + std::to_string(q.counts.served.size()) + " levels and " +
                                    std::to_string(q.counts.tlb_miss.size()) + " TLBs, the prices " + std::to_string(K) + " and " +
                                    std::to_string(p.walk.size()));
  std::vector<const Probe*> large, small;
  for (const Probe& q : ps.chase) (q.small_pages ? small : large).push_back(&q);
  std::sort(large.begin(), large.end(), [](const Probe* a, const Probe* b) { return a->counts.working_set_bytes < b->counts.working_set_bytes; });
  // Start each unknown curve flat at its dominant probes' median time per access.
  for (std::size_t k = 0; k < K; ++k) {
    if (!lat_unknown[k]) continue;
    std::vector<double> v;
    for (const Probe* q : large)
      if (detail::dominant(q->counts) == k) v.push_back(q->ns / std::max(q->counts.accesses, 1e-12));
    if (v.empty())  // no probe isolates this level: the nearest probed level's first price
      for (const Probe* q : large) v.push_back(q->ns / std::max(q->counts.accesses, 1e-12));
    std::sort(v.begin(), v.end());
    p.latency[k] = Curve::constant(v.empty() ? 0 : v[v.size() / 2]);
  }
  for (int round = 0; round < 3; ++round) {
    for (int sweep = 0; sweep < 6; ++sweep) {
      std::vector<Curve> next = p.latency;
      for (std::size_t k = 0; k < K; ++k) {
        if (!lat_unknown[k]) continue;
        Curve c;
        for (const Probe* q : large) {
          const Counts& n = q->counts;
          if (detail::dominant(n) != k || n.served[k] <= 0) continue;
          double rest = detail::walks(n, p.walk);
          for (std::size_t j = 0; j < K; ++j)
            if (j != k) rest += n.served[j] * p.latency[j].at(n.working_set_bytes);
          c.log2_bytes.push_back(std::log2(n.working_set_bytes));
          c.value.push_back(std::max(0.0, (q->ns - rest) / n.served[k]));
        }
        if (!c.value.empty()) next[k] = c;
      }
      p.latency = next;
    }
    if (walk_unknown < 0) break;
    // The walk, a + b log2(working set) per miss: weighted least squares of each 4 KiB chase's time
    // beyond the latencies against its misses. A line, not a curve through every chase: the walk
    // is the small difference of two large times there (17 of 150 ns), which one chase's noise of a
    // few percent would move by half.
    double s00 = 0, s01 = 0, s11 = 0, r0 = 0, r1 = 0, lo = 1e300, hi = -1e300;
    for (const Probe* q : small) {
      const Counts& n = q->counts;
      const double x = n.tlb_miss[std::size_t(walk_unknown)];
      if (x < detail::kMinWalksPerStep) continue;
      double y = q->ns;
      for (std::size_t j = 0; j < K; ++j) y -= n.served[j] * p.latency[j].at(n.working_set_bytes);
      for (std::size_t t = 0; t < n.tlb_miss.size(); ++t)
        if (int(t) != walk_unknown) y -= n.tlb_miss[t] * p.walk[t].at(n.working_set_bytes);
      const double lg = std::log2(n.working_set_bytes), w = 1 / (q->ns * q->ns), u = x * lg;
      s00 += w * x * x, s01 += w * x * u, s11 += w * u * u, r0 += w * x * y, r1 += w * u * y;
      lo = std::min(lo, lg), hi = std::max(hi, lg);
    }
    // A walk never gets cheaper as the working set grows: a falling fit is noise, and the level
    // price (the weighted mean) stands in for it.
    const double det = s00 * s11 - s01 * s01;
    const double a = det > 1e-12 * s00 * s11 ? (r0 * s11 - r1 * s01) / det : 0, b = det > 1e-12 * s00 * s11 ? (s00 * r1 - s01 * r0) / det : -1;
    if (hi > lo && b >= 0) {
      p.walk[std::size_t(walk_unknown)] = Curve{{lo, hi}, {std::max(0.0, a + b * lo), std::max(0.0, a + b * hi)}};
    } else if (s00 > 0) {
      p.walk[std::size_t(walk_unknown)] = Curve::constant(std::max(0.0, r0 / s00));
    }
  }
  {
    std::vector<double> model, measured, wm, wmeas;
    for (const Probe* q : large) model.push_back(predict(q->counts, p).sequential_ns), measured.push_back(q->ns);
    for (const Probe* q : small) wm.push_back(predict(q->counts, p).sequential_ns), wmeas.push_back(q->ns);
    detail::residuals(model, measured, out.fit.chase_rms, out.fit.chase_max);
    detail::residuals(wm, wmeas, out.fit.walk_rms, out.fit.walk_max);
    out.fit.chase_probes = int(large.size()), out.fit.walk_probes = int(small.size());
  }
  // Overlaps: each update probe, after the other levels' and the walks' share of its time, gives
  // one overlap of the level whose table updates it times, a point of that level's overlap curve,
  // smoothed by a running median of three (Gauss-Seidel sweeps, as for the latencies; each probe
  // is itself a median of five runs).
  for (std::size_t k = 0; k < K; ++k)
    if (mlp_unknown[k]) p.mlp[k] = Curve::constant(8);
  if (walk_mlp_unknown) p.walk_mlp = Curve::constant(4);
  for (int sweep = 0; sweep < 10 && !ps.update.empty(); ++sweep) {
    for (std::size_t k = 0; k < K; ++k) {
      if (!mlp_unknown[k]) continue;
      std::vector<double> x, y;
      for (const Probe& q : ps.update) {
        const Counts& n = q.counts;
        const double ws = n.working_set_bytes;
        if (detail::overlap_level(n) != k) continue;
        // Its level's share: all of the time for the L1 (the core's), else what the other levels
        // beyond the L1 and the walks leave (predict's max(core, beyond)).
        double rest = 0;
        if (k > 0) {
          rest = detail::walks(n, p.walk) / p.walk_mlp.at(ws);
          for (std::size_t j = 1; j < K; ++j)
            if (j != k) rest += n.served[j] * p.latency[j].at(ws) / p.mlp[j].at(ws);
        }
        const double own = n.served[k] * p.latency[k].at(ws), left = q.ns - rest;
        if (!q.small_pages) x.push_back(std::log2(ws)), y.push_back(detail::clamp_mlp(left > 0 ? own / left : 64));
      }
      if (!x.empty()) p.mlp[k] = Curve{x, detail::running_median3(y)};
    }
    if (walk_mlp_unknown) {  // at each 4 KiB-page update's working set: its walks over the time they leave
      std::vector<std::pair<double, double>> pts;
      for (const Probe& q : ps.update) {
        if (!q.small_pages) continue;
        const Counts& n = q.counts;
        const double ws = n.working_set_bytes;
        if (walk_unknown >= 0 && n.tlb_miss[std::size_t(walk_unknown)] < detail::kMinWalksPerStep) continue;
        double left = q.ns;
        for (std::size_t j = 1; j < K; ++j) left -= n.served[j] * p.latency[j].at(ws) / p.mlp[j].at(ws);
        const double w = detail::walks(n, p.walk);
        pts.emplace_back(std::log2(ws), detail::clamp_mlp(left > 0 ? w / left : 64));
      }
      if (!pts.empty()) p.walk_mlp = detail::smoothed_curve(pts);
    }
  }
  for (std::size_t k = 0; k < K; ++k)  // no update probes: no overlap
    if (p.mlp[k].value.size() == 1 && p.mlp[k].value[0] == 0) p.mlp[k] = Curve::constant(1);
  if (p.walk_mlp.value.size() == 1 && p.walk_mlp.value[0] == 0) p.walk_mlp = Curve::constant(1);
  {
    std::vector<double> model, measured;
    for (const Probe& q : ps.update) model.push_back(predict(q.counts, p).latency_bound_ns), measured.push_back(q.ns);
    detail::residuals(model, measured, out.fit.update_rms, out.fit.update_max);
    out.fit.update_probes = int(ps.update.size());
  }
  return out;
}

}  // namespace lp::cachesim
