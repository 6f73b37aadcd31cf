// The histogram study: the thesis's histogram algorithms (4.3.1, 4.5.2), the per-bank
// multireduce counting ones, our kernels for today's GPU, CUB's HistogramEven and the CPU, on u8
// and u32 samples, synthetic labels and real photographs, every record validated exactly.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "apps/harness/datagen.hpp"
#include "apps/harness/label_axes.hpp"
#include "apps/harness/device_buffer.hpp"
#include "cpu_reference/histogram/cpu_histogram.hpp"
#include "histogram_study.hpp"
#include "variant.hpp"

namespace lp::histogram_study {

using harness::DeviceBuffer;
using harness::Params;
using harness::VariantKind;

std::string image_dir() {
  const char* d = std::getenv("LP_IMAGE_DIR");
  return d && *d ? d : "build/images";
}

namespace {

const Defs& table() {
  static const Defs t("histogram", {add_modern_variants, add_thesis_variants, add_sharded_variants});
  return t;
}

// The images scripts/make_images.py writes (skimage.data's test images): grey, and each channel of
// the colour ones.
const std::vector<std::string>& image_names() {
  static const std::vector<std::string> names = {
      "camera.grey",  "astronaut.grey", "astronaut.r", "astronaut.g", "astronaut.b", "coffee.grey", "coffee.r",
      "coffee.g",     "coffee.b",       "hubble_deep_field.grey", "hubble_deep_field.r", "hubble_deep_field.g", "hubble_deep_field.b"};
  return names;
}

std::string image_path(const std::string& name) { return image_dir() + "/" + name + ".u8"; }

// The image's bytes repeated to n samples (a benchmark needs more than one photograph's pixels).
std::vector<std::uint8_t> tiled_image(const std::string& name, std::int64_t n) {
  const std::string path = image_path(name);
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("image " + path + " not readable (run scripts/make_images.py)");
  std::vector<std::uint8_t> img((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  if (img.empty()) throw std::runtime_error("image " + path + " is empty");
  std::vector<std::uint8_t> out(static_cast<std::size_t>(n));
  for (std::size_t at = 0; at < out.size(); at += img.size())
    std::copy_n(img.begin(), std::min(img.size(), out.size() - at), out.begin() + std::ptrdiff_t(at));
  return out;
}

class HistogramPoint final : public harness::TablePoint<Def> {
 public:
  HistogramPoint(const Params& p, std::uint64_t seed, bool device) : TablePoint(table()), device_(device), sp_(p) {
    n_ = harness::as_int(p, "n");
    bins_ = static_cast<std::uint32_t>(harness::as_int(p, "bins"));
    u8_ = harness::as_str(p, "sample") == "u8";
    ctx_.tune.threads = int(harness::as_int(p, "threads"));
    ctx_.tune.blocks_per_sm = int(harness::as_int(p, "blocks_per_sm"));
    ctx_.tune.factor = int(harness::as_int(p, "factor"));
    ctx_.tune.cluster = int(harness::as_int(p, "cluster"));
    const std::string input = harness::as_str(p, "input");
    if (input == "image") {
      s8_ = tiled_image(harness::as_str(p, "image"), n_);
    } else {
      std::string tag = std::to_string(n_) + "/" + std::to_string(bins_) + "/" + input + "/" + harness::to_string(p.at("zipf_s"));
      if (harness::uses_run_length(input)) tag += "/" + harness::to_string(p.at("run_length"));
      std::vector<std::uint32_t> l = harness::labels(n_, bins_, input, harness::as_real(p, "zipf_s"), harness::derive_seed(seed, "samples/" + tag),
                                                     harness::as_real(p, "run_length"));
      if (u8_) s8_.assign(l.begin(), l.end());  // labels < bins <= 256
      else s32_ = std::move(l);
    }
    ctx_.streamed = sp_.streamed;
    // Only the one-GPU variants read all samples from GPU 0; the sharded ones place their own.
    if (device_ && sp_.one_gpu()) {
      if (u8_) d8_.upload(s8_);
      else d32_.upload(s32_);
    }
    ctx_.u8 = u8_;
    ctx_.s8 = d8_.get();
    ctx_.s32 = d32_.get();
    ctx_.n = n_;
    ctx_.bins = bins_;
    ctx_.host_s8 = s8_.data();
    ctx_.host_s32 = s32_.data();
  }

  double inputs() const override { return static_cast<double>(n_); }

 private:
  // Each sample read once, each count written once.
  double bytes(const Def&) const override { return double(n_) * (u8_ ? 1 : 4) + 4.0 * bins_; }

  std::string skip_reason(const Def& d) const override {
    if (std::string why = sp_.skip(d.props.sharded, d.kind, "samples"); !why.empty()) return why;
    return TablePoint::skip_reason(d);
  }

  void allocate(const Def& d) override {
    if (d.props.sharded) return allocate_sharded(d);
    if (d.kind == VariantKind::Cpu) {
      host_out_.assign(bins_, 0xffffffffu);
    } else {
      out_.resize(bins_);
      out_.poison();
      scratch_.resize(d.scratch ? d.scratch(ctx_) : 0);
      if (d.props.needs_ones && ones_.size() != std::size_t(n_)) ones_.upload(std::vector<std::uint32_t>(std::size_t(n_), 1u));
    }
    ctx_.out = out_.get();
    ctx_.scratch = scratch_.get();
    ctx_.scratch_bytes = scratch_.size();
    ctx_.ones = ones_.get();
    ctx_.host_out = host_out_.data();
  }

  harness::Validation check(const Def& d) override {
    auto show = [](std::uint32_t v) { return std::to_string(v); };
    std::string bad;
    if (d.props.sharded) {
      bad = sharded_->validate([&](const std::vector<std::uint32_t>& got) { return harness::first_mismatch(reference(), got, "bin", show); });
    } else {
      bad = harness::first_mismatch(reference(), d.kind == VariantKind::Cpu ? host_out_ : out_.download(), "bin", show);
    }
    return bad.empty() ? harness::Validation::pass() : harness::Validation::fail(bad);
  }

  Params measured(const Def& d) override {
    if (d.name == "auto") return auto_metrics(ctx_);
    return d.props.sharded && sharded_ ? sp_.metrics(*sharded_) : Params{};
  }

  // The sharded variants share one ShardedBuckets per point (its shards or pinned samples are the
  // point's, set up once); each binds its own shard variant and combine.
  void allocate_sharded(const Def& d) {
    using SB = harness::ShardedBuckets<Counts>;
    if (!sharded_) {
      const void* host = u8_ ? static_cast<const void*>(s8_.data()) : static_cast<const void*>(s32_.data());
      const void* dev = u8_ ? static_cast<const void*>(d8_.get()) : static_cast<const void*>(d32_.get());
      sharded_ = std::make_unique<SB>(sp_.shape<Counts>(n_, bins_), std::vector<SB::Column>{{host, u8_ ? 1u : 4u, dev}});
    }
    ctx_.sharded = sharded_.get();
    harness::bind_local_variant(*sharded_, table().at(sp_.shard_variant), ctx_, sp_.shard_variant,
                                [](Ctx& c, const std::vector<const void*>& cols) {
                                  c.s8 = static_cast<const std::uint8_t*>(cols[0]);
                                  c.s32 = static_cast<const std::uint32_t*>(cols[0]);
                                },
                                d.props.combine);
  }

  std::string checksum(const Def&) override { return harness::checksum_hex(reference()); }

  void deallocate(const Def&) override {
    out_.reset();
    scratch_.reset();
    ones_.reset();
    host_out_.clear();
  }

  const std::vector<std::uint32_t>& reference() {
    if (ref_.size() != bins_) {
      ref_.resize(bins_);
      if (u8_) cpu::histogram_sequential(s8_.data(), n_, bins_, ref_.data());
      else cpu::histogram_sequential(s32_.data(), n_, bins_, ref_.data());
    }
    return ref_;
  }

  bool device_;
  std::int64_t n_ = 0;
  std::uint32_t bins_ = 0;
  bool u8_ = true;
  std::vector<std::uint8_t> s8_;
  std::vector<std::uint32_t> s32_, ref_, host_out_;
  DeviceBuffer<std::uint8_t> d8_;
  DeviceBuffer<std::uint32_t> d32_, out_, ones_;
  DeviceBuffer<char> scratch_;
  harness::ShardedParams sp_;
  std::unique_ptr<harness::ShardedBuckets<Counts>> sharded_;
};

}  // namespace

std::unique_ptr<harness::Study> make_study() {
  using harness::AxisKind;
  using V = harness::Value;
  harness::StudyDecl s{"histogram",
                       "histogram (thesis 4.3.1, 4.5.2, App. A): Podlozhnyuk, Nugteren, TRISH, BankTRISH, per-bank and our kernels vs CUB "
                       "HistogramEven and the CPU, u8/u32 samples, synthetic inputs and images",
                       kDefaultConfig};
  s.axes = {
      {"n", AxisKind::Size, "samples (above 2^30: source host)", {V(std::int64_t(1) << 28)}, {}, 1, std::int64_t(1) << 33},
      {"bins", AxisKind::Size, "bins: samples are in [0, bins); u8 samples: at most 256", {V(std::int64_t(256))}, {}, 1, std::int64_t(1) << 24},
      {"sample", AxisKind::Choice, "sample type: u8 (bytes, the thesis's image case) or u32", {V(std::string("u8"))}, {"u8", "u32"}},
      {"input", AxisKind::Choice,
       std::string("uniform, degenerate (all bins-1), sorted, zipf (exponent zipf_s), ") + harness::run_distributions_help() +
           ", image (axis image; raw 8-bit files from scripts/make_images.py in $LP_IMAGE_DIR, default build/images)",
       {V(std::string("uniform"))}, {"uniform", "degenerate", "sorted", "zipf", "runs", "equal_runs", "image"}},
      {"image", AxisKind::Choice, "the photograph (input image only), tiled to n samples", {V(std::string("camera.grey"))}, image_names()},
      {"zipf_s", AxisKind::Real, "zipf exponent (input zipf only)", {V(1.0)}, {}},
      harness::run_length_axis(),
      {"factor", AxisKind::Int, "BankTRISH: factor x 64 threads per block (0: default 8)", {V(std::int64_t(0))}, {}, 0, 8},
      {"threads", AxisKind::Int, "threads per block (0: the variant's default)", {V(std::int64_t(0))}, {}, 0, 1024},
      {"blocks_per_sm", AxisKind::Int, "resident blocks per SM the grid is sized for (0: as many as fit; the thesis used 3)", {V(std::int64_t(0))}, {}, 0, 32},
      {"cluster", AxisKind::Int, "thread-block cluster size of cluster_privatized (0: the smallest that holds the histogram)", {V(std::int64_t(0))}, {}, 0, 16},
  };
  for (auto& a : harness::sharded_axes()) s.axes.push_back(a);
  s.variants = table().specs();
  s.check_params = [](const Params& p) -> std::string {
    const bool u8 = harness::as_str(p, "sample") == "u8";
    const std::int64_t bins = harness::as_int(p, "bins");
    const std::string& input = harness::as_str(p, "input");
    if (u8 && bins > 256) return "bins: u8 samples have at most 256 bins, not " + std::to_string(bins);
    if (harness::as_real(p, "zipf_s") <= 0) return "zipf_s: the zipf exponent must be > 0";
    if (std::string why = harness::check_run_length(p); !why.empty()) return why;
    if (std::string why = harness::check_sharded_params(p, std::int64_t(1) << 30); !why.empty()) return why;
    const std::string& sv = harness::as_str(p, "shard_variant");
    bool known = false;
    for (const auto& d : table().all())
      if (d.name == sv) {
        if (d.kind == VariantKind::Cpu || d.kind == VariantKind::Probe || d.props.sharded || d.props.needs_ones)
          return "shard_variant: '" + sv + "' is not a one-GPU variant of the samples alone";
        known = true;
      }
    if (!known) return "shard_variant: no variant '" + sv + "' (bench histogram --help lists them)";
    if (input == "image") {
      if (!u8) return "sample: images are byte samples (sample u8)";
      if (bins != 256) return "bins: images take 256 bins, not " + std::to_string(bins);
      const std::string path = image_path(harness::as_str(p, "image"));
      if (!std::filesystem::is_regular_file(path))
        return "image: " + path + " not found (run scripts/make_images.py " + image_dir() + ", or set LP_IMAGE_DIR)";
    }
    return {};
  };
  s.make_point = [](const Params& p, std::uint64_t seed, bool device) -> std::unique_ptr<harness::Point> {
    return std::make_unique<HistogramPoint>(p, seed, device);
  };
  return harness::declare_study(std::move(s));
}

}  // namespace lp::histogram_study
