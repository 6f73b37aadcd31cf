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
const Defs<Op>& table() {
  static const Defs<Op> t("multiscan", {add_modern_variants<Op>, add_partition_variants<Op>, add_sheffler_variants<Op>,
                                        add_sort_variants<Op>, add_peer_variants<Op>, add_cpu_variants<Op>});
  return t;
}

using multireduce_study::check_op_type;
using multireduce_study::float_sum_tolerance;
using multireduce_study::launch_axes;
using multireduce_study::op_type_axes;
using multireduce_study::pair_axes;
using multireduce_study::point_labels;
using multireduce_study::random_value;
using multireduce_study::read_tuning;
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
class MultiscanPoint final : public harness::TablePoint<Def<Op>> {
  using T = typename Op::value_type;
  using Base = harness::TablePoint<Def<Op>>;
  using Base::ctx_;

 public:
  MultiscanPoint(const Params& p, std::uint64_t seed, bool device) : Base(table<Op>()), device_(device) {
    n_ = harness::as_int(p, "n");
    m_ = static_cast<std::uint32_t>(harness::as_int(p, "m"));
    const std::string& mode = harness::as_str(p, "mode");
    multitag_ = mode == "multitag";
    inclusive_ = mode == "inclusive";
    values_kind_ = harness::as_str(p, "values");
    read_tuning(p, ctx_.tune);
    ctx_.tune.side = int(harness::as_int(p, "side"));
    ctx_.tune.partials_switch = static_cast<std::uint32_t>(harness::as_int(p, "partials_switch"));
    const std::string tag = std::to_string(n_) + "/" + std::to_string(m_) + "/" + harness::as_str(p, "distribution") + "/" +
                            harness::to_string(p.at("zipf_s")) + "/" + Op::name + "/" + multireduce::TypeName<T>::value + "/" + values_kind_;
    in_.labels = point_labels(p, seed, tag);
    in_.values = make_values<Op>(n_, values_kind_, multitag_, harness::derive_seed(seed, "values/" + tag));
    if (device_) in_.upload();
    ctx_.m = m_;
    ctx_.inclusive = inclusive_;
    ctx_.host_sort_scratch = &sort_scratch_;
    in_.bind(ctx_);
  }

  double inputs() const override { return static_cast<double>(n_); }

 private:
  std::string instantiation() const override { return std::string("op '") + Op::name + "'"; }

  // Each label read once, each value read once (not for multitagging: the values are implied) and
  // each result written once.
  double bytes(const Def<Op>&) const override {
    const double t = sizeof(T);
    return double(n_) * (4 + t + (multitag_ ? 0 : t));
  }

  std::string skip_reason(const Def<Op>& d) const override {
    if (!d.run) return Base::skip_reason(d);
    if (d.props.inclusive_only && !inclusive_) return "inclusive only (mode = inclusive)";
    if (values_kind_ == "mostly_identity" && !d.props.identity_values_unsupported.empty()) return d.props.identity_values_unsupported;
    const std::string why = Base::skip_reason(d);
    if (!why.empty() || d.kind == VariantKind::Cpu) return why;
    return device_ ? std::string() : std::string("no GPU");
  }

  void allocate(const Def<Op>& d) override {
    if (d.kind == VariantKind::Cpu) host_buckets_.assign(m_, T{});
    if (d.kind != VariantKind::Cpu && d.props.output == Output::ScanOfSorted && n_ > 0) {
      in_.upload_sorted(m_);
      in_.bind(ctx_);
    }
    ctx_.host_buckets = host_buckets_.data();
    out_.allocate(ctx_, d, std::size_t(n_));
  }

  harness::Validation check(const Def<Op>& d) override {
    const std::vector<T> got = out_.results(d);
    reference();
    const bool sorted = d.props.output == Output::ScanOfSorted;
    for (std::int64_t j = 0; j < n_; ++j) {
      const std::int64_t i = sorted ? std::int64_t(in_.sorted_index[j]) : j;
      std::string bad = compare(i, got[std::size_t(j)]);
      if (!bad.empty()) return harness::Validation::fail((sorted ? "sorted position " + std::to_string(j) + ", " : std::string()) + bad);
    }
    return harness::Validation::pass();
  }

  // Floats: the double-precision prefixes the tolerance is taken around.
  std::string checksum(const Def<Op>&) override {
    reference();
    if constexpr (std::is_floating_point_v<T>) return harness::checksum_hex(exact_);
    else return harness::checksum_hex(ref_);
  }

  harness::Params measured(const Def<Op>& d) override { return d.name == "auto" ? auto_metrics<Op>(ctx_) : harness::Params{}; }

  void deallocate(const Def<Op>&) override {
    out_.release();
    host_buckets_.clear();
    sort_scratch_ = {};
  }

  // Exact for integers and the affine maps; a float result over k inputs of its label within
  // float_sum_tolerance of the double-precision prefix (the multireduce study's bound).
  std::string compare(std::int64_t i, const T& got) const {
    const std::size_t k = std::size_t(i);
    const std::uint32_t label = in_.labels[k];
    if constexpr (std::is_floating_point_v<T>) {
      const double tol = float_sum_tolerance(count_[k], abs_sum_[k], exact_[k]);
      if (std::fabs(double(got) - exact_[k]) <= tol) return "";
      return "input " + std::to_string(i) + " (label " + std::to_string(label) + "): expected " + show(float(exact_[k])) + " (+-" +
             show(float(tol)) + "), got " + show(got);
    } else {
      const T want = inclusive_ ? Op::apply(ref_[k], in_.values[k]) : ref_[k];
      if (got == want) return "";
      return "input " + std::to_string(i) + " (label " + std::to_string(label) + "): expected " + show(want) + ", got " + show(got);
    }
  }

  // The exclusive CPU multiscan (Alg 2.3) for integers; for floats the double-precision prefix, the
  // number of inputs in it and the sum of their magnitudes (the tolerance's terms), per input.
  void reference() {
    if (ref_ready_) return;
    ref_ready_ = true;
    const std::vector<std::uint32_t>& labels = in_.labels;
    const std::vector<T>& values = in_.values;
    if constexpr (std::is_floating_point_v<T>) {
      exact_.resize(std::size_t(n_));
      abs_sum_.resize(std::size_t(n_));
      count_.resize(std::size_t(n_));
      std::vector<double> sum(m_, 0.0), abs(m_, 0.0);
      std::vector<std::int64_t> cnt(m_, 0);
      for (std::int64_t i = 0; i < n_; ++i) {
        const std::uint32_t l = labels[std::size_t(i)];
        if (inclusive_) sum[l] += values[i], abs[l] += std::fabs(double(values[i])), ++cnt[l];
        exact_[i] = sum[l], abs_sum_[i] = abs[l], count_[i] = cnt[l];
        if (!inclusive_) sum[l] += values[i], abs[l] += std::fabs(double(values[i])), ++cnt[l];
      }
    } else {
      ref_.resize(std::size_t(n_));
      std::vector<T> buckets(m_);
      cpu::multiscan_sequential<Op>(labels.data(), values.data(), n_, m_, false, buckets.data(), ref_.data());
    }
  }

  bool device_;
  std::int64_t n_ = 0;
  std::uint32_t m_ = 0;
  bool multitag_ = false, inclusive_ = false, ref_ready_ = false;
  std::string values_kind_;
  multireduce_study::LabeledPairs<T> in_;
  multireduce_study::PairsOutputs<T> out_;
  std::vector<T> ref_, host_buckets_;
  cpu::SortScratch<T> sort_scratch_;
  std::vector<double> exact_, abs_sum_;
  std::vector<std::int64_t> count_;
};

}  // namespace

std::unique_ptr<harness::Study> make_study() {
  using harness::AxisKind;
  using V = harness::Value;
  harness::StudyDecl s{"multiscan",
                       "multiscan (thesis ch. 5): partitioning, sequential adaptations, Sheffler, sort-based and a single-pass look-back multiscan vs CUB, Thrust and the CPU",
                       kDefaultConfig};
  s.axes = pair_axes();
  for (auto& a : op_type_axes(false)) s.axes.push_back(a);
  s.axes.insert(s.axes.end(), {
      {"mode", AxisKind::Choice, "exclusive, inclusive, or multitag (exclusive over values that are all 1: add on integers)", {V(std::string("exclusive"))}, {"exclusive", "inclusive", "multitag"}},
      {"values", AxisKind::Choice, "random, or mostly_identity (63 in 64 values are the identity: Sheffler's published form fails)", {V(std::string("random"))}, {"random", "mostly_identity"}},
  });
  for (auto& a : launch_axes()) s.axes.push_back(a);
  s.axes.insert(s.axes.end(), {
      {"sort_bits", AxisKind::Int, "top label bits sorted by first (cpu_sorted) or partitioned by (partitioned; 0: its own choice)", {V(std::int64_t(0))}, {}, 0, 32},
      {"transpose", AxisKind::Choice, "transposition of seq_global/seq_shared: padded (Alg 4.7), segment (Alg 4.6), baxter (Alg 4.5)", {V(std::string("padded"))}, {"padded", "segment", "baxter"}},
      {"side", AxisKind::Int, "Sheffler: threads per block; the segment is side^2 inputs (0: default 16 global, 32 shared)", {V(std::int64_t(0))}, {}, 0, 1024},
      {"partials_switch", AxisKind::Int, "Alg 5.2 add-back: the segment's partials in shared memory for m below this, global otherwise", {V(std::int64_t(1024))}, {}, 0, std::int64_t(1) << 30},
  });
  s.variants = table<multireduce::Add<std::int32_t>>().specs();
  s.check_params = [](const Params& p) -> std::string {
    const std::string& op = harness::as_str(p, "op");
    const bool multitag = harness::as_str(p, "mode") == "multitag";
    if (std::string why = check_op_type(p); !why.empty()) return why;
    if (multitag && (op != "add" || harness::as_str(p, "type") == "float32"))
      return "mode: 'multitag' (a count of earlier equal labels) needs op 'add' on int32 or int64";
    if (multitag && harness::as_str(p, "values") != "random") return "values: 'multitag' implies values that are all 1";
    if (std::string why = multireduce_study::check_label_params(p); !why.empty()) return why;
    if (harness::as_int(p, "n") > (std::int64_t(1) << 32) - 1) return "n: input indices are uint32 (n < 2^32)";
    return {};
  };
  s.make_point = multireduce_study::point_for_op<MultiscanPoint, false>;
  return harness::declare_study(std::move(s));
}

}  // namespace lp::multiscan_study
