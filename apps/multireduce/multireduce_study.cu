// The multireduce study (thesis chapter 4): every variant family against the CPU reference, the
// peers (CUB, Thrust, plain atomics) and the copy ceiling, over n, m, label distribution, operator,
// value type and the variants' own knobs.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <map>
#include <sstream>

#include "apps/harness/datagen.hpp"
#include "apps/harness/device_buffer.hpp"
#include "cpu_reference/multireduce/cpu_multireduce.hpp"
#include "multireduce_study.hpp"
#include "values.hpp"
#include "variant.hpp"

namespace lp::multireduce_study {

using harness::DeviceBuffer;
using harness::Params;
using harness::VariantKind;
using multireduce::Affine32;

namespace {

template <class Op>
const Defs<Op>& defs() {
  static const Defs<Op> list = [] {
    Defs<Op> d;
    add_modern_variants<Op>(d);
    add_perbank_variants<Op>(d);
    add_sequential_variants<Op>(d);
    add_sort_variants<Op>(d);
    add_peer_variants<Op>(d);
    add_cpu_variants<Op>(d);
    return d;
  }();
  return list;
}

template <class Op>
const Def<Op>& def(const std::string& name) {
  return harness::find_variant(defs<Op>(), name, "multireduce");
}

// Input values per operator (values.hpp), all ones for counting, and the input index for "last"
// (the result names the last writer).
template <class Op>
std::vector<typename Op::value_type> make_values(std::int64_t n, bool ones, std::uint64_t seed) {
  using T = typename Op::value_type;
  std::vector<T> v(static_cast<std::size_t>(n));
  if constexpr (std::is_same_v<Op, multireduce::Last>) {
    for (std::int64_t i = 0; i < n; ++i) v[i] = static_cast<std::int32_t>(i);
  } else {
    if constexpr (!std::is_same_v<T, Affine32>)
      if (ones) {
        std::fill(v.begin(), v.end(), T(1));
        return v;
      }
    harness::parallel_fill(v, seed, [](harness::Rng& r, std::size_t) { return random_value<T>(r); });
  }
  return v;
}

template <class Op>
class MultireducePoint final : public harness::Point {
  using T = typename Op::value_type;

 public:
  MultireducePoint(const Params& p, std::uint64_t seed, bool device) : device_(device) {
    n_ = harness::as_int(p, "n");
    m_ = static_cast<std::uint32_t>(harness::as_int(p, "m"));
    ones_ = harness::as_str(p, "values") == "ones";
    tune_.threads = int(harness::as_int(p, "threads"));
    tune_.blocks_per_sm = int(harness::as_int(p, "blocks_per_sm"));
    tune_.n_items = int(harness::as_int(p, "n_items"));
    tune_.n_sets = int(harness::as_int(p, "n_sets"));
    tune_.sort_bits = int(harness::as_int(p, "sort_bits"));
    tune_.cluster = int(harness::as_int(p, "cluster"));
    const std::string& tr = harness::as_str(p, "transpose");
    tune_.transpose = tr == "baxter" ? Tuning::Transpose::Baxter : tr == "segment" ? Tuning::Transpose::Segment : Tuning::Transpose::Padded;
    const std::string dist = harness::as_str(p, "distribution");
    const std::string tag = std::to_string(n_) + "/" + std::to_string(m_) + "/" + dist + "/" +
                            harness::to_string(p.at("zipf_s")) + "/" + Op::name + "/" + multireduce::TypeName<T>::value;
    labels_ = harness::labels(n_, m_, dist, harness::as_real(p, "zipf_s"), harness::derive_seed(seed, "labels/" + tag));
    values_ = make_values<Op>(n_, ones_, harness::derive_seed(seed, "values/" + tag));
    if (device_) {
      d_labels_.upload(labels_);
      d_values_.upload(values_);
    }
  }

  double inputs() const override { return static_cast<double>(n_); }

  double minimal_bytes(const std::string& variant) const override {
    const double n = double(n_), m = double(m_), t = sizeof(T);
    switch (def<Op>(variant).output) {
      case Output::CountOnly: return 4 * n + 4 * m;
      case Output::ScanOfSorted: return (4 + 2 * t) * n;
      case Output::SegmentsOfSorted: return (4 + t) * n + (4 + t) * double(distinct_labels());
      default: return (4 + t) * n + t * m;
    }
  }

  void prepare(const std::string& variant) override {
    const Def<Op>& d = def<Op>(variant);
    if (d.needs_commutative && !Op::commutative)
      throw harness::Unsupported(std::string("needs a commutative operator; '") + Op::name + "' is not");
    if (!d.run) throw harness::Unsupported(std::string("not defined for op '") + Op::name + "'");
    if (d.output == Output::CountOnly && !ones_) throw harness::Unsupported("a histogram: only where every value is 1 (values = ones)");
    if (d.unsupported) {
      std::string why = d.unsupported(n_, m_, tune_);
      if (!why.empty()) throw harness::Unsupported(why);
    }
    if (d.kind == VariantKind::Cpu) {
      host_out_.assign(m_, T{});
      return;
    }
    if (d.output == Output::SegmentsOfSorted || d.output == Output::ScanOfSorted) upload_sorted();
    out_.resize(d.output == Output::ScanOfSorted ? std::size_t(n_) : std::size_t(m_));
    out_.poison();
    if (d.output == Output::SegmentsOfSorted) {
      out_keys_.resize(m_);
      out_keys_.poison();
    }
    scratch_.resize(d.scratch ? d.scratch(n_, m_, tune_) : 0);
  }

  void run(const std::string& variant, void* stream) override {
    Ctx<Op> c;
    c.labels = d_labels_.get();
    c.values = d_values_.get();
    c.n = n_;
    c.m = m_;
    c.out = out_.get();
    c.scratch = scratch_.get();
    c.scratch_bytes = scratch_.size();
    c.tune = tune_;
    c.stream = static_cast<cudaStream_t>(stream);
    c.host_labels = labels_.data();
    c.host_values = values_.data();
    c.host_out = host_out_.data();
    c.host_sort_scratch = &sort_scratch_;
    c.sorted_labels = d_sorted_labels_.get();
    c.sorted_values = d_sorted_values_.get();
    c.out_keys = out_keys_.get();
    def<Op>(variant).run(c);
  }

  harness::Validation validate(const std::string& variant) override {
    const Def<Op>& d = def<Op>(variant);
    const std::vector<T>& want = reference();
    std::string bad;
    if (d.output == Output::ScanOfSorted) {
      // An inclusive scan by key: the last element of each run is its bucket's value.
      std::vector<T> got = out_.download();
      for (std::int64_t i = 0; i < n_ && bad.empty(); ++i)
        if (i + 1 == n_ || sorted_labels_[i + 1] != sorted_labels_[i]) bad = compare_bucket(sorted_labels_[i], got[i]);
    } else if (d.output == Output::SegmentsOfSorted) {
      // (key, value) per run of equal keys, in key order; the remaining slots are never written.
      std::vector<std::uint32_t> keys = out_keys_.download();
      std::vector<T> got = out_.download();
      std::int64_t runs = distinct_labels();
      std::uint32_t prev = 0;
      for (std::int64_t r = 0; r < runs && bad.empty(); ++r) {
        if (keys[r] >= m_ || (r > 0 && keys[r] <= prev)) bad = "keys[" + std::to_string(r) + "] = " + std::to_string(keys[r]) + " out of order";
        else bad = compare_bucket(keys[r], got[r]);
        prev = keys[r];
      }
    } else {
      std::vector<T> got = d.kind == VariantKind::Cpu ? host_out_ : out_.download();
      for (std::uint32_t b = 0; b < m_ && bad.empty(); ++b) bad = compare_bucket(b, got[b]);
    }
    return bad.empty() ? harness::Validation::pass() : harness::Validation::fail(bad);
  }

  std::string reference_checksum(const std::string&) override { return harness::checksum_hex(reference()); }

  void release(const std::string&) override {
    out_.reset();
    out_keys_.reset();
    scratch_.reset();
    host_out_.clear();
    sort_scratch_ = {};
  }

 private:
  // Exact for integers and the affine and "last" operators. Float sums depend on the order of the
  // additions: a bucket with k inputs may differ from the double-precision reference by
  // 2 * sqrt(k) * u * sum|v| + u * |sum| (u = 2^-24). The first term bounds the rounding of partial
  // sums that wander like sqrt(k) times the values (zero-mean inputs); it admits every summation
  // order (atomics, trees, sequential) and still catches a lost or doubled input of |v| > that.
  std::string compare_bucket(std::uint32_t b, const T& got) {
    const T& want = reference()[b];
    bool ok;
    if constexpr (std::is_floating_point_v<T>) {
      const double u = std::ldexp(1.0, -24);
      double tol = 2 * std::sqrt(double(count_[b])) * u * abs_sum_[b] + u * std::fabs(double(want));
      ok = std::fabs(double(got) - exact_[b]) <= tol;
      if (!ok)
        return "bucket " + std::to_string(b) + ": expected " + show(want) + " (+-" + show(float(tol)) + "), got " + show(got);
    } else {
      ok = got == want;
    }
    return ok ? "" : "bucket " + std::to_string(b) + ": expected " + show(want) + ", got " + show(got);
  }

  const std::vector<T>& reference() {
    if (ref_.size() == m_) return ref_;
    ref_.resize(m_);
    cpu::multireduce_sequential<Op>(labels_.data(), values_.data(), n_, m_, ref_.data());
    if constexpr (std::is_floating_point_v<T>) {
      exact_.assign(m_, 0.0);
      abs_sum_.assign(m_, 0.0);
      count_.assign(m_, 0);
      for (std::int64_t i = 0; i < n_; ++i) {
        exact_[labels_[i]] += values_[i];
        abs_sum_[labels_[i]] += std::fabs(double(values_[i]));
        ++count_[labels_[i]];
      }
      for (std::uint32_t b = 0; b < m_; ++b) ref_[b] = static_cast<T>(exact_[b]);
    }
    return ref_;
  }

  std::int64_t distinct_labels() const {
    if (distinct_ < 0) {
      std::vector<bool> seen(m_, false);
      std::int64_t k = 0;
      for (std::uint32_t l : labels_) k += seen[l] ? 0 : (seen[l] = true, 1);
      distinct_ = k;
    }
    return distinct_;
  }

  // The stable sort by label that the pre-sorted peers start from (not timed: Fig 3.6 measures
  // the by-key operation alone).
  void upload_sorted() {
    if (!sorted_labels_.empty()) return;
    std::vector<std::int64_t> start(std::size_t(m_) + 1, 0);
    for (std::uint32_t l : labels_) ++start[l + 1];
    for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
    sorted_labels_.resize(n_);
    std::vector<T> sv(n_);
    for (std::int64_t i = 0; i < n_; ++i) {
      std::int64_t at = start[labels_[i]]++;
      sorted_labels_[at] = labels_[i];
      sv[at] = values_[i];
    }
    d_sorted_labels_.upload(sorted_labels_);
    d_sorted_values_.upload(sv);
  }

  bool device_;
  std::int64_t n_ = 0;
  std::uint32_t m_ = 0;
  bool ones_ = false;
  Tuning tune_;
  mutable std::int64_t distinct_ = -1;
  std::vector<std::uint32_t> labels_, sorted_labels_;
  std::vector<T> values_, ref_, host_out_;
  cpu::SortScratch<T> sort_scratch_;  // cpu_sorted's partial sort output, reused across its runs
  std::vector<double> exact_, abs_sum_;
  std::vector<std::int64_t> count_;
  DeviceBuffer<std::uint32_t> d_labels_, d_sorted_labels_, out_keys_;
  DeviceBuffer<T> d_values_, d_sorted_values_, out_;
  DeviceBuffer<char> scratch_;
};

// Which operators work on which value types (the `op` and `type` axes).
const std::map<std::string, std::vector<std::string>>& op_types() {
  static const std::map<std::string, std::vector<std::string>> t = {
      {"add", {"int32", "int64", "float32"}}, {"min", {"int32"}}, {"max", {"int32"}}, {"affine", {"uint32x2"}}, {"last", {"int32"}}};
  return t;
}

}  // namespace

class MultireduceStudy final : public harness::Study {
 public:
  std::string name() const override { return "multireduce"; }
  std::string description() const override {
    return "multireduce (thesis ch. 4): sequential adaptations, per-bank, sort-based and modern variants vs CUB, Thrust, atomics and the CPU";
  }
  std::vector<harness::AxisSpec> axes() const override {
    using harness::AxisKind;
    using V = harness::Value;
    return {
        {"n", AxisKind::Size, "inputs (label-value pairs)", {V(std::int64_t(1) << 26)}, {}, 1, std::int64_t(1) << 30},
        {"m", AxisKind::Size, "buckets: labels are in [0, m)", {V(std::int64_t(256))}, {}, 1, std::int64_t(1) << 28},
        {"distribution", AxisKind::Choice, "labels: uniform, degenerate (all m-1), sorted, zipf (exponent zipf_s)", {V(std::string("uniform"))}, {"uniform", "degenerate", "sorted", "zipf"}},
        {"zipf_s", AxisKind::Real, "zipf exponent (distribution zipf only)", {V(1.0)}, {}},
        {"op", AxisKind::Choice, "operator: add, min, max, affine (composition of x->ax+b, non-commutative), last (scatter, non-commutative)", {V(std::string("add"))}, {"add", "min", "max", "affine", "last"}},
        {"type", AxisKind::Choice, "value type: int32, int64, float32 (add); int32 (min, max, last); uint32x2 (affine)", {V(std::string("int32"))}, {"int32", "int64", "float32", "uint32x2"}},
        {"values", AxisKind::Choice, "random, or ones (a count: the histogram special case, where CUB DeviceHistogram joins)", {V(std::string("random"))}, {"random", "ones"}},
        {"threads", AxisKind::Int, "threads per block (0: the variant's default)", {V(std::int64_t(0))}, {}, 0, 1024},
        {"blocks_per_sm", AxisKind::Int, "resident blocks per SM the grid is sized for (0: default)", {V(std::int64_t(0))}, {}, 0, 32},
        {"n_items", AxisKind::Int, "items per thread per step (0: default)", {V(std::int64_t(0))}, {}, 0, 64},
        {"n_sets", AxisKind::Int, "bucket sets of global_comm (0: default 8)", {V(std::int64_t(0))}, {}, 0, 1 << 20},
        {"sort_bits", AxisKind::Int, "top label bits sorted by first (cpu_sorted, global_comm, global_noncomm_sorted)", {V(std::int64_t(0))}, {}, 0, 32},
        {"cluster", AxisKind::Int, "thread-block cluster size (0: default)", {V(std::int64_t(0))}, {}, 0, 16},
        {"transpose", AxisKind::Choice, "transposition of the non-commutative variants: padded (Alg 4.7), segment (Alg 4.6), baxter (Alg 4.5)", {V(std::string("padded"))}, {"padded", "segment", "baxter"}},
    };
  }
  std::vector<harness::VariantSpec> variants() const override {
    std::vector<harness::VariantSpec> out;
    for (const auto& d : defs<multireduce::Add<std::int32_t>>()) out.push_back({d.name, d.kind, d.description});
    return out;
  }
  std::string default_config() const override { return kDefaultConfig; }
  std::string check_params(const Params& p) const override {
    const std::string& op = harness::as_str(p, "op");
    const std::string& type = harness::as_str(p, "type");
    const auto& ok = op_types().at(op);
    if (std::find(ok.begin(), ok.end(), type) == ok.end()) {
      std::string list;
      for (const auto& t : ok) list += (list.empty() ? "" : ", ") + t;
      return "type: op '" + op + "' works on " + list + ", not '" + type + "'";
    }
    if (harness::as_str(p, "values") == "ones" && op != "add") return "values: 'ones' (a count) needs op 'add'";
    if (harness::as_real(p, "zipf_s") <= 0) return "zipf_s: the zipf exponent must be > 0";
    if (op == "last" && harness::as_int(p, "n") > (std::int64_t(1) << 31) - 1) return "n: op 'last' stores input indices as int32";
    return {};
  }
  std::unique_ptr<harness::Point> make_point(const Params& p, std::uint64_t seed, bool device) const override {
    using namespace multireduce;
    const std::string& op = harness::as_str(p, "op");
    const std::string& type = harness::as_str(p, "type");
    if (op == "add" && type == "int32") return std::make_unique<MultireducePoint<Add<std::int32_t>>>(p, seed, device);
    if (op == "add" && type == "int64") return std::make_unique<MultireducePoint<Add<std::int64_t>>>(p, seed, device);
    if (op == "add") return std::make_unique<MultireducePoint<Add<float>>>(p, seed, device);
    if (op == "min") return std::make_unique<MultireducePoint<Min<std::int32_t>>>(p, seed, device);
    if (op == "max") return std::make_unique<MultireducePoint<Max<std::int32_t>>>(p, seed, device);
    if (op == "affine") return std::make_unique<MultireducePoint<Compose>>(p, seed, device);
    return std::make_unique<MultireducePoint<Last>>(p, seed, device);
  }
};

std::unique_ptr<harness::Study> make_study() { return std::make_unique<MultireduceStudy>(); }

}  // namespace lp::multireduce_study
