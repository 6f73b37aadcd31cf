// The multiscan study (thesis chapter 5): every variant family against the CPU reference, the peers
// (CUB sort + scan-by-key + scatter, Thrust on pre-sorted keys) and the copy ceiling, over n, m,
// label distribution, operator, value type, mode (exclusive, inclusive, multitagging) and the
// variants' own knobs.
#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>

#include "apps/harness/datagen.hpp"
#include "apps/harness/device_buffer.hpp"
#include "apps/multireduce/values.hpp"
#include "multiscan_study.hpp"
#include "variant.hpp"

namespace lp::multiscan_study {

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
    add_partition_variants<Op>(d);
    add_sheffler_variants<Op>(d);
    add_sort_variants<Op>(d);
    add_peer_variants<Op>(d);
    add_cpu_variants<Op>(d);
    return d;
  }();
  return list;
}

template <class Op>
const Def<Op>& def(const std::string& name) {
  return harness::find_variant(defs<Op>(), name, "multiscan");
}

using multireduce_study::random_value;
using multireduce_study::show;

// Input values per operator, as the multireduce study makes them (full-range integers, floats in
// [-1, 1), affine maps with odd slopes), or all ones (multitagging), or mostly the identity
// (63 in 64: the input on which Sheffler's published algorithm fails, thesis 5.4).
template <class Op>
std::vector<typename Op::value_type> make_values(std::int64_t n, const std::string& kind, bool ones, std::uint64_t seed) {
  using T = typename Op::value_type;
  std::vector<T> v(static_cast<std::size_t>(n));
  if (ones) {
    if constexpr (std::is_arithmetic_v<T>) std::fill(v.begin(), v.end(), T(1));  // check_params: add on integers only
  } else if (kind == "mostly_identity")
    harness::parallel_fill(v, seed, [&](harness::Rng& r, std::size_t) { return r.below(64) == 0 ? random_value<T>(r) : Op::identity(); });
  else
    harness::parallel_fill(v, seed, [](harness::Rng& r, std::size_t) { return random_value<T>(r); });
  return v;
}

template <class Op>
class MultiscanPoint final : public harness::Point {
  using T = typename Op::value_type;

 public:
  MultiscanPoint(const Params& p, std::uint64_t seed, bool device) : device_(device) {
    n_ = harness::as_int(p, "n");
    m_ = static_cast<std::uint32_t>(harness::as_int(p, "m"));
    const std::string& mode = harness::as_str(p, "mode");
    multitag_ = mode == "multitag";
    inclusive_ = mode == "inclusive";
    values_kind_ = harness::as_str(p, "values");
    tune_.threads = int(harness::as_int(p, "threads"));
    tune_.blocks_per_sm = int(harness::as_int(p, "blocks_per_sm"));
    tune_.n_items = int(harness::as_int(p, "n_items"));
    tune_.sort_bits = int(harness::as_int(p, "sort_bits"));
    tune_.side = int(harness::as_int(p, "side"));
    tune_.partials_switch = static_cast<std::uint32_t>(harness::as_int(p, "partials_switch"));
    const std::string& tr = harness::as_str(p, "transpose");
    tune_.transpose = tr == "baxter" ? Tuning::Transpose::Baxter : tr == "segment" ? Tuning::Transpose::Segment : Tuning::Transpose::Padded;
    const std::string dist = harness::as_str(p, "distribution");
    const std::string tag = std::to_string(n_) + "/" + std::to_string(m_) + "/" + dist + "/" + harness::to_string(p.at("zipf_s")) + "/" +
                            Op::name + "/" + multireduce::TypeName<T>::value + "/" + values_kind_;
    labels_ = harness::labels(n_, m_, dist, harness::as_real(p, "zipf_s"), harness::derive_seed(seed, "labels/" + tag));
    values_ = make_values<Op>(n_, values_kind_, multitag_, harness::derive_seed(seed, "values/" + tag));
    if (device_) {
      d_labels_.upload(labels_);
      d_values_.upload(values_);
    }
  }

  double inputs() const override { return static_cast<double>(n_); }

  // Each label read once, each value read once (not for multitagging: the values are implied) and
  // each result written once.
  double minimal_bytes(const std::string&) const override {
    const double t = sizeof(T);
    return double(n_) * (4 + t + (multitag_ ? 0 : t));
  }

  void prepare(const std::string& variant) override {
    const Def<Op>& d = def<Op>(variant);
    if (!d.run) throw harness::Unsupported(std::string("not defined for op '") + Op::name + "'");
    if (d.inclusive_only && !inclusive_) throw harness::Unsupported("inclusive only (mode = inclusive)");
    if (values_kind_ == "mostly_identity" && !d.identity_values_unsupported.empty())
      throw harness::Unsupported(d.identity_values_unsupported);
    if (d.unsupported) {
      std::string why = d.unsupported(n_, m_, tune_);
      if (!why.empty()) throw harness::Unsupported(why);
    }
    if (d.kind == VariantKind::Cpu) {
      host_out_.assign(std::size_t(n_), T{});
      host_buckets_.assign(m_, T{});
      return;
    }
    if (!device_) throw harness::Unsupported("no GPU");
    if (d.output == Output::ScanOfSorted) upload_sorted();
    out_.resize(std::size_t(n_));
    out_.poison();
    scratch_.resize(d.scratch ? d.scratch(n_, m_, tune_) : 0);
  }

  void run(const std::string& variant, void* stream) override {
    Ctx<Op> c;
    c.labels = d_labels_.get();
    c.values = d_values_.get();
    c.n = n_;
    c.m = m_;
    c.inclusive = inclusive_;
    c.out = out_.get();
    c.scratch = scratch_.get();
    c.scratch_bytes = scratch_.size();
    c.tune = tune_;
    c.stream = static_cast<cudaStream_t>(stream);
    c.host_labels = labels_.data();
    c.host_values = values_.data();
    c.host_out = host_out_.data();
    c.host_buckets = host_buckets_.data();
    c.host_sort_scratch = &sort_scratch_;
    c.sorted_labels = d_sorted_labels_.get();
    c.sorted_values = d_sorted_values_.get();
    def<Op>(variant).run(c);
  }

  harness::Validation validate(const std::string& variant) override {
    const Def<Op>& d = def<Op>(variant);
    const std::vector<T> got = d.kind == VariantKind::Cpu ? host_out_ : out_.download();
    reference();
    const bool sorted = d.output == Output::ScanOfSorted;
    for (std::int64_t j = 0; j < n_; ++j) {
      const std::int64_t i = sorted ? std::int64_t(sorted_index_[j]) : j;
      std::string bad = compare(i, got[std::size_t(j)]);
      if (!bad.empty()) return harness::Validation::fail((sorted ? "sorted position " + std::to_string(j) + ", " : std::string()) + bad);
    }
    return harness::Validation::pass();
  }

  // Floats: the double-precision prefixes the tolerance is taken around.
  std::string reference_checksum(const std::string&) override {
    reference();
    if constexpr (std::is_floating_point_v<T>) return harness::checksum_hex(exact_);
    else return harness::checksum_hex(ref_);
  }

  void release(const std::string&) override {
    out_.reset();
    scratch_.reset();
    host_out_.clear();
    host_buckets_.clear();
    sort_scratch_ = {};
  }

 private:
  // Exact for integers and the affine maps. A float result over k inputs of its label may differ
  // from the double-precision prefix by 2 * sqrt(k) * u * sum|v| + u * |prefix| (u = 2^-24): the
  // multireduce study's bound, which admits every summation order (sequential, trees, look-back)
  // and still catches a lost or doubled input.
  std::string compare(std::int64_t i, const T& got) const {
    const std::size_t k = std::size_t(i);
    if constexpr (std::is_floating_point_v<T>) {
      const double u = std::ldexp(1.0, -24);
      const double tol = 2 * std::sqrt(double(count_[k])) * u * abs_sum_[k] + u * std::fabs(exact_[k]);
      if (std::fabs(double(got) - exact_[k]) <= tol) return "";
      return "input " + std::to_string(i) + " (label " + std::to_string(labels_[k]) + "): expected " + show(float(exact_[k])) + " (+-" +
             show(float(tol)) + "), got " + show(got);
    } else {
      const T want = inclusive_ ? Op::apply(ref_[k], values_[k]) : ref_[k];
      if (got == want) return "";
      return "input " + std::to_string(i) + " (label " + std::to_string(labels_[k]) + "): expected " + show(want) + ", got " + show(got);
    }
  }

  // The exclusive CPU multiscan (Alg 2.3) for integers; for floats the double-precision prefix, the
  // number of inputs in it and the sum of their magnitudes (the tolerance's terms), per input.
  void reference() {
    if (ref_ready_) return;
    ref_ready_ = true;
    if constexpr (std::is_floating_point_v<T>) {
      exact_.resize(std::size_t(n_));
      abs_sum_.resize(std::size_t(n_));
      count_.resize(std::size_t(n_));
      std::vector<double> sum(m_, 0.0), abs(m_, 0.0);
      std::vector<std::int64_t> cnt(m_, 0);
      for (std::int64_t i = 0; i < n_; ++i) {
        const std::uint32_t l = labels_[std::size_t(i)];
        if (inclusive_) sum[l] += values_[i], abs[l] += std::fabs(double(values_[i])), ++cnt[l];
        exact_[i] = sum[l], abs_sum_[i] = abs[l], count_[i] = cnt[l];
        if (!inclusive_) sum[l] += values_[i], abs[l] += std::fabs(double(values_[i])), ++cnt[l];
      }
    } else {
      ref_.resize(std::size_t(n_));
      std::vector<T> buckets(m_);
      cpu::multiscan_sequential<Op>(labels_.data(), values_.data(), n_, m_, false, buckets.data(), ref_.data());
    }
  }

  // The stable sort by label that the pre-sorted peer starts from (not timed: it measures the
  // scan-by-key alone, the lower bound of every sort-based multiscan).
  void upload_sorted() {
    if (!sorted_index_.empty() || n_ == 0) return;
    std::vector<std::int64_t> start(std::size_t(m_) + 1, 0);
    for (std::uint32_t l : labels_) ++start[l + 1];
    for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
    sorted_index_.resize(std::size_t(n_));
    std::vector<std::uint32_t> sorted_keys(static_cast<std::size_t>(n_));
    std::vector<T> sorted_vals(static_cast<std::size_t>(n_));
    for (std::int64_t i = 0; i < n_; ++i) {
      const std::int64_t at = start[labels_[i]]++;
      sorted_index_[at] = std::uint32_t(i);
      sorted_keys[std::size_t(at)] = labels_[std::size_t(i)];
      sorted_vals[std::size_t(at)] = values_[std::size_t(i)];
    }
    d_sorted_labels_.upload(sorted_keys);
    d_sorted_values_.upload(sorted_vals);
  }

  bool device_;
  std::int64_t n_ = 0;
  std::uint32_t m_ = 0;
  bool multitag_ = false, inclusive_ = false, ref_ready_ = false;
  std::string values_kind_;
  Tuning tune_;
  std::vector<std::uint32_t> labels_, sorted_index_;
  std::vector<T> values_, ref_, host_out_, host_buckets_;
  cpu::SortScratch<T> sort_scratch_;
  std::vector<double> exact_, abs_sum_;
  std::vector<std::int64_t> count_;
  DeviceBuffer<std::uint32_t> d_labels_, d_sorted_labels_;
  DeviceBuffer<T> d_values_, d_sorted_values_, out_;
  DeviceBuffer<char> scratch_;
};

const std::map<std::string, std::vector<std::string>>& op_types() {
  static const std::map<std::string, std::vector<std::string>> t = {
      {"add", {"int32", "int64", "float32"}}, {"min", {"int32"}}, {"max", {"int32"}}, {"affine", {"uint32x2"}}};
  return t;
}

}  // namespace

class MultiscanStudy final : public harness::Study {
 public:
  std::string name() const override { return "multiscan"; }
  std::string description() const override {
    return "multiscan (thesis ch. 5): partitioning, sequential adaptations, Sheffler, sort-based and a single-pass look-back multiscan vs CUB, Thrust and the CPU";
  }
  std::vector<harness::AxisSpec> axes() const override {
    using harness::AxisKind;
    using V = harness::Value;
    return {
        {"n", AxisKind::Size, "inputs (label-value pairs)", {V(std::int64_t(1) << 26)}, {}, 1, std::int64_t(1) << 30},
        {"m", AxisKind::Size, "buckets: labels are in [0, m)", {V(std::int64_t(256))}, {}, 1, std::int64_t(1) << 28},
        {"distribution", AxisKind::Choice, "labels: uniform, degenerate (all m-1), sorted, zipf (exponent zipf_s)", {V(std::string("uniform"))}, {"uniform", "degenerate", "sorted", "zipf"}},
        {"zipf_s", AxisKind::Real, "zipf exponent (distribution zipf only)", {V(1.0)}, {}},
        {"op", AxisKind::Choice, "operator: add, min, max, affine (composition of x->ax+b, non-commutative)", {V(std::string("add"))}, {"add", "min", "max", "affine"}},
        {"type", AxisKind::Choice, "value type: int32, int64, float32 (add); int32 (min, max); uint32x2 (affine)", {V(std::string("int32"))}, {"int32", "int64", "float32", "uint32x2"}},
        {"mode", AxisKind::Choice, "exclusive, inclusive, or multitag (exclusive over values that are all 1: add on integers)", {V(std::string("exclusive"))}, {"exclusive", "inclusive", "multitag"}},
        {"values", AxisKind::Choice, "random, or mostly_identity (63 in 64 values are the identity: Sheffler's published form fails)", {V(std::string("random"))}, {"random", "mostly_identity"}},
        {"threads", AxisKind::Int, "threads per block (0: the variant's default)", {V(std::int64_t(0))}, {}, 0, 1024},
        {"blocks_per_sm", AxisKind::Int, "resident blocks per SM the grid is sized for (0: default)", {V(std::int64_t(0))}, {}, 0, 32},
        {"n_items", AxisKind::Int, "items per thread per step (0: default)", {V(std::int64_t(0))}, {}, 0, 64},
        {"sort_bits", AxisKind::Int, "top label bits sorted by first (cpu_sorted)", {V(std::int64_t(0))}, {}, 0, 32},
        {"transpose", AxisKind::Choice, "transposition of seq_global/seq_shared: padded (Alg 4.7), segment (Alg 4.6), baxter (Alg 4.5)", {V(std::string("padded"))}, {"padded", "segment", "baxter"}},
        {"side", AxisKind::Int, "Sheffler: threads per block; the segment is side^2 inputs (0: default 16 global, 32 shared)", {V(std::int64_t(0))}, {}, 0, 1024},
        {"partials_switch", AxisKind::Int, "Alg 5.2 add-back: the segment's partials in shared memory for m below this, global otherwise", {V(std::int64_t(1024))}, {}, 0, std::int64_t(1) << 30},
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
    if (harness::as_str(p, "mode") == "multitag" && (op != "add" || type == "float32"))
      return "mode: 'multitag' (a count of earlier equal labels) needs op 'add' on int32 or int64";
    if (harness::as_str(p, "mode") == "multitag" && harness::as_str(p, "values") != "random")
      return "values: 'multitag' implies values that are all 1";
    if (harness::as_real(p, "zipf_s") <= 0) return "zipf_s: the zipf exponent must be > 0";
    if (harness::as_int(p, "n") > (std::int64_t(1) << 32) - 1) return "n: input indices are uint32 (n < 2^32)";
    return {};
  }
  std::unique_ptr<harness::Point> make_point(const Params& p, std::uint64_t seed, bool device) const override {
    using namespace multireduce;
    const std::string& op = harness::as_str(p, "op");
    const std::string& type = harness::as_str(p, "type");
    if (op == "add" && type == "int32") return std::make_unique<MultiscanPoint<Add<std::int32_t>>>(p, seed, device);
    if (op == "add" && type == "int64") return std::make_unique<MultiscanPoint<Add<std::int64_t>>>(p, seed, device);
    if (op == "add") return std::make_unique<MultiscanPoint<Add<float>>>(p, seed, device);
    if (op == "min") return std::make_unique<MultiscanPoint<Min<std::int32_t>>>(p, seed, device);
    if (op == "max") return std::make_unique<MultiscanPoint<Max<std::int32_t>>>(p, seed, device);
    return std::make_unique<MultiscanPoint<Compose>>(p, seed, device);
  }
};

std::unique_ptr<harness::Study> make_study() { return std::make_unique<MultiscanStudy>(); }

}  // namespace lp::multiscan_study
