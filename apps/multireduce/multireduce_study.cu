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
const Defs<Op>& table() {
  static const Defs<Op> t("multireduce", {add_modern_variants<Op>, add_perbank_variants<Op>, add_sequential_variants<Op>,
                                          add_sort_variants<Op>, add_peer_variants<Op>, add_cpu_variants<Op>, add_sharded_variants<Op>});
  return t;
}

// Input values per operator (values.hpp), all ones for counting, and for "last" a bijection of the
// input index (the result names the last writer; not the index itself, so that a variant returning
// positions for values fails). Indices < 2^31 keep bit 31 clear, so no value is the identity.
template <class Op>
std::vector<typename Op::value_type> make_values(std::int64_t n, bool ones, std::uint64_t seed) {
  using T = typename Op::value_type;
  std::vector<T> v(static_cast<std::size_t>(n));
  if constexpr (std::is_same_v<Op, multireduce::Last>) {
    for (std::int64_t i = 0; i < n; ++i) v[i] = static_cast<std::int32_t>(std::uint32_t(i) ^ 0x2545f491u);
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
class MultireducePoint final : public harness::TablePoint<Def<Op>> {
  using T = typename Op::value_type;
  using Base = harness::TablePoint<Def<Op>>;
  using Base::ctx_;

 public:
  MultireducePoint(const Params& p, std::uint64_t seed, bool device) : Base(table<Op>()), sp_(p) {
    n_ = harness::as_int(p, "n");
    m_ = static_cast<std::uint32_t>(harness::as_int(p, "m"));
    ones_ = harness::as_str(p, "values") == "ones";
    read_tuning(p, ctx_.tune);
    ctx_.tune.n_sets = int(harness::as_int(p, "n_sets"));
    ctx_.tune.cluster = int(harness::as_int(p, "cluster"));
    const std::string tag = std::to_string(n_) + "/" + std::to_string(m_) + "/" + harness::as_str(p, "distribution") + "/" +
                            harness::to_string(p.at("zipf_s")) + "/" + Op::name + "/" + multireduce::TypeName<T>::value;
    in_.labels = point_labels(p, seed, tag);
    in_.values = make_values<Op>(n_, ones_, harness::derive_seed(seed, "values/" + tag));
    ctx_.streamed = sp_.streamed;
    // Only the one-GPU variants read the whole input from GPU 0; the sharded ones place their own.
    if (device && sp_.one_gpu()) in_.upload();
    ctx_.m = m_;
    ctx_.host_sort_scratch = &sort_scratch_;
    in_.bind(ctx_);
  }

  double inputs() const override { return static_cast<double>(n_); }

 private:
  std::string instantiation() const override { return std::string("op '") + Op::name + "'"; }

  double bytes(const Def<Op>& d) const override {
    const double n = double(n_), m = double(m_), t = sizeof(T);
    switch (d.props.output) {
      case Output::CountOnly: return 4 * n + 4 * m;
      case Output::ScanOfSorted: return (4 + 2 * t) * n;
      case Output::SegmentsOfSorted: return (4 + t) * n + (4 + t) * double(in_.distinct(m_));
      default: return (4 + t) * n + t * m;
    }
  }

  std::string skip_reason(const Def<Op>& d) const override {
    if (std::string why = sp_.skip(d.props.sharded, d.kind, "inputs"); !why.empty()) return why;
    if (d.props.sharded) {
      const Def<Op>& local = table<Op>().at(sp_.shard_variant);
      if (!local.run || (local.props.needs_commutative && !Op::commutative))
        return "shard_variant '" + sp_.shard_variant + "' does not run op '" + Op::name + "'";
    }
    if (d.props.needs_commutative && !Op::commutative)
      return std::string("needs a commutative operator; '") + Op::name + "' is not";
    if (d.run && d.props.output == Output::CountOnly && !ones_) return "a histogram: only where every value is 1 (values = ones)";
    return Base::skip_reason(d);
  }

  void allocate(const Def<Op>& d) override {
    if (d.props.sharded) return allocate_sharded(d);
    const bool sorted_in = d.props.output == Output::SegmentsOfSorted || d.props.output == Output::ScanOfSorted;
    if (d.kind != VariantKind::Cpu && sorted_in) {
      in_.upload_sorted(m_);
      in_.bind(ctx_);
    }
    if (d.kind != VariantKind::Cpu && d.props.output == Output::SegmentsOfSorted) {
      out_keys_.resize(m_);
      out_keys_.poison();
    }
    ctx_.out_keys = out_keys_.get();
    const bool per_input = d.kind != VariantKind::Cpu && d.props.output == Output::ScanOfSorted;
    out_.allocate(ctx_, d, per_input ? std::size_t(n_) : std::size_t(m_));
  }

  harness::Validation check(const Def<Op>& d) override {
    reference();  // also the float tolerances' terms
    std::string bad;
    if (d.props.sharded) {
      bad = sharded_->validate([this](const std::vector<T>& got) {
        std::string why;
        for (std::uint32_t b = 0; b < m_ && why.empty(); ++b) why = compare_bucket(b, got[b]);
        return why;
      });
    } else if (d.props.output == Output::ScanOfSorted) {
      // An inclusive scan by key: the last element of each run is its bucket's value.
      const std::vector<std::uint32_t>& sl = in_.sorted_labels;
      std::vector<T> got = out_.results(d);
      for (std::int64_t i = 0; i < n_ && bad.empty(); ++i)
        if (i + 1 == n_ || sl[i + 1] != sl[i]) bad = compare_bucket(sl[i], got[i]);
    } else if (d.props.output == Output::SegmentsOfSorted) {
      // (key, value) per run of equal keys, in key order; the remaining slots are never written.
      std::vector<std::uint32_t> keys = out_keys_.download();
      std::vector<T> got = out_.results(d);
      std::int64_t runs = in_.distinct(m_);
      std::uint32_t prev = 0;
      for (std::int64_t r = 0; r < runs && bad.empty(); ++r) {
        if (keys[r] >= m_ || (r > 0 && keys[r] <= prev)) bad = "keys[" + std::to_string(r) + "] = " + std::to_string(keys[r]) + " out of order";
        else bad = compare_bucket(keys[r], got[r]);
        prev = keys[r];
      }
    } else {
      std::vector<T> got = out_.results(d);
      for (std::uint32_t b = 0; b < m_ && bad.empty(); ++b) bad = compare_bucket(b, got[b]);
    }
    return bad.empty() ? harness::Validation::pass() : harness::Validation::fail(bad);
  }

  std::string checksum(const Def<Op>&) override { return harness::checksum_hex(reference()); }

  Params measured(const Def<Op>& d) override {
    if (d.name == "auto") return auto_metrics<Op>(ctx_);
    return d.props.sharded && sharded_ ? sp_.metrics(*sharded_) : Params{};
  }

  // The sharded variants share one ShardedBuckets per point (its shards or pinned inputs are the
  // point's, set up once); each binds its own shard variant and combine.
  void allocate_sharded(const Def<Op>& d) {
    using SB = harness::ShardedBuckets<Op>;
    if (!sharded_) {
      sharded_ = std::make_unique<SB>(sp_.shape<Op>(n_, m_), std::vector<typename SB::Column>{{in_.labels.data(), sizeof(std::uint32_t), in_.d_labels.get()},
                                                                            {in_.values.data(), sizeof(T), in_.d_values.get()}});
    }
    ctx_.sharded = sharded_.get();
    harness::bind_local_variant(*sharded_, table<Op>().at(sp_.shard_variant), ctx_, sp_.shard_variant,
                                [](Ctx<Op>& c, const std::vector<const void*>& cols) {
                                  c.labels = static_cast<const std::uint32_t*>(cols[0]);
                                  c.values = static_cast<const T*>(cols[1]);
                                },
                                d.props.combine);
  }

  void deallocate(const Def<Op>&) override {
    out_.release();
    out_keys_.reset();
    sort_scratch_ = {};
  }

  // Exact for integers and the affine and "last" operators; float sums within
  // float_sum_tolerance of the double-precision sum.
  std::string compare_bucket(std::uint32_t b, const T& got) {
    const T& want = reference()[b];
    bool ok;
    if constexpr (std::is_floating_point_v<T>) {
      double tol = float_sum_tolerance(count_[b], abs_sum_[b], double(want));
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
    const std::vector<std::uint32_t>& labels = in_.labels;
    const std::vector<T>& values = in_.values;
    ref_.resize(m_);
    cpu::multireduce_sequential<Op>(labels.data(), values.data(), n_, m_, ref_.data());
    if constexpr (std::is_floating_point_v<T>) {
      exact_.assign(m_, 0.0);
      abs_sum_.assign(m_, 0.0);
      count_.assign(m_, 0);
      for (std::int64_t i = 0; i < n_; ++i) {
        exact_[labels[i]] += values[i];
        abs_sum_[labels[i]] += std::fabs(double(values[i]));
        ++count_[labels[i]];
      }
      for (std::uint32_t b = 0; b < m_; ++b) ref_[b] = static_cast<T>(exact_[b]);
    }
    return ref_;
  }

  std::int64_t n_ = 0;
  std::uint32_t m_ = 0;
  bool ones_ = false;
  LabeledPairs<T> in_;
  PairsOutputs<T> out_;
  std::vector<T> ref_;
  cpu::SortScratch<T> sort_scratch_;  // cpu_sorted's partial sort output, reused across its runs
  std::vector<double> exact_, abs_sum_;
  std::vector<std::int64_t> count_;
  DeviceBuffer<std::uint32_t> out_keys_;
  harness::ShardedParams sp_;
  std::unique_ptr<harness::ShardedBuckets<Op>> sharded_;
};

}  // namespace

std::unique_ptr<harness::Study> make_study() {
  using harness::AxisKind;
  using V = harness::Value;
  harness::StudyDecl s{"multireduce",
                       "multireduce (thesis ch. 4): sequential adaptations, per-bank, sort-based and modern variants vs CUB, Thrust, atomics and the CPU",
                       kDefaultConfig};
  s.axes = pair_axes(std::int64_t(1) << 33);
  for (auto& a : op_type_axes(true)) s.axes.push_back(a);
  s.axes.insert(s.axes.end(), {
      {"values", AxisKind::Choice, "random, or ones (a count: the histogram special case, where CUB DeviceHistogram joins)", {V(std::string("random"))}, {"random", "ones"}},
  });
  for (auto& a : launch_axes()) s.axes.push_back(a);
  s.axes.insert(s.axes.end(), {
      {"n_sets", AxisKind::Int, "bucket sets of global_comm (0: default 8)", {V(std::int64_t(0))}, {}, 0, 1 << 20},
      {"sort_bits", AxisKind::Int, "top label bits sorted by first (cpu_sorted, global_comm, global_noncomm_sorted)", {V(std::int64_t(0))}, {}, 0, 32},
      {"cluster", AxisKind::Int, "thread-block cluster size (0: default)", {V(std::int64_t(0))}, {}, 0, 16},
      {"transpose", AxisKind::Choice, "transposition of the non-commutative variants: padded (Alg 4.7), segment (Alg 4.6), baxter (Alg 4.5)", {V(std::string("padded"))}, {"padded", "segment", "baxter"}},
  });
  for (auto& a : harness::sharded_axes()) s.axes.push_back(a);
  s.variants = table<multireduce::Add<std::int32_t>>().specs();
  s.check_params = [](const Params& p) -> std::string {
    const std::string& op = harness::as_str(p, "op");
    if (std::string why = check_op_type(p); !why.empty()) return why;
    if (harness::as_str(p, "values") == "ones" && op != "add") return "values: 'ones' (a count) needs op 'add'";
    if (std::string why = check_label_params(p); !why.empty()) return why;
    if (op == "last" && harness::as_int(p, "n") > (std::int64_t(1) << 31) - 1) return "n: op 'last' stores input indices as int32";
    if (std::string why = harness::check_sharded_params(p, std::int64_t(1) << 30); !why.empty()) return why;
    // The shard variant: a one-GPU variant of this study that writes the m buckets.
    const std::string& sv = harness::as_str(p, "shard_variant");
    for (const auto& d : table<multireduce::Add<std::int32_t>>().all())
      if (d.name == sv) {
        if (d.kind == VariantKind::Cpu || d.kind == VariantKind::Probe || d.props.sharded || d.props.output != Output::Buckets)
          return "shard_variant: '" + sv + "' is not a one-GPU variant writing the m buckets";
        return {};
      }
    return "shard_variant: no variant '" + sv + "' (bench multireduce --help lists them)";
  };
  s.make_point = point_for_op<MultireducePoint, true>;
  return harness::declare_study(std::move(s));
}

}  // namespace lp::multireduce_study
