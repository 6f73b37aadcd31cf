// The CPU study (thesis chapter 2): the sequential scatter, gather, multireduce and
// multiscan over m, random vs sequential labels, 4 KiB vs 2 MiB pages, the enforced-sequential
// multireduce, partial radix sorting, the multithreaded baseline, and the bandwidth and latency
// probes that bound them. The algorithms live in cpu_reference/; this file only feeds them.
#include "cpu_study.hpp"
#include "inputs.hpp"

#include <algorithm>
#include <cstring>
#include <thread>

#include "apps/harness/datagen.hpp"
#include "apps/harness/framework.hpp"
#include "cpu_reference/cpu_memory/enforced.hpp"
#include "cpu_reference/cpu_memory/huge_pages.hpp"
#include "cpu_reference/cpu_memory/latency.hpp"
#include "cpu_reference/cpu_memory/multiscan.hpp"
#include "cpu_reference/cpu_memory/multithreaded.hpp"
#include "cpu_reference/cpu_memory/multireduce_owned.hpp"
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

// What a launcher sees: the inputs, the knobs and the outputs its Out names.
struct Ctx {
  const std::uint32_t* labels = nullptr;
  const T* values = nullptr;
  std::int64_t n = 0;
  std::uint32_t m = 1;
  int sort_bits = 0, threads = 1;
  T* out = nullptr;            // m buckets (Buckets, Scatter, Scan)
  T* results = nullptr;        // n results (Scan, Gather)
  const T* table = nullptr;    // Gather: m entries
  void* scratch = nullptr;     // multireduce_mt
  cpu::SortScratch<T>* sort_scratch = nullptr;
  const std::uint32_t* chase = nullptr;
  std::uint32_t chase_start = 0;
  std::int64_t sum = 0;    // stream_read's result
  std::uint32_t end = 0;   // pointer_chase's result
};

// Which axes a variant depends on: it is measured only where the others sit at their defaults.
struct Props {
  Out out = Out::Buckets;
  bool uses_sort = false, uses_threads = false;
};

using Variant = harness::Variant<Ctx, Props>;
using Variants = harness::VariantTable<Variant>;

// A run-time zero the compiler cannot see through (the enforced variant's dependency mask).
volatile std::uint32_t g_zero = 0;

void add_variants(Variants& d) {
  using harness::VariantKind;
  const VariantKind K = VariantKind::Cpu;
  d.add({"multireduce_seq", K, "sequential multireduce (Alg 2.2)", {Out::Buckets}, {}, {},
         [](Ctx& c) { cpu::multireduce_sequential<Op>(c.labels, c.values, c.n, c.m, c.out); }});
  d.add({"multireduce_sorted", K, "partial radix sort by sort_bits, then Alg 2.2 (Alg 2.4)", {Out::Buckets, true}, {}, {},
         [](Ctx& c) { cpu::multireduce_sorted<Op>(c.labels, c.values, c.n, c.m, c.sort_bits, c.out, c.sort_scratch); }});
  d.add({"multireduce_enforced", K, "next bucket depends on the value just read: no overlapping loads (Fig 2.8; sorts first if sort_bits > 0)",
         {Out::Buckets, true}, {}, {},
         [](Ctx& c) { cpu::multireduce_enforced_sorted<Op>(c.labels, c.values, c.n, c.m, c.sort_bits, g_zero, c.out, c.sort_scratch); }});
  d.add({"multiscan_seq", K, "sequential exclusive multiscan (Alg 2.3)", {Out::Scan}, {}, {},
         [](Ctx& c) { cpu::multiscan_sequential<Op>(c.labels, c.values, c.n, c.m, c.out, c.results); }});
  d.add({"multiscan_sorted", K, "partial radix sort, multiscan, results back in input order (Alg 2.5)", {Out::Scan, true}, {}, {},
         [](Ctx& c) { cpu::multiscan_sorted<Op>(c.labels, c.values, c.n, c.m, c.sort_bits, c.out, c.results, c.sort_scratch); }});
  d.add({"scatter_seq", K, "sequential scatter, last writer wins (Alg 2.1)", {Out::Scatter}, {}, {},
         [](Ctx& c) { cpu::scatter_sequential<T>(c.labels, c.values, c.n, c.m, T(0), c.out); }});
  d.add({"gather_seq", K, "sequential gather of an m-entry table (section 1.2)", {Out::Gather}, {}, {},
         [](Ctx& c) { cpu::gather_sequential<T>(c.labels, c.table, c.n, c.results); }});
  d.add({"gather_sorted", K, "gather after a partial radix sort of the labels (Alg 2.6)", {Out::Gather, true}, {}, {},
         [](Ctx& c) { cpu::gather_sorted<T>(c.labels, c.table, c.n, c.m, c.sort_bits, c.results, c.sort_scratch); }});
  d.add({"multireduce_mt", K, "modern baseline: threads with private buckets, or owned bucket ranges where one copy takes more than 4 L2s and there are 8 threads or more (chosen from m, the threads and the host's L2)",
         {Out::Buckets, false, true}, {},
         [](const Ctx& c) { return cpu::multireduce_mt_scratch_bytes<T>(c.n, c.m, c.threads); },
         [](Ctx& c) { cpu::multireduce_mt<Op>(c.labels, c.values, c.n, c.m, c.threads, c.scratch, c.out); }});
  d.add({"multireduce_private", K, "multireduce_mt's private buckets at every m (threads x m buckets, then a merge): the threads study measures where they stop paying",
         {Out::Buckets, false, true}, {},
         [](const Ctx& c) { return cpu::multireduce_mt_scratch_bytes<T>(c.n, c.m, c.threads, cpu::MtPath::Private); },
         [](Ctx& c) { cpu::multireduce_mt<Op>(c.labels, c.values, c.n, c.m, c.threads, c.scratch, c.out, cpu::MtPath::Private); }});
  d.add({"multireduce_partition", K, "multireduce_mt's radix partitioning at every m",
         {Out::Buckets, false, true}, {},
         [](const Ctx& c) { return cpu::multireduce_mt_scratch_bytes<T>(c.n, c.m, c.threads, cpu::MtPath::Partition); },
         [](Ctx& c) { cpu::multireduce_mt<Op>(c.labels, c.values, c.n, c.m, c.threads, c.scratch, c.out, cpu::MtPath::Partition); }});
  d.add({"multireduce_owned", K, "multireduce_mt's owned ranges at every m: threads each own m / threads buckets; each splits its slice of a block by owner, the owners apply the runs, up to 4 blocks apart (no barrier)",
         {Out::Buckets, false, true}, {},
         [](const Ctx& c) { return cpu::multireduce_owned_scratch_bytes<T>(c.threads); },
         [](Ctx& c) { cpu::multireduce_owned<Op>(c.labels, c.values, c.n, c.m, c.threads, c.scratch, c.out); }});
  d.add({"stream_read", K, "bandwidth ceiling: multithreaded sum of n int32 words (an input = a word)", {Out::Sum, false, true}, {}, {},
         [](Ctx& c) { c.sum = cpu::stream_read_sum(c.values, c.n, c.threads); }});
  d.add({"pointer_chase", K, "latency probe: n dependent loads along a random cycle over m x 4 bytes (ns per input = ns per load)",
         {Out::Chase}, {}, {}, [](Ctx& c) { c.end = cpu::pointer_chase(c.chase, c.n, c.chase_start); }});
}

const Variants& table() {
  static const Variants t("cpu", {add_variants});
  return t;
}

class CpuPoint final : public harness::TablePoint<Variant> {
 public:
  CpuPoint(const Params& p, std::uint64_t seed) : TablePoint(table()), seed_(seed) {
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
    ctx_.labels = labels_.as<std::uint32_t>();
    ctx_.values = values_.as<T>();
    ctx_.n = n_;
    ctx_.m = m_;
    ctx_.sort_bits = sort_bits_;
    ctx_.threads = threads_;
    ctx_.sort_scratch = &sort_scratch_;
  }

  double inputs() const override { return double(n_); }

 private:
  // Labels and values read once, outputs written once (the gather reads at most min(m, n) table
  // entries; the probes read n words).
  double bytes(const Variant& d) const override {
    const double n = double(n_), m = double(m_);
    switch (d.props.out) {
      case Out::Buckets:
      case Out::Scatter: return 8 * n + 4 * m;
      case Out::Scan: return 12 * n;
      case Out::Gather: return 8 * n + 4 * std::min(m, n);
      case Out::Sum:
      case Out::Chase: return 4 * n;
    }
    return 0;
  }

  // A variant is measured only where the axes it ignores sit at their defaults: sweeps over
  // sort_bits or threads would otherwise repeat its slowest runs (seconds each at n = 2^26)
  // without telling anything new.
  std::string skip_reason(const Variant& d) const override {
    const Out o = d.props.out;
    if (sort_bits_ != 0 && !d.props.uses_sort) return "does not depend on sort_bits: measured where sort_bits = 0";
    if (threads_axis_ != 0 && !d.props.uses_threads) return "does not depend on threads: measured where threads = 0";
    if (sequential_ && (o == Out::Sum || o == Out::Chase)) return "reads no labels: measured where labels = random";
    return TablePoint::skip_reason(d);
  }

  void allocate(const Variant& d) override {
    const Out o = d.props.out;
    if (o == Out::Buckets || o == Out::Scatter || o == Out::Scan) out_.allocate(std::size_t(m_) * sizeof(T), pages_);
    if (o == Out::Scan || o == Out::Gather) scan_.allocate(std::size_t(n_) * sizeof(T), pages_);
    if (o == Out::Gather) {
      table_.allocate(std::size_t(m_) * sizeof(T), pages_);
      T* t = table_.as<T>();
      for (std::uint32_t b = 0; b < m_; ++b) t[b] = T(b * 2654435761u);  // distinct, so a wrong index shows
    }
    if (d.scratch) scratch_.allocate(d.scratch(ctx_), pages_);
    if (o == Out::Chase) {
      chase_.allocate(std::size_t(m_) * 4, pages_);
      order_ = harness::permutation(m_, harness::derive_seed(seed_, "chase/" + std::to_string(m_)));
      cpu::make_cycle(order_, chase_.as<std::uint32_t>());
      ctx_.chase_start = order_[0];
    }
    ctx_.out = out_.as<T>();
    ctx_.results = scan_.as<T>();
    ctx_.table = table_.as<T>();
    ctx_.scratch = scratch_.data();
    ctx_.chase = chase_.as<std::uint32_t>();
  }

  // Every check is exact (int32 addition wraps, so any order gives the same bits) against the
  // sequential reference or an independent computation.
  Validation check(const Variant& d) override {
    const std::uint32_t* l = labels_.as<std::uint32_t>();
    const T* v = values_.as<T>();
    switch (d.props.out) {
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
        return want == ctx_.sum ? Validation::pass() : Validation::fail("sum: expected " + std::to_string(want) + ", got " + std::to_string(ctx_.sum));
      }
      case Out::Chase: {
        // A single cycle through order_: after n steps from order_[0] the chase is at order_[n mod m].
        const std::uint32_t want = order_[std::size_t(n_ % m_)];
        return want == ctx_.end ? Validation::pass() : Validation::fail("chase ended at " + std::to_string(ctx_.end) + ", expected " + std::to_string(want));
      }
    }
    return Validation::skipped("unknown output");
  }

  void deallocate(const Variant&) override {
    out_.release(), scan_.release(), table_.release(), scratch_.release(), chase_.release();
    order_.clear();
    sort_scratch_ = {};
  }

  // Huge-page evidence for every region the variant touched, and counter rates over one extra run.
  Params measured(const Variant& d) override {
    Params p;
    std::vector<std::pair<std::uintptr_t, std::uintptr_t>> ranges;
    std::int64_t region = 0;
    bool fell_back = false;
    std::string note;
    for (const cpu::Region* r : {&labels_, &values_, &out_, &scan_, &table_, &scratch_, &chase_}) {
      if (!*r) continue;
      if ((d.props.out == Out::Chase && r != &chase_) || (d.props.out == Out::Sum && r != &values_)) continue;
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
    run(d.name, nullptr);
    for (const auto& c : pc.stop()) {
      if (c.available) p[c.name + "_per_input"] = n_ ? double(c.count) / double(n_) : 0.0;
      else p[c.name + "_per_input"] = std::string("unavailable");
      if (!c.available && !p.count("counters_note")) p["counters_note"] = c.why;
    }
    return p;
  }

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
};

}  // namespace

std::unique_ptr<harness::Study> make_study() {
  using harness::AxisKind;
  using V = harness::Value;
  harness::StudyDecl s{"cpu",
                       "CPU memory hierarchy (thesis ch. 2): sequential, sorted, enforced and multithreaded multireduce, multiscan, scatter, gather; bandwidth and latency probes; int32 add",
                       kDefaultConfig};
  s.axes = {
      {"n", AxisKind::Size, "inputs (label-value pairs; loads for pointer_chase, words for stream_read)", {V(std::int64_t(1) << 26)}, {}, 1, std::int64_t(1) << 30},
      {"m", AxisKind::Size, "buckets (table entries for gather; pointer_chase working set = m x 4 bytes)", {V(std::int64_t(1) << 20)}, {}, 1, std::int64_t(1) << 28},
      {"labels", AxisKind::Choice, "random (uniform) or sequential (label i mod m, Fig 2.5)", {V(std::string("random"))}, {"random", "sequential"}},
      {"pages", AxisKind::Choice, "4k (THP off), 2m (THP via madvise), hugetlb (MAP_HUGETLB; falls back to 4k and says 'refused' where none are reserved)", {V(std::string("4k"))}, {"4k", "2m", "hugetlb"}},
      {"sort_bits", AxisKind::Int, "top label bits of the partial radix sort (the *_sorted variants and multireduce_enforced); 0 = no sort", {V(std::int64_t(0))}, {}, 0, 24},
      {"threads", AxisKind::Int, "threads of multireduce_mt and stream_read (0 = hardware concurrency)", {V(std::int64_t(0))}, {}, 0, 1024},
  };
  s.variants = table().specs();
  s.check_params = [](const Params& p) -> std::string {
    // Indices are uint32 (Algs 2.5 and 2.6 carry input positions).
    if (harness::as_int(p, "n") > std::int64_t(UINT32_MAX)) return "n: at most 2^32 - 1 inputs (positions are uint32)";
    // sort_bits beyond the label width is clamped (as Alg 2.4 is), not refused: one sweep can
    // pair a sort_bits value with small and large m.
    return {};
  };
  s.make_point = [](const Params& p, std::uint64_t seed, bool) -> std::unique_ptr<harness::Point> { return std::make_unique<CpuPoint>(p, seed); };
  return harness::declare_study(std::move(s));
}

}  // namespace lp::cpu_study
