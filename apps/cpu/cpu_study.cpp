// The CPU study (thesis chapter 2, issue 6): the sequential scatter, gather, multireduce and
// multiscan over m, random vs sequential labels, 4 KiB vs 2 MiB pages, the enforced-sequential
// multireduce, partial radix sorting, the multithreaded baseline, and the bandwidth and latency
// probes that bound them. The algorithms live in cpu_reference/; this file only feeds them.
#include "cpu_study.hpp"
#include "inputs.hpp"

#include <algorithm>
#include <cstring>
#include <thread>

#include "apps/harness/datagen.hpp"
#include "cpu_reference/cpu_memory/enforced.hpp"
#include "cpu_reference/cpu_memory/huge_pages.hpp"
#include "cpu_reference/cpu_memory/latency.hpp"
#include "cpu_reference/cpu_memory/multiscan.hpp"
#include "cpu_reference/cpu_memory/multithreaded.hpp"
#include "cpu_reference/cpu_memory/perf_counters.hpp"
#include "cpu_reference/cpu_memory/scatter_gather.hpp"
#include "cpu_reference/multireduce/cpu_multireduce.hpp"

namespace lp::cpu_study {

using harness::Params;
using harness::Validation;
using Op = multireduce::Add<std::int32_t>;  // the thesis's default: int32 addition
using T = std::int32_t;

namespace {

// What a variant writes, which decides its output buffers, its minimal traffic and its check.
enum class Out { Buckets, Scatter, Scan, Gather, Sum, Chase };

struct VariantDef {
  const char* name;
  Out out;
  const char* description;
};

const std::vector<VariantDef>& defs() {
  static const std::vector<VariantDef> d = {
      {"multireduce_seq", Out::Buckets, "sequential multireduce (Alg 2.2)"},
      {"multireduce_sorted", Out::Buckets, "partial radix sort by sort_bits, then Alg 2.2 (Alg 2.4)"},
      {"multireduce_enforced", Out::Buckets, "next bucket depends on the value just read: no overlapping loads (Fig 2.8; sorts first if sort_bits > 0)"},
      {"multiscan_seq", Out::Scan, "sequential exclusive multiscan (Alg 2.3)"},
      {"multiscan_sorted", Out::Scan, "partial radix sort, multiscan, results back in input order (Alg 2.5)"},
      {"scatter_seq", Out::Scatter, "sequential scatter, last writer wins (Alg 2.1)"},
      {"gather_seq", Out::Gather, "sequential gather of an m-entry table (section 1.2)"},
      {"gather_sorted", Out::Gather, "gather after a partial radix sort of the labels (Alg 2.6)"},
      {"multireduce_mt", Out::Buckets, "modern baseline: threads with private buckets (m <= 2^16) or radix partitioning (larger m)"},
      {"stream_read", Out::Sum, "bandwidth ceiling: multithreaded sum of n int32 words (an input = a word)"},
      {"pointer_chase", Out::Chase, "latency probe: n dependent loads along a random cycle over m x 4 bytes (ns per input = ns per load)"},
  };
  return d;
}

const VariantDef& def(const std::string& name) { return harness::find_variant(defs(), name, "cpu"); }

// A run-time zero the compiler cannot see through (the enforced variant's dependency mask).
volatile std::uint32_t g_zero = 0;

class CpuPoint final : public harness::Point {
 public:
  CpuPoint(const Params& p, std::uint64_t seed) : seed_(seed) {
    n_ = harness::as_int(p, "n");
    m_ = static_cast<std::uint32_t>(harness::as_int(p, "m"));
    sequential_ = harness::as_str(p, "labels") == "sequential";
    pages_ = cpu::page_kind(harness::as_str(p, "pages"));
    sort_bits_ = int(harness::as_int(p, "sort_bits"));
    threads_axis_ = int(harness::as_int(p, "threads"));
    threads_ = cpu::resolve_threads(threads_axis_);
    // Same generator as the other label-driven studies (and bench cachesim), in memory of the
    // requested page size.
    fill_labels(labels_, n_, m_, harness::as_str(p, "labels"), seed, pages_);
    fill_values(values_, n_, m_, harness::as_str(p, "labels"), seed, pages_);
  }

  double inputs() const override { return double(n_); }

  // Labels and values read once, outputs written once (the gather reads at most min(m, n) table
  // entries; the probes read n words).
  double minimal_bytes(const std::string& variant) const override {
    const double n = double(n_), m = double(m_);
    switch (def(variant).out) {
      case Out::Buckets:
      case Out::Scatter: return 8 * n + 4 * m;
      case Out::Scan: return 12 * n;
      case Out::Gather: return 8 * n + 4 * std::min(m, n);
      case Out::Sum:
      case Out::Chase: return 4 * n;
    }
    return 0;
  }

  void prepare(const std::string& variant) override {
    const Out o = def(variant).out;
    // A variant is measured only where the axes it ignores sit at their defaults: sweeps over
    // sort_bits or threads would otherwise repeat its slowest runs (seconds each at n = 2^26)
    // without telling anything new.
    const bool uses_sort = variant == "multireduce_sorted" || variant == "multiscan_sorted" || variant == "gather_sorted" ||
                           variant == "multireduce_enforced";
    const bool uses_threads = variant == "multireduce_mt" || variant == "stream_read";
    const bool uses_labels = o != Out::Sum && o != Out::Chase;
    if (sort_bits_ != 0 && !uses_sort) throw harness::Unsupported("does not depend on sort_bits: measured where sort_bits = 0");
    if (threads_axis_ != 0 && !uses_threads) throw harness::Unsupported("does not depend on threads: measured where threads = 0");
    if (sequential_ && !uses_labels) throw harness::Unsupported("reads no labels: measured where labels = random");
    if (o == Out::Buckets || o == Out::Scatter || o == Out::Scan) out_.allocate(std::size_t(m_) * sizeof(T), pages_);
    if (o == Out::Scan || o == Out::Gather) scan_.allocate(std::size_t(n_) * sizeof(T), pages_);
    if (o == Out::Gather) {
      table_.allocate(std::size_t(m_) * sizeof(T), pages_);
      T* t = table_.as<T>();
      for (std::uint32_t b = 0; b < m_; ++b) t[b] = T(b * 2654435761u);  // distinct, so a wrong index shows
    }
    if (variant == "multireduce_mt") scratch_.allocate(cpu::multireduce_mt_scratch_bytes<T>(n_, m_, threads_), pages_);
    if (o == Out::Chase) {
      chase_.allocate(std::size_t(m_) * 4, pages_);
      order_ = harness::permutation(m_, harness::derive_seed(seed_, "chase/" + std::to_string(m_)));
      cpu::make_cycle(order_, chase_.as<std::uint32_t>());
    }
  }

  void run(const std::string& variant, void*) override {
    const std::uint32_t* l = labels_.as<std::uint32_t>();
    const T* v = values_.as<T>();
    T* out = out_.as<T>();
    if (variant == "multireduce_seq") cpu::multireduce_sequential<Op>(l, v, n_, m_, out);
    else if (variant == "multireduce_sorted") cpu::multireduce_sorted<Op>(l, v, n_, m_, sort_bits_, out, &sort_scratch_);
    else if (variant == "multireduce_enforced") cpu::multireduce_enforced_sorted<Op>(l, v, n_, m_, sort_bits_, g_zero, out, &sort_scratch_);
    else if (variant == "multiscan_seq") cpu::multiscan_sequential<Op>(l, v, n_, m_, out, scan_.as<T>());
    else if (variant == "multiscan_sorted") cpu::multiscan_sorted<Op>(l, v, n_, m_, sort_bits_, out, scan_.as<T>(), &sort_scratch_);
    else if (variant == "scatter_seq") cpu::scatter_sequential<T>(l, v, n_, m_, T(0), out);
    else if (variant == "gather_seq") cpu::gather_sequential<T>(l, table_.as<T>(), n_, scan_.as<T>());
    else if (variant == "gather_sorted") cpu::gather_sorted<T>(l, table_.as<T>(), n_, m_, sort_bits_, scan_.as<T>(), &sort_scratch_);
    else if (variant == "multireduce_mt") cpu::multireduce_mt<Op>(l, v, n_, m_, threads_, scratch_.data(), out);
    else if (variant == "stream_read") sum_ = cpu::stream_read_sum(v, n_, threads_);
    else if (variant == "pointer_chase") end_ = cpu::pointer_chase(chase_.as<std::uint32_t>(), n_, order_[0]);
    else throw std::logic_error("cpu: no variant '" + variant + "'");
  }

  // Every check is exact (int32 addition wraps, so any order gives the same bits) against the
  // sequential reference or an independent computation.
  Validation validate(const std::string& variant) override {
    const std::uint32_t* l = labels_.as<std::uint32_t>();
    const T* v = values_.as<T>();
    switch (def(variant).out) {
      case Out::Buckets: {
        if (ref_.size() != m_) {
          ref_.resize(m_);
          cpu::multireduce_sequential<Op>(l, v, n_, m_, ref_.data());
        }
        return compare(ref_.data(), out_.as<T>(), m_, "bucket");
      }
      case Out::Scatter: {
        std::vector<T> want(m_, T(0));
        for (std::int64_t i = 0; i < n_; ++i) want[l[i]] = v[i];
        return compare(want.data(), out_.as<T>(), m_, "bucket");
      }
      case Out::Scan: {
        std::vector<T> want(static_cast<std::size_t>(n_)), b(m_);
        cpu::multiscan_sequential<Op>(l, v, n_, m_, b.data(), want.data());
        return compare(want.data(), scan_.as<T>(), std::size_t(n_), "result");
      }
      case Out::Gather: {
        std::vector<T> want(static_cast<std::size_t>(n_));
        cpu::gather_sequential<T>(l, table_.as<T>(), n_, want.data());
        return compare(want.data(), scan_.as<T>(), std::size_t(n_), "result");
      }
      case Out::Sum: {
        std::int64_t want = 0;
        for (std::int64_t i = 0; i < n_; ++i) want += v[i];
        return want == sum_ ? Validation::pass() : Validation::fail("sum: expected " + std::to_string(want) + ", got " + std::to_string(sum_));
      }
      case Out::Chase: {
        // A single cycle through order_: after n steps from order_[0] the chase is at order_[n mod m].
        const std::uint32_t want = order_[std::size_t(n_ % m_)];
        return want == end_ ? Validation::pass() : Validation::fail("chase ended at " + std::to_string(end_) + ", expected " + std::to_string(want));
      }
    }
    return Validation::skipped("unknown output");
  }

  void release(const std::string&) override {
    out_.release(), scan_.release(), table_.release(), scratch_.release(), chase_.release();
    order_.clear();
    sort_scratch_ = {};
  }

  // Huge-page evidence for every region the variant touched, and counter rates over one extra run.
  Params metrics(const std::string& variant) override {
    Params p;
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges;
    std::int64_t region = 0;
    bool fell_back = false;
    std::string note;
    for (const cpu::Region* r : {&labels_, &values_, &out_, &scan_, &table_, &scratch_, &chase_}) {
      if (!*r) continue;
      if ((variant == "pointer_chase" && r != &chase_) || (variant == "stream_read" && r != &values_)) continue;
      const auto a = reinterpret_cast<std::uintptr_t>(r->data());
      ranges.push_back({a, a + r->mapped_bytes()});
      region += std::int64_t(r->mapped_bytes());
      fell_back |= r->got() != r->asked();
      if (note.empty()) note = r->note();
    }
    const std::int64_t huge = cpu::huge_page_bytes(ranges);
    p["region_bytes"] = region;
    p["huge_page_bytes"] = huge < 0 ? harness::Value(std::string("unavailable")) : harness::Value(huge);
    p["huge_pages"] = cpu::huge_page_status(pages_, fell_back, huge, region);
    if (!note.empty()) p["huge_pages_note"] = note;
    // Counters: one extra run after the timed ones (their own overhead stays out of the timings).
    cpu::PerfCounters pc;
    pc.start();
    run(variant, nullptr);
    for (const auto& c : pc.stop()) {
      if (c.available) p[c.name + "_per_input"] = n_ ? double(c.count) / double(n_) : 0.0;
      else p[c.name + "_per_input"] = std::string("unavailable");
      if (!c.available && !p.count("counters_note")) p["counters_note"] = c.why;
    }
    return p;
  }

 private:
  static Validation compare(const T* want, const T* got, std::size_t k, const char* what) {
    for (std::size_t i = 0; i < k; ++i)
      if (want[i] != got[i])
        return Validation::fail(std::string(what) + " " + std::to_string(i) + ": expected " + std::to_string(want[i]) + ", got " + std::to_string(got[i]));
    return Validation::pass();
  }

  std::uint64_t seed_;
  std::int64_t n_ = 0;
  std::uint32_t m_ = 1;
  bool sequential_ = false;
  cpu::PageKind pages_ = cpu::PageKind::Small4k;
  int sort_bits_ = 0, threads_ = 1, threads_axis_ = 0;
  cpu::Region labels_, values_, out_, scan_, table_, scratch_, chase_;
  std::vector<T> ref_;
  // The partial sorts' output, kept across a variant's runs: the warm-up sizes it and faults its
  // pages, so the timed runs measure the sort, not the allocator.
  cpu::SortScratch<T> sort_scratch_;
  std::vector<std::uint32_t> order_;
  std::int64_t sum_ = 0;
  std::uint32_t end_ = 0;
};

}  // namespace

class CpuStudy final : public harness::Study {
 public:
  std::string name() const override { return "cpu"; }
  std::string description() const override {
    return "CPU memory hierarchy (thesis ch. 2): sequential, sorted, enforced and multithreaded multireduce, multiscan, scatter, gather; bandwidth and latency probes; int32 add";
  }
  std::vector<harness::AxisSpec> axes() const override {
    using harness::AxisKind;
    using V = harness::Value;
    return {
        {"n", AxisKind::Size, "inputs (label-value pairs; loads for pointer_chase, words for stream_read)", {V(std::int64_t(1) << 26)}, {}, 1, std::int64_t(1) << 30},
        {"m", AxisKind::Size, "buckets (table entries for gather; pointer_chase working set = m x 4 bytes)", {V(std::int64_t(1) << 20)}, {}, 1, std::int64_t(1) << 28},
        {"labels", AxisKind::Choice, "random (uniform) or sequential (label i mod m, Fig 2.5)", {V(std::string("random"))}, {"random", "sequential"}},
        {"pages", AxisKind::Choice, "4k (THP off), 2m (THP via madvise), hugetlb (MAP_HUGETLB; falls back to 4k and says 'refused' where none are reserved)", {V(std::string("4k"))}, {"4k", "2m", "hugetlb"}},
        {"sort_bits", AxisKind::Int, "top label bits of the partial radix sort (the *_sorted variants and multireduce_enforced); 0 = no sort", {V(std::int64_t(0))}, {}, 0, 24},
        {"threads", AxisKind::Int, "threads of multireduce_mt and stream_read (0 = hardware concurrency)", {V(std::int64_t(0))}, {}, 0, 1024},
    };
  }
  std::vector<harness::VariantSpec> variants() const override {
    std::vector<harness::VariantSpec> out;
    for (const auto& d : defs()) out.push_back({d.name, harness::VariantKind::Cpu, d.description});
    return out;
  }
  std::string default_config() const override { return kDefaultConfig; }
  std::string check_params(const Params& p) const override {
    // Indices are uint32 (Algs 2.5 and 2.6 carry input positions).
    if (harness::as_int(p, "n") > std::int64_t(UINT32_MAX)) return "n: at most 2^32 - 1 inputs (positions are uint32)";
    // sort_bits beyond the label width is clamped (as Alg 2.4 is), not refused: one sweep can
    // pair a sort_bits value with small and large m.
    return {};
  }
  std::unique_ptr<harness::Point> make_point(const Params& p, std::uint64_t seed, bool) const override {
    return std::make_unique<CpuPoint>(p, seed);
  }
};

std::unique_ptr<harness::Study> make_study() { return std::make_unique<CpuStudy>(); }

}  // namespace lp::cpu_study
