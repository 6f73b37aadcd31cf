// The scatter/gather study: thesis 1.2's two scatter definitions and the gather, the
// CPU algorithms of chapter 2, the naive GPU scatter of Table 4.3, He et al.'s multi-pass scheme
// (3.2.2), the scatter with sorting (4.5.1), our kernels for today's GPU, Thrust and CUB, and the
// random-access probe that bounds them all, every record validated against the CPU reference.
#include <cstring>

#include "apps/harness/datagen.hpp"
#include "apps/multireduce/values.hpp"
#include "cpu_reference/cpu_memory/scatter_gather.hpp"
#include "kernels/scatter/multipass.cuh"
#include "kernels/scatter/sorted.cuh"
#include "kernels/scatter/auto.cuh"
#include "scatter_study.hpp"
#include "variant.hpp"

namespace lp::scatter_study {

using harness::Params;
using harness::VariantKind;
using multireduce_study::LabeledPairs;
using multireduce_study::PairsOutputs;

namespace {

template <class W>
const Defs<W>& table() {
  static const Defs<W> t("scatter", {add_thesis_variants<W>, add_modern_variants<W>, add_peer_variants<W>});
  return t;
}

// What an output holds before a variant writes it: DeviceBuffer::poison's all-ones bytes, so a
// bucket no input names must still hold it afterwards (thesis 1.2: it keeps its prior contents).
template <class W>
constexpr W kUnwritten = ~W(0);

// The values as raw words: int32 / int64 full range, float32 in [-1, 1) (multireduce's values).
template <class W>
std::vector<W> make_words(std::int64_t count, bool floats, std::uint64_t seed) {
  std::vector<W> w(static_cast<std::size_t>(count));
  harness::parallel_fill(w, seed, [floats](harness::Rng& r, std::size_t) -> W {
    if (!floats) return static_cast<W>(r.next());
    const float f = multireduce_study::random_value<float>(r);
    std::uint32_t bits;
    std::memcpy(&bits, &f, 4);
    return bits;
  });
  return w;
}

std::string hex(std::uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

template <class W>
class ScatterPoint final : public harness::TablePoint<Def<W>> {
  using Base = harness::TablePoint<Def<W>>;
  using Base::ctx_;

 public:
  ScatterPoint(const Params& p, std::uint64_t seed, bool device) : Base(table<W>()) {
    n_ = harness::as_int(p, "n");
    m_ = static_cast<std::uint32_t>(harness::as_int(p, "m"));
    gather_ = harness::as_str(p, "op") == "gather";
    const std::string& type = harness::as_str(p, "type");
    ctx_.tune.threads = int(harness::as_int(p, "threads"));
    ctx_.tune.blocks_per_sm = int(harness::as_int(p, "blocks_per_sm"));
    ctx_.tune.sort_bits = int(harness::as_int(p, "sort_bits"));
    ctx_.tune.passes = int(harness::as_int(p, "passes"));
    const std::string tag = std::to_string(n_) + "/" + std::to_string(m_) + "/" + harness::as_str(p, "distribution") + "/" +
                            harness::to_string(p.at("zipf_s")) + "/" + (gather_ ? "gather/" : "scatter/") + type;
    in_.labels = multireduce_study::point_labels(p, seed, tag);
    in_.values = make_words<W>(gather_ ? m_ : n_, type == "float32", harness::derive_seed(seed, "values/" + tag));
    if (device) in_.upload();
    ctx_.m = m_;
    ctx_.gather = gather_;
    ctx_.salt = static_cast<std::uint32_t>(harness::derive_seed(seed, "probe/" + tag));
    ctx_.host_sort_scratch = &sort_scratch_;
    in_.bind(ctx_);
  }

  double inputs() const override { return static_cast<double>(n_); }

 private:
  // Labels and values (or results) once each, and each bucket (table entry) named at least once.
  double bytes(const Def<W>&) const override {
    return double(4 + sizeof(W)) * double(n_) + double(sizeof(W)) * double(in_.distinct(m_));
  }

  void allocate(const Def<W>& d) override {
    out_.allocate(ctx_, d, gather_ ? std::size_t(n_) : std::size_t(m_), kUnwritten<W>);  // the CPU's as the device's poison
  }

  harness::Validation check(const Def<W>& d) override {
    const std::vector<W> got = out_.results(d);
    std::string bad;
    if (d.kind == VariantKind::Probe) bad = check_probe(got);
    else if (gather_ || d.props.strict) bad = harness::first_mismatch(reference(), got, gather_ ? "result" : "bucket", hex);
    else bad = cpu::scatter_any_mismatch(in_.labels.data(), in_.values.data(), n_, got.data(), m_, kUnwritten<W>);
    return bad.empty() ? harness::Validation::pass() : harness::Validation::fail(bad);
  }

  // The probe's accesses recomputed on the host: a gather of the index stream, or a scatter of
  // the positions to it (any one wins).
  std::string check_probe(const std::vector<W>& got) const {
    std::vector<std::uint32_t> at(static_cast<std::size_t>(n_));
    for (std::int64_t i = 0; i < n_; ++i) at[std::size_t(i)] = scatter::probe_index(std::uint32_t(i), ctx_.salt, m_);
    if (gather_) {
      std::vector<W> want(at.size());
      cpu::gather_sequential<W>(at.data(), in_.values.data(), n_, want.data());
      return harness::first_mismatch(want, got, "result", hex);
    }
    std::vector<W> pos(at.size());
    for (std::size_t i = 0; i < pos.size(); ++i) pos[i] = W(i);
    return cpu::scatter_any_mismatch(at.data(), pos.data(), n_, got.data(), m_, kUnwritten<W>);
  }

  std::string checksum(const Def<W>& d) override { return d.kind == VariantKind::Probe ? std::string() : harness::checksum_hex(reference()); }

  // The choices a variant made at this point: the passes of He et al.'s model, the sorted bits.
  Params measured(const Def<W>& d) override {
    Params out;
    if (d.kind == VariantKind::Cpu) return out;
    if (d.name == "multipass") out["passes"] = std::int64_t(scatter::multipass_count(m_, sizeof(W), gather_, ctx_.tune));
    if (d.name == "sorted") out["sorted_bits"] = std::int64_t(scatter::sorted_bits(m_, ctx_.tune));
    if (d.name == "auto") return auto_metrics<W>(ctx_);
    return out;
  }

  void deallocate(const Def<W>&) override {
    out_.release();
    sort_scratch_ = {};
  }

  // Scatter: Alg 2.1 into unwritten buckets (the strict definition); gather: 1.2's definition.
  const std::vector<W>& reference() {
    const std::size_t size = gather_ ? std::size_t(n_) : std::size_t(m_);
    if (ref_.size() == size && size > 0) return ref_;
    ref_.assign(size, kUnwritten<W>);
    if (gather_) cpu::gather_sequential<W>(in_.labels.data(), in_.values.data(), n_, ref_.data());
    else cpu::scatter_into<W>(in_.labels.data(), in_.values.data(), n_, ref_.data());
    return ref_;
  }

  std::int64_t n_ = 0;
  std::uint32_t m_ = 0;
  bool gather_ = false;
  LabeledPairs<W> in_;
  PairsOutputs<W> out_;
  std::vector<W> ref_;
  cpu::SortScratch<W> sort_scratch_;  // cpu_sorted's partial sort output, reused across its runs
};

}  // namespace

std::unique_ptr<harness::Study> make_study() {
  using harness::AxisKind;
  using V = harness::Value;
  harness::StudyDecl s{"scatter",
                       "scatter and gather (thesis 1.2, 3.2.2, 4.5.1, Table 4.3): naive, strict, He et al.'s multi-pass, sort-scatter and "
                       "modern variants vs Thrust, CUB sort and the CPU, against the random-access probe",
                       kDefaultConfig};
  s.axes = multireduce_study::pair_axes();
  s.axes.insert(s.axes.end(), {
      {"op", AxisKind::Choice, "scatter (m buckets from n label-value pairs) or gather (n results from an m-entry table)", {V(std::string("scatter"))}, {"scatter", "gather"}},
      {"type", AxisKind::Choice, "value type: int32, int64, float32 (moved as raw 4- or 8-byte words)", {V(std::string("int32"))}, {"int32", "int64", "float32"}},
      {"threads", AxisKind::Int, "threads per block (0: 256)", {V(std::int64_t(0))}, {}, 0, 1024},
      {"blocks_per_sm", AxisKind::Int, "resident blocks per SM the grid is sized for (0: 8)", {V(std::int64_t(0))}, {}, 0, 32},
      {"sort_bits", AxisKind::Int, "top label bits sorted by first (sorted, cpu_sorted; 0: sorted's own choice, cpu_sorted unsorted)", {V(std::int64_t(0))}, {}, 0, 32},
      {"passes", AxisKind::Int, "multipass: traversals of the input (0: He et al.'s cost model)", {V(std::int64_t(0))}, {}, 0, 4096},
  });
  s.variants = table<std::uint32_t>().specs();
  s.check_params = [](const Params& p) -> std::string {
    return multireduce_study::check_label_params(p);
  };
  s.make_point = [](const Params& p, std::uint64_t seed, bool device) -> std::unique_ptr<harness::Point> {
    if (harness::as_str(p, "type") == "int64") return std::make_unique<ScatterPoint<std::uint64_t>>(p, seed, device);
    return std::make_unique<ScatterPoint<std::uint32_t>>(p, seed, device);
  };
  return harness::declare_study(std::move(s));
}

}  // namespace lp::scatter_study
