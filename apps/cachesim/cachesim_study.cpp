// The cache-simulator study (thesis §2.4): replay the access streams of the sequential
// multireduce (Alg 2.2) and its partial-sort form (Alg 2.4) through a simulated hierarchy, predict
// ns per input with the thesis's sequential model and with an overlapping-miss model calibrated by
// host probes, measure the same algorithms on the same inputs (where the hierarchy is this host),
// and recommend the sort bits. The simulator and the models live in cpu_reference/cachesim/; this
// file only feeds them.
#include "cachesim_study.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>

#include "apps/harness/datagen.hpp"
#include "apps/harness/framework.hpp"
#include "cpu_reference/cachesim/cache_sim.hpp"
#include "cpu_reference/cachesim/presets.hpp"
#include "cpu_reference/cachesim/streams.hpp"
#include "cpu_reference/cachesim/timing.hpp"
#include "cpu_reference/cpu_memory/enforced.hpp"
#include "cpu_reference/cpu_memory/huge_pages.hpp"
#include "cpu_reference/cpu_memory/latency.hpp"
#include "cpu_reference/cpu_memory/multithreaded.hpp"
#include "cpu_reference/cpu_memory/scatter_gather.hpp"
#include "apps/cpu/inputs.hpp"
#include "host_hierarchy.hpp"

namespace lp::cachesim_study {

using harness::Params;
using harness::Validation;
using Op = multireduce::Add<std::int32_t>;
using T = std::int32_t;
namespace cs = lp::cachesim;

namespace {

// ---- hierarchies -------------------------------------------------------------------------------

// A preset name, "host" (sysfs) or a JSON file. Throws ConfigError / runtime_error with one line.
cs::Hierarchy load_hierarchy(const std::string& spec) {
  for (const auto& p : cs::presets())
    if (spec == p.name) return cs::preset(spec);
  nlohmann::json j;
  if (spec == "host") {
    j = host_hierarchy_json();
  } else {
    std::ifstream f(spec);
    if (!f) throw cs::ConfigError("'" + spec + "' is neither a preset (core2-t7300, opteron-6274, dev-vm, gpu-host), \"host\" nor a readable JSON file");
    try {
      j = nlohmann::json::parse(f);
    } catch (const std::exception& e) {
      throw cs::ConfigError(spec + ": not JSON (" + e.what() + ")");
    }
  }
  try {
    return cs::parse_hierarchy(j);
  } catch (const cs::ConfigError& e) {
    throw cs::ConfigError(spec + ": " + e.what());
  }
}

// The same hierarchy with its TLBs mapping pages of `page_bytes` (2 MiB pages: the same entries
// reach 512x further, as the separate large-page TLBs of real cores do).
cs::Hierarchy with_pages(cs::Hierarchy h, std::uint64_t page_bytes) {
  for (auto& t : h.tlbs) t.page_bytes = page_bytes;
  return h;
}

std::vector<std::string> level_names(const cs::Hierarchy& h) {
  std::vector<std::string> out;
  for (const auto& l : h.levels) out.push_back(l.name);
  out.push_back("memory");
  return out;
}

template <class F>
double median_ns_per(std::int64_t units, int runs, F&& f) {
  std::vector<double> t;
  for (int r = 0; r < runs; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / double(units));
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

std::uint64_t pow2_floor(std::uint64_t x) {
  std::uint64_t p = 1;
  while (p * 2 <= x) p *= 2;
  return p;
}

// ---- calibration ----------------------------------------------------------------------------

struct Calibration {
  cs::Calibrated cal;                // the prices and how well they fit the probes
  cs::ProbeSet probes;               // what the probes measured, for the record
  std::string pages_note;            // what the 2 MiB-page probes actually got
};

// The probes' working sets (a curve, not one point per level): every octave from a
// quarter of the L1 to 4x the last level (at least 256 MiB) on 2 MiB pages, and from 4 MiB up on
// 4 KiB pages as well (where the TLBs stop reaching and walks begin).
std::vector<std::uint64_t> probe_sets(const cs::Hierarchy& h) {
  std::vector<std::uint64_t> w;
  const std::uint64_t top = std::max<std::uint64_t>(pow2_floor(h.levels.back().size_bytes) * 4, std::uint64_t(256) << 20);
  for (std::uint64_t b = std::max<std::uint64_t>(pow2_floor(h.levels.front().size_bytes) / 4, 4096); b <= top; b *= 2) w.push_back(b);
  return w;
}
constexpr std::uint64_t kSmallPageProbesFrom = std::uint64_t(4) << 20;

struct ProbeResult {
  cs::Probe chase, update;
  std::string pages_note;
};

// One working set: the measured chase and update on `pages` (medians of five after a warm-up), and
// the simulator's counts for the same streams (the same cycle and the same labels) on the
// hierarchy with matching TLB pages.
ProbeResult probe(const cs::Hierarchy& h, std::uint64_t bytes, cpu::PageKind pages, std::uint64_t seed, bool with_counts) {
  ProbeResult r;
  const std::uint32_t words = std::uint32_t(bytes / 4);
  const bool beyond_l2 = h.levels.size() > 1 && bytes > h.levels[1].size_bytes;
  const std::int64_t steps = beyond_l2 ? (std::int64_t(1) << 20) : (std::int64_t(1) << 22);
  const std::int64_t inputs = std::int64_t(1) << 22, sim_inputs = std::int64_t(1) << 20;
  cpu::Region next(bytes, pages), table(bytes, pages), labels(std::size_t(inputs) * 4, pages);
  if (next.got() != next.asked()) r.pages_note = next.note().empty() ? "huge pages refused" : next.note();
  // One cycle through all `words` slots (a power of two) in scattered order, built in one
  // sequential pass: x -> a x + c mod words with c odd and a = 1 mod 4 has full period
  // (Hull-Dobell). A shuffled permutation of 2^28 slots takes minutes where every access misses.
  harness::Rng pick(harness::derive_seed(seed, "probe-chase/" + std::to_string(bytes)));
  const std::uint64_t a = (pick.next() << 2) | 1, c = pick.next() | 1;
  std::uint32_t* nx = next.as<std::uint32_t>();
  for (std::uint64_t x = 0; x < words; ++x) nx[x] = std::uint32_t((a * x + c) & (words - 1));
  const auto lab = harness::labels(inputs, words, "uniform", 1.0, harness::derive_seed(seed, "probe-update/" + std::to_string(bytes)));
  std::memcpy(labels.data(), lab.data(), lab.size() * 4);
  T* tab = table.as<T>();
  for (std::uint32_t i = 0; i < words; ++i) tab[i] = T(i);
  volatile std::uint32_t sink = 0;
  sink = cpu::pointer_chase(next.as<std::uint32_t>(), std::min<std::int64_t>(words, steps), 0u);
  r.chase.ns = median_ns_per(steps, 5, [&] { sink = cpu::pointer_chase(next.as<std::uint32_t>(), steps, 0u); });
  cpu::update_sequential<T>(labels.as<std::uint32_t>(), inputs, tab);
  r.update.ns = median_ns_per(inputs, 5, [&] { cpu::update_sequential<T>(labels.as<std::uint32_t>(), inputs, tab); });
  (void)sink;
  r.chase.small_pages = r.update.small_pages = pages == cpu::PageKind::Small4k;
  if (!with_counts) return r;
  const cs::Hierarchy hp = with_pages(h, pages == cpu::PageKind::Small4k ? 4096 : cpu::kHugePage);
  const double ws = double(bytes);
  {
    cs::Simulator sim(hp);
    auto acc = [&](std::uint64_t a, bool w) { sim.access(a, w); };
    const std::int64_t sim_steps = std::int64_t(1) << 20;
    std::uint32_t p = cs::chase_stream(next.as<std::uint32_t>(), std::min<std::int64_t>(words, std::int64_t(1) << 22), 0u, acc);
    const cs::Stats before = sim.stats();
    cs::chase_stream(next.as<std::uint32_t>(), sim_steps, p, acc);
    r.chase.counts = cs::counts_between(before, sim.stats(), double(sim_steps), ws, 1);
  }
  {
    cs::Simulator sim(hp);
    auto acc = [&](std::uint64_t a, bool w) { sim.access(a, w); };
    cs::update_stream(labels.as<std::uint32_t>(), sim_inputs, acc);
    const cs::Stats before = sim.stats();
    cs::update_stream(labels.as<std::uint32_t>() + sim_inputs, sim_inputs, acc);
    r.update.counts = cs::counts_between(before, sim.stats(), double(sim_inputs), ws, 1);
  }
  return r;
}

// One core's read bandwidth with 1..kMaxStreams columns read side by side (the floor's).
constexpr int kMaxStreams = 4;
std::vector<double> read_bandwidth() {
  const std::int64_t words = std::int64_t(16) << 20;  // 64 MiB a column
  std::vector<cpu::Region> cols;
  std::vector<const T*> ptr;
  for (int c = 0; c < kMaxStreams; ++c) {
    cols.emplace_back(std::size_t(words) * 4, cpu::PageKind::Thp2m);
    std::memset(cols.back().data(), c + 1, std::size_t(words) * 4);
    ptr.push_back(cols.back().as<T>());
  }
  std::vector<double> out;
  for (int s = 1; s <= kMaxStreams; ++s) {
    volatile std::uint32_t sum = cpu::stream_read_columns(ptr.data(), s, words);
    const double ns = median_ns_per(1, 5, [&] { sum = cpu::stream_read_columns(ptr.data(), s, words); });
    (void)sum;
    out.push_back(double(words) * 4 * s / ns);
  }
  return out;
}

// The partial sort's count and scatter passes (cpu::partial_sort_count / _scatter, the code Alg
// 2.4 runs) on this host at every sort bits 1..kMaxProbedSortBits: 2^b runs of labels and of
// values, so 2^(b+1) write streams at most 512. Uniform labels over 2^24 buckets (the digits are
// uniform at any m), 2^22 inputs (32 MiB of pairs, beyond the L2s; the ns per input hardly moves
// with n beyond them), the inputs on 4 KiB pages and the runs in the sort's own vectors, as the
// measured variants have them; medians of five after a warm-up.
constexpr int kMaxProbedSortBits = 8;
void probe_sort(cs::ProbeSet& ps, std::uint64_t seed) {
  const std::int64_t n = std::int64_t(1) << 22;
  const std::uint32_t m = 1u << 24;
  cpu::Region labels(std::size_t(n) * 4, cpu::PageKind::Small4k), values(std::size_t(n) * 4, cpu::PageKind::Small4k);
  const auto lab = harness::labels(n, m, "uniform", 1.0, harness::derive_seed(seed, "probe-sort"));
  std::memcpy(labels.data(), lab.data(), lab.size() * 4);
  for (std::int64_t i = 0; i < n; ++i) values.as<T>()[i] = T(i);
  const std::uint32_t* l = labels.as<std::uint32_t>();
  cpu::SortScratch<T> s;
  ps.sort_count_ns.assign(kMaxProbedSortBits + 1, 0);
  ps.sort_scatter_ns.assign(kMaxProbedSortBits + 1, 0);
  for (int b = 1; b <= kMaxProbedSortBits; ++b) {
    cpu::partial_sort_count(l, n, m, b, s);
    const std::vector<std::int64_t> start = s.start;
    cpu::partial_sort_scatter(l, values.as<T>(), n, m, b, false, s);
    ps.sort_count_ns[std::size_t(b)] = median_ns_per(n, 5, [&] { cpu::partial_sort_count(l, n, m, b, s); });
    ps.sort_scatter_ns[std::size_t(b)] = median_ns_per(n, 5, [&] {
      std::copy(start.begin(), start.end(), s.start.begin());
      cpu::partial_sort_scatter(l, values.as<T>(), n, m, b, false, s);
    });
  }
}

// Keeps the core busy for `ms` milliseconds: a virtual CPU that has been idle runs its first
// probes slower (the H200's host timed its first, 8 KiB update probe at twice the 32 KiB one's).
void warm_up(int ms) {
  volatile std::uint64_t x = 1;
  for (const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms); std::chrono::steady_clock::now() < end;)
    for (int i = 0; i < 1000; ++i) x = x * 6364136223846793005ull + 1442695040888963407ull;
}

// Every probe twice, the working sets in rising order and then in falling order, each keeping the
// faster of its two medians: the host is a shared VM whose speed drifts within a run, and noise
// only ever adds time. The counts are the simulator's and the same in both rounds.
Calibration calibrate(const cs::Hierarchy& h, std::uint64_t seed) {
  Calibration c;
  warm_up(300);
  std::vector<std::pair<std::uint64_t, cpu::PageKind>> plan;
  for (std::uint64_t w : probe_sets(h)) {
    plan.emplace_back(w, cpu::PageKind::Thp2m);
    if (w >= kSmallPageProbesFrom) plan.emplace_back(w, cpu::PageKind::Small4k);
  }
  std::vector<ProbeResult> first;
  for (const auto& [w, pages] : plan) first.push_back(probe(h, w, pages, seed, true));
  for (std::size_t i = plan.size(); i-- > 0;) {
    const ProbeResult again = probe(h, plan[i].first, plan[i].second, seed, false);
    first[i].chase.ns = std::min(first[i].chase.ns, again.chase.ns);
    first[i].update.ns = std::min(first[i].update.ns, again.update.ns);
  }
  for (const ProbeResult& r : first) {
    if (c.pages_note.empty()) c.pages_note = r.pages_note;
    c.probes.chase.push_back(r.chase), c.probes.update.push_back(r.update);
  }
  c.probes.bytes_per_ns = read_bandwidth();
  probe_sort(c.probes, seed);
  c.cal = cs::calibrate(cs::prices_of(h), c.probes);
  return c;
}

// Calibrations are made once per process for each (hierarchy, seed): the probes take seconds, and
// the seed places their buffers, so a calibration is keyed on both.
const Calibration& calibration_for(const std::string& spec, const cs::Hierarchy& h, std::uint64_t seed) {
  static std::map<std::pair<std::string, std::uint64_t>, Calibration> cache;
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  const auto key = std::make_pair(spec, seed);
  auto it = cache.find(key);
  if (it == cache.end()) {
    Calibration c;
    if (cs::needs_calibration(h)) c = calibrate(h, seed);
    else c.cal.prices = cs::prices_of(h);
    it = cache.emplace(key, std::move(c)).first;
  }
  return it->second;
}

// ---- the point ---------------------------------------------------------------------------------

class CachesimPoint;

// The variants drive the point's own machinery (the simulator, the host's measured runs): the
// context is the point.
struct Ctx {
  CachesimPoint* point = nullptr;
};

enum class Does { Measure, MeasureEnforced, Simulate, Recommend, Replay };
struct Props {
  Does does = Does::Simulate;
};

using Variant = harness::Variant<Ctx, Props>;
using Variants = harness::VariantTable<Variant>;

const Variants& table();

class CachesimPoint final : public harness::TablePoint<Variant> {
 public:
  CachesimPoint(const Params& p, std::uint64_t seed) : TablePoint(table()), seed_(seed) {
    ctx_.point = this;
    n_ = harness::as_int(p, "n");
    m_ = static_cast<std::uint32_t>(harness::as_int(p, "m"));
    sort_bits_ = int(harness::as_int(p, "sort_bits"));
    max_sort_bits_ = int(harness::as_int(p, "max_sort_bits"));
    pages_ = cpu::page_kind(harness::as_str(p, "pages"));
    spec_ = harness::as_str(p, "hierarchy");
    described_ = load_hierarchy(spec_);
    hierarchy_ = with_pages(described_, pages_ == cpu::PageKind::Small4k ? 4096 : cpu::kHugePage);
    host_ = cs::needs_calibration(described_);
    // The same labels as `bench cpu` at the same seed, n, m and label kind.
    const std::string kind = harness::as_str(p, "labels");
    kind_ = kind;
    cpu_study::fill_labels(labels_, n_, m_, kind, seed, pages_);
  }

  double inputs() const override { return double(n_); }

  // What the variants run. Alg 2.2 / 2.4 on this host, plain or with each bucket read waiting for
  // the previous one (Fig 2.8), timed here as well for the models' error.
  void measure(bool enforced) {
    const std::uint32_t* l = labels_.as<std::uint32_t>();
    const auto t0 = std::chrono::steady_clock::now();
    if (!enforced) cpu::multireduce_sorted<Op>(l, values_.as<T>(), n_, m_, sort_bits_, buckets_.as<T>(), &scratch_);
    else cpu::multireduce_enforced_sorted<Op>(l, values_.as<T>(), n_, m_, sort_bits_, g_zero_, buckets_.as<T>(), &scratch_);
    measured_[enforced ? "measured_enforced" : "measured_multireduce"].push_back(
        std::chrono::duration<double, std::nano>(std::chrono::steady_clock::now() - t0).count() / double(n_));
  }
  void simulate_point() { last_ = simulate(sort_bits_); }
  // The sweep is a deterministic replay of this point's labels: the harness's repetitions reuse
  // the first (the point's parameters fix everything it depends on), so a repetition costs nothing.
  void sweep_sort_bits() {
    if (!sweep_.empty()) return;
    const int top = std::min(max_sort_bits_, cpu::label_bits(m_));
    for (int b = 0; b <= top; ++b) sweep_.push_back(simulate(b));
  }

 private:
  double bytes(const Variant&) const override { return 8.0 * double(n_) + 4.0 * double(m_); }

  std::string skip_reason(const Variant& d) const override {
    const bool measured = d.props.does == Does::Measure || d.props.does == Does::MeasureEnforced;
    if (measured && !host_) return "the hierarchy '" + spec_ + "' is not this host's (its timings are given, not probed)";
    if (d.props.does == Does::Recommend && sort_bits_ != 0) return "sweeps sort_bits itself: runs where sort_bits = 0";
    if (d.props.does == Does::Recommend && std::min(max_sort_bits_, cpu::label_bits(m_)) == 0)
      return "nothing to choose: max_sort_bits or the label width is 0";
    return TablePoint::skip_reason(d);
  }

  void allocate(const Variant& d) override {
    if (d.props.does == Does::Measure || d.props.does == Does::MeasureEnforced) {
      if (!values_) cpu_study::fill_values(values_, n_, m_, kind_, seed_, pages_);
      buckets_.allocate(std::size_t(m_) * 4, pages_);
    }
    // The host's probes run once per hierarchy, here, outside any timed region; the replay alone
    // (the simulator's speed) prices nothing and needs none.
    if (d.props.does == Does::Replay) return;
    calibration_ = &calibration_for(spec_, described_, seed_);
    prices_ = calibration_->cal.prices;
  }

  Validation check(const Variant& d) override {
    if (d.props.does == Does::Simulate || d.props.does == Does::Replay) return check_run(last_);
    if (d.props.does == Does::Recommend) {
      for (const auto& s : sweep_)
        if (Validation v = check_run(s); v.status != Validation::Status::Pass) return v;
      return Validation::pass();
    }
    if (ref_.empty()) {
      ref_.resize(m_);
      cpu::multireduce_sequential<Op>(labels_.as<std::uint32_t>(), values_.as<T>(), n_, m_, ref_.data());
    }
    const T* got = buckets_.as<T>();
    for (std::uint32_t b = 0; b < m_; ++b)
      if (got[b] != ref_[b])
        return Validation::fail("bucket " + std::to_string(b) + ": expected " + std::to_string(ref_[b]) + ", got " + std::to_string(got[b]));
    return Validation::pass();
  }

  void deallocate(const Variant&) override {
    buckets_.release();
    scratch_ = {};
  }

  Params measured(const Variant& d) override {
    Params p;
    const auto names = level_names(hierarchy_);
    // The prices as read at working set `ws`, the fit behind them and the probes they came from.
    auto put_prices = [&](double ws) {
      for (std::size_t k = 0; k < names.size(); ++k) {
        p["latency_ns." + names[k]] = prices_.latency[k].at(ws);
        p["mlp." + names[k]] = prices_.mlp[k].at(ws);
      }
      for (std::size_t t = 0; t < hierarchy_.tlbs.size(); ++t) p["walk_ns." + hierarchy_.tlbs[t].name] = prices_.walk[t].at(ws);
      p["walk_mlp"] = prices_.walk_mlp.at(ws);
      for (std::size_t s = 0; s < prices_.bytes_per_ns.size(); ++s) p["bandwidth_GBps.streams_" + std::to_string(s + 1)] = prices_.bytes_per_ns[s];
      const Calibration& c = *calibration_;
      if (c.probes.chase.empty()) return;
      const cs::FitReport& f = c.cal.fit;
      p["fit.chase_rms"] = f.chase_rms, p["fit.chase_max"] = f.chase_max, p["fit.chase_probes"] = std::int64_t(f.chase_probes);
      p["fit.walk_rms"] = f.walk_rms, p["fit.walk_max"] = f.walk_max, p["fit.walk_probes"] = std::int64_t(f.walk_probes);
      p["fit.update_rms"] = f.update_rms, p["fit.update_max"] = f.update_max, p["fit.update_probes"] = std::int64_t(f.update_probes);
      // The probes: measured ns per step (chase) and per input (update) at each working set, on
      // 2 MiB pages and ("_4k") on 4 KiB pages; the latency curves are read from the chases.
      auto put_probe = [&](const char* what, const cs::Probe& q) {
        const std::string at = std::to_string(std::uint64_t(q.counts.working_set_bytes) >> 10) + "KiB";
        p[std::string("probe.") + what + (q.small_pages ? "_4k." : ".") + at] = q.ns;
      };
      for (const cs::Probe& q : c.probes.chase) put_probe("chase_ns", q);
      for (const cs::Probe& q : c.probes.update) put_probe("update_ns", q);
      auto put_curve = [&](const std::string& key, const cs::Curve& cv) {
        for (std::size_t i = 0; i < cv.value.size() && cv.value.size() > 1; ++i)
          p[key + std::to_string(std::uint64_t(std::exp2(cv.log2_bytes[i])) >> 10) + "KiB"] = cv.value[i];
      };
      for (std::size_t k = 0; k < names.size(); ++k) {
        put_curve("latency_curve." + names[k] + ".", prices_.latency[k]);
        put_curve("mlp_curve." + names[k] + ".", prices_.mlp[k]);
      }
      for (std::size_t t = 0; t < hierarchy_.tlbs.size(); ++t) put_curve("walk_curve." + hierarchy_.tlbs[t].name + ".", prices_.walk[t]);
      put_curve("walk_mlp_curve.", prices_.walk_mlp);
      // The partial sort's passes as probed, ns per input by sort bits.
      for (std::size_t b = 1; b < c.probes.sort_scatter_ns.size(); ++b) {
        p["probe.sort_count_ns.bits_" + std::to_string(b)] = c.probes.sort_count_ns[b];
        p["probe.sort_scatter_ns.bits_" + std::to_string(b)] = c.probes.sort_scatter_ns[b];
      }
      if (!c.pages_note.empty()) p["probe.pages_note"] = c.pages_note;
    };
    auto put_counts = [&](const cs::Counts& c) {
      for (std::size_t k = 0; k < names.size(); ++k) p["served_per_input." + names[k]] = c.served[k];
      for (std::size_t t = 0; t < hierarchy_.tlbs.size(); ++t) p["tlb_misses_per_input." + hierarchy_.tlbs[t].name] = c.tlb_miss[t];
      p["memory_lines_per_input"] = c.memory_lines;
      p["simulated_accesses_per_s"] = double(last_.stats.accesses) / last_.seconds;
    };
    if (d.props.does == Does::Replay) {
      put_counts(cs::counts_between(empty_stats(), last_.stats, double(n_)));
      p["simulated_accesses"] = std::int64_t(last_.stats.accesses);
      return p;
    }
    if (d.props.does == Does::Simulate) {
      put_counts(cs::counts_between(empty_stats(), last_.stats, double(n_)));
      const std::vector<cs::Counts> phases = phase_counts(last_);
      const cs::Prediction pr = cs::predict(phases, prices_);
      for (std::size_t i = 0; i < phases.size(); ++i)
        p[std::string("predicted_ns.phase.") + last_.phases[i].name] = cs::predict(phases[i], prices_).overlap_ns;
      p["predicted_ns.sequential"] = pr.sequential_ns;
      p["predicted_ns.overlap"] = pr.overlap_ns;
      p["predicted_ns.latency_bound"] = pr.latency_bound_ns;
      p["predicted_ns.bandwidth_bound"] = pr.bandwidth_bound_ns;
      // The model's error: the overlap model against the measured algorithm; the thesis's model
      // against the measured algorithm (how far off it is) and against the enforced one (what it
      // describes).
      if (double m = measured_median("measured_multireduce"); m > 0) {
        p["measured_ns"] = m;
        p["error.overlap"] = pr.overlap_ns / m - 1;
        p["error.sequential"] = pr.sequential_ns / m - 1;
      }
      if (double m = measured_median("measured_enforced"); m > 0) {
        p["measured_enforced_ns"] = m;
        p["error.sequential_vs_enforced"] = pr.sequential_ns / m - 1;
      }
      put_prices(phases.back().working_set_bytes);
    } else if (d.props.does == Does::Recommend) {
      int best_seq = 0, best_ovl = 0;
      std::vector<cs::Prediction> pr;
      for (const auto& s : sweep_) pr.push_back(cs::predict(phase_counts(s), prices_));
      for (std::size_t b = 0; b < pr.size(); ++b) {
        p["sequential_ns.bits_" + std::to_string(b)] = pr[b].sequential_ns;
        p["overlap_ns.bits_" + std::to_string(b)] = pr[b].overlap_ns;
        if (pr[b].sequential_ns < pr[best_seq].sequential_ns) best_seq = int(b);
        if (pr[b].overlap_ns < pr[best_ovl].overlap_ns) best_ovl = int(b);
      }
      p["recommended_sort_bits.sequential"] = std::int64_t(best_seq);
      p["recommended_sort_bits.overlap"] = std::int64_t(best_ovl);
      put_prices(4.0 * m_);
    } else {
      p["pages_got"] = std::string(labels_.got() == labels_.asked() ? "as asked" : "fell back: " + labels_.note());
    }
    return p;
  }

  struct Run {
    cs::Stats stats;
    std::vector<cs::PhaseInfo> phases;
    std::vector<cs::Stats> phase_start;  // the counts when each phase began
    double seconds = 0;
    std::uint64_t expected_accesses = 0;
    int sort_bits = 0;  // as effective for this m
  };

  Run simulate(int bits) {
    Run r;
    cs::Simulator sim(hierarchy_);
    auto phase = [&](const cs::PhaseInfo& ph) {
      r.phases.push_back(ph);
      r.phase_start.push_back(sim.stats());
    };
    const auto t0 = std::chrono::steady_clock::now();
    cs::multireduce_sorted_stream(labels_.as<std::uint32_t>(), n_, m_, bits, sorted_, [&](std::uint64_t a, bool w) { sim.access(a, w); }, phase);
    r.stats = sim.stats();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    // Alg 2.2: m initial stores, then 3 accesses per input. Alg 2.4 adds the sort: 2^b + 1 starts
    // cleared, 2 per input counting, 2^b prefix updates, 5 per input scattering.
    const int b = cpu::effective_sort_bits(m_, bits);
    const std::uint64_t n = std::uint64_t(n_), d = std::uint64_t(1) << b;
    r.expected_accesses = m_ + 3 * n + (b ? (d + 1) + 2 * n + d + 5 * n : 0);
    r.sort_bits = b;
    return r;
  }

  // Each phase's counts per input, with its working set and stream count.
  std::vector<cs::Counts> phase_counts(const Run& r) const {
    std::vector<cs::Counts> out;
    for (std::size_t i = 0; i < r.phases.size(); ++i) {
      out.push_back(cs::counts_between(r.phase_start[i], i + 1 < r.phases.size() ? r.phase_start[i + 1] : r.stats, double(n_),
                                       r.phases[i].working_set_bytes, r.phases[i].streams));
      out.back().phase = r.phases[i].name, out.back().sort_bits = r.sort_bits;
    }
    return out;
  }

  // Every core access is served by exactly one level (or memory), and the stream has exactly the
  // algorithm's accesses.
  static Validation check_run(const Run& r) {
    std::uint64_t served = 0;
    for (auto s : r.stats.served) served += s;
    if (r.stats.accesses != r.expected_accesses)
      return Validation::fail("simulated " + std::to_string(r.stats.accesses) + " accesses, the algorithm makes " + std::to_string(r.expected_accesses));
    if (served != r.stats.accesses)
      return Validation::fail("levels served " + std::to_string(served) + " of " + std::to_string(r.stats.accesses) + " accesses");
    return Validation::pass();
  }

  cs::Stats empty_stats() const {
    cs::Stats s;
    s.served.assign(hierarchy_.levels.size() + 1, 0);
    for (const auto& t : hierarchy_.tlbs) s.tlbs.push_back({t.name});
    return s;
  }

  // The median of the variant's runs at this point, without the first where there are four or more
  // (the harness's warm-up, or the coldest timed run), as the harness's own median leaves the
  // warm-up out; of three runs, the middle one (dropping one of three left the slower of two).
  double measured_median(const std::string& v) const {
    auto it = measured_.find(v);
    if (it == measured_.end() || it->second.empty()) return 0;
    std::vector<double> t(it->second.size() > 3 ? it->second.begin() + 1 : it->second.begin(), it->second.end());
    std::sort(t.begin(), t.end());
    return t[(t.size() - 1) / 2];  // of an even count, the lower middle: noise only adds time
  }

  std::uint64_t seed_;
  std::int64_t n_ = 0;
  std::uint32_t m_ = 1;
  int sort_bits_ = 0, max_sort_bits_ = 6;
  cpu::PageKind pages_ = cpu::PageKind::Small4k;
  std::string spec_, kind_;
  cs::Hierarchy described_;  // as the spec states it (TLB pages as given; timings maybe "probe")
  cs::Hierarchy hierarchy_;  // simulated: TLB pages of the point's page size
  bool host_ = false;
  cs::Prices prices_;
  const Calibration* calibration_ = nullptr;
  cpu::Region labels_, values_, buckets_;
  cpu::SortScratch<T> scratch_;
  std::vector<std::uint32_t> sorted_;
  std::vector<T> ref_;
  std::map<std::string, std::vector<double>> measured_;
  Run last_;
  std::vector<Run> sweep_;
  volatile std::uint32_t g_zero_ = 0;  // the enforced variant's dependency mask, opaque to the compiler
};

void add_variants(Variants& d) {
  using harness::VariantKind;
  d.add({"measured_multireduce", VariantKind::Cpu,
         "this host: Alg 2.2 (sort_bits = 0) or Alg 2.4, the same inputs as the stream simulated (runs where the hierarchy is this host's: it has probed timings)",
         {Does::Measure}, {}, {}, [](Ctx& c) { c.point->measure(false); }});
  d.add({"measured_enforced", VariantKind::Cpu,
         "this host: the same with each bucket read waiting for the previous one (Fig 2.8), what the sequential model assumes",
         {Does::MeasureEnforced}, {}, {}, [](Ctx& c) { c.point->measure(true); }});
  d.add({"simulate", VariantKind::Cpu,
         "replays Alg 2.2 / Alg 2.4's accesses through the hierarchy; time = simulation; metrics: counts and both models' ns per input (and their error where the measured variants ran first)",
         {Does::Simulate}, {}, {}, [](Ctx& c) { c.point->simulate_point(); }});
  d.add({"replay", VariantKind::Cpu,
         "the simulator's speed: replays Alg 2.2 / 2.4's accesses through the hierarchy and prices nothing (no probes, any hierarchy on any host); metrics: counts and simulated accesses per second",
         {Does::Replay}, {}, {}, [](Ctx& c) { c.point->simulate_point(); }});
  d.add({"recommend_sort_bits", VariantKind::Cpu, "simulates Alg 2.4 for sort_bits 0..max_sort_bits and reports the best per model",
         {Does::Recommend}, {}, {}, [](Ctx& c) { c.point->sweep_sort_bits(); }});
}

const Variants& table() {
  static const Variants t("cachesim", {add_variants});
  return t;
}

}  // namespace

std::unique_ptr<harness::Study> make_study() {
  using harness::AxisKind;
  using V = harness::Value;
  harness::StudyDecl s{"cachesim",
                       "cache simulator (thesis §2.4): Alg 2.2/2.4 access streams through a described hierarchy, the thesis's sequential timing model and a calibrated overlapping-miss model, against the same algorithms measured on this host",
                       kDefaultConfig};
  s.axes = {
      {"n", AxisKind::Size, "inputs (label-value pairs)", {V(std::int64_t(1) << 26)}, {}, 1, std::int64_t(1) << 30},
      {"m", AxisKind::Size, "buckets", {V(std::int64_t(1) << 20)}, {}, 1, std::int64_t(1) << 28},
      {"labels", AxisKind::Choice, "random (uniform, the generator and seed of bench cpu) or sequential (i mod m)", {V(std::string("random"))}, {"random", "sequential"}},
      {"pages", AxisKind::Choice, "4k or 2m (THP): the measured variants' memory and the simulated TLBs' page size", {V(std::string("4k"))}, {"4k", "2m"}},
      {"sort_bits", AxisKind::Int, "top label bits of Alg 2.4's partial radix sort; 0 = Alg 2.2", {V(std::int64_t(0))}, {}, 0, 24},
      {"max_sort_bits", AxisKind::Int, "recommend_sort_bits: the largest sort_bits it simulates", {V(std::int64_t(6))}, {}, 0, 24},
      {"hierarchy", AxisKind::Choice, "a preset (core2-t7300, opteron-6274, dev-vm, gpu-host), host (from sysfs) or a JSON file; \"probe\"/\"calibrate\" timings are measured on this host", {V(std::string("dev-vm"))}, {}},
  };
  s.variants = table().specs();
  // A hierarchy that does not parse or validate stops the run before any work, naming the key.
  s.check_params = [](const Params& p) -> std::string {
    try {
      load_hierarchy(harness::as_str(p, "hierarchy"));
    } catch (const std::exception& e) {
      return std::string("hierarchy: ") + e.what();
    }
    if (harness::as_int(p, "n") > std::int64_t(UINT32_MAX)) return "n: at most 2^32 - 1 inputs";
    return {};
  };
  s.make_point = [](const Params& p, std::uint64_t seed, bool) -> std::unique_ptr<harness::Point> { return std::make_unique<CachesimPoint>(p, seed); };
  return harness::declare_study(std::move(s));
}

}  // namespace lp::cachesim_study
