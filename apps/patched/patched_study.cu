// The patched-array study: a column of n integers, FastLanes bit-packed with a
// frame of reference per 1024-element chunk, whose exceptions are stored apart in Vortex's
// PatchedArray layout (chunk, lane, position; Vortex's patched arrays, docs/references.md), decoded
// and patched on the GPU by the two-pass baseline (thrust::scatter), the seed's lane-parallel apply,
// G-ALP's fused patching and ours, and on the CPU. Float columns (f32, f64) are ALP-encoded
// (alp.hpp, alp_layout.hpp: their exceptions are the patches) and decoded by the same variants
// (kernels/patched/alp_decode.cuh). Every record is validated exactly against the column the
// encoding was made from (floats bit for bit).
#include <algorithm>
#include <cmath>
#include <type_traits>

#include "apps/harness/datagen.hpp"
#include "apps/harness/device_buffer.hpp"
#include "cpu_reference/patched/float_columns.hpp"
#include "patched_study.hpp"
#include "variant.hpp"

namespace lp::patched_study {

using harness::DeviceBuffer;
using harness::Params;
using harness::VariantKind;
namespace cp = lp::cpu::patched;
namespace pk = lp::patched;

namespace {

const Defs& table() {
  static const Defs t("patched", {add_fused_variants, add_two_pass_variants, add_cpu_variants});
  return t;
}

int type_bytes(const std::string& type) { return type == "u8" ? 1 : type == "u16" ? 2 : type == "u32" || type == "f32" ? 4 : 8; }
bool is_float(const std::string& type) { return type == "f32" || type == "f64"; }

// A uniform draw in [0, limit] (limit may be 2^64 - 1).
std::uint64_t draw(harness::Rng& r, std::uint64_t limit) { return limit == ~std::uint64_t(0) ? r.next() : r.below(limit + 1); }

// Which positions are exceptions: exactly round(rate * n) of them.
//   uniform    distinct positions uniform over [0, n)
//   clustered  packed into as few chunks as possible (whole chunks, chunks in random order, the
//              last one partly): the skew case for anything that gives a chunk or a lane one thread
std::vector<std::uint8_t> exception_flags(std::int64_t n, double rate, const std::string& kind, std::uint64_t seed) {
  std::vector<std::uint8_t> flag(std::size_t(n), 0);
  std::int64_t k = std::min<std::int64_t>(n, std::llround(rate * double(n)));
  harness::Rng rng(seed);
  if (kind == "clustered") {
    const std::int64_t chunks = pk::chunks_of(n);
    const std::vector<std::uint32_t> order = harness::permutation(chunks, harness::derive_seed(seed, "chunks"));
    std::vector<int> pos(pk::kChunk);
    for (std::size_t i = 0; i < order.size() && k > 0; ++i) {
      const std::int64_t lo = std::int64_t(order[i]) * pk::kChunk;
      const int size = int(std::min<std::int64_t>(pk::kChunk, n - lo));
      const int take = int(std::min<std::int64_t>(k, size));
      for (int q = 0; q < size; ++q) pos[std::size_t(q)] = q;
      for (int q = 0; q < take; ++q) {  // partial Fisher-Yates: `take` distinct positions of the chunk
        std::swap(pos[std::size_t(q)], pos[std::size_t(q + std::int64_t(rng.below(std::uint64_t(size - q))))]);
        flag[std::size_t(lo + pos[std::size_t(q)])] = 1;
      }
      k -= take;
    }
    return flag;
  }
  // Rejection sampling of the smaller side, so that at most n/2 draws land (rates above one half
  // draw the positions that are not exceptions).
  const bool complement = 2 * k > n;
  if (complement) std::fill(flag.begin(), flag.end(), 1);
  for (std::int64_t todo = complement ? n - k : k; todo > 0;) {
    const std::size_t p = std::size_t(rng.below(std::uint64_t(n)));
    if (flag[p] != (complement ? 1 : 0)) continue;
    flag[p] = complement ? 0 : 1;
    --todo;
  }
  return flag;
}

// What both kinds of column share: the output, on the host for the CPU variants (filled with a value
// no decode writes where it is all ones) or on the device (poisoned), and the variant's scratch.
// H: the host's values; D: the device's (a float column's bits).
template <class H, class D>
class ColumnPoint : public harness::TablePoint<Def> {
 protected:
  ColumnPoint() : TablePoint(table()) {}

  void allocate(const Def& d) override {
    if (d.kind == VariantKind::Cpu) {
      if constexpr (std::is_floating_point_v<H>) host_out_.assign(std::size_t(ctx_.n), cp::alp::from_bits<H>(~D(0)));
      else host_out_.assign(std::size_t(ctx_.n), H(~H(0)));
    } else {
      out_.resize(std::size_t(ctx_.n));
      out_.poison();
      scratch_.resize(d.scratch ? d.scratch(ctx_) : 0);
    }
    ctx_.out = out_.get();
    ctx_.scratch = scratch_.get();
    ctx_.scratch_bytes = scratch_.size();
    ctx_.host_out = host_out_.data();
  }

  void deallocate(const Def&) override {
    out_.reset();
    scratch_.reset();
    host_out_.clear();
  }

  std::vector<H> host_out_;
  DeviceBuffer<D> out_;
  DeviceBuffer<char> scratch_;
};

template <class T>
class PatchedPoint final : public ColumnPoint<T, T> {
  using ColumnPoint<T, T>::ctx_;
  using ColumnPoint<T, T>::host_out_;
  using ColumnPoint<T, T>::out_;

 public:
  PatchedPoint(const Params& p, std::uint64_t seed, bool device) {
    n_ = harness::as_int(p, "n");
    w_ = int(harness::as_int(p, "bit_width"));
    const double rate = harness::as_real(p, "patch_rate");
    const std::string kind = harness::as_str(p, "patches");
    const std::string tag = std::to_string(n_) + "/" + harness::as_str(p, "type") + "/" + std::to_string(w_) + "/" + harness::to_string(p.at("patch_rate")) + "/" + kind;
    const std::vector<std::uint8_t> flag = exception_flags(n_, rate, kind, harness::derive_seed(seed, "exceptions/" + tag));

    // Each chunk's values lie in [base, base + 2^w); bases never let that range wrap. Exceptions
    // are base + d with d in [2^w, 2^W) (any d >= 1 at full width): never what the filler decodes to.
    constexpr int W = pk::kBits<T>;
    const std::uint64_t full = pk::low_mask<std::uint64_t>(W), span = pk::low_mask<std::uint64_t>(w_);
    std::vector<T> bases(std::size_t(pk::chunks_of(n_)));
    harness::Rng brng(harness::derive_seed(seed, "bases/" + tag));
    for (T& b : bases) b = T(draw(brng, full - span));
    column_.resize(std::size_t(n_));
    harness::parallel_fill(column_, harness::derive_seed(seed, "values/" + tag), [&](harness::Rng& r, std::size_t i) {
      const T base = bases[i / pk::kChunk];
      if (!flag[i]) return T(base + T(draw(r, span)));
      return T(base + T(w_ < W ? span + 1 + draw(r, full - span - 1) : 1 + draw(r, full - 1)));
    });

    packed_ = cp::pack(column_.data(), n_, w_, flag.data(), 0);
    std::vector<cp::Exception<T>> ex;
    ex.reserve(std::size_t(std::count(flag.begin(), flag.end(), std::uint8_t(1))));
    for (std::int64_t i = 0; i < n_; ++i)
      if (flag[std::size_t(i)]) ex.push_back({i, column_[std::size_t(i)]});
    patches_ = cp::build_patches<T>(n_, ex);

    ctx_.bytes = int(sizeof(T));
    ctx_.n = n_;
    ctx_.w = w_;
    ctx_.count = patches_.count();
    ctx_.tune.threads = int(harness::as_int(p, "threads"));
    ctx_.tune.dense = int(harness::as_int(p, "dense"));
    ctx_.host_packed = &packed_;
    ctx_.host_patches = &patches_;
    if (device) {
      d_words_.upload(packed_.words);
      d_bases_.upload(packed_.bases);
      d_offsets_.upload(patches_.lane_offsets);
      d_indices_.upload(patches_.indices);
      d_values_.upload(patches_.values);
      std::vector<std::uint32_t> positions(ex.size());
      std::vector<T> plain(ex.size());
      for (std::size_t k = 0; k < ex.size(); ++k) positions[k] = std::uint32_t(ex[k].pos), plain[k] = ex[k].value;
      d_positions_.upload(positions);
      d_plain_.upload(plain);
      ctx_.words = d_words_.get();
      ctx_.bases = d_bases_.get();
      ctx_.lane_offsets = d_offsets_.get();
      ctx_.indices = d_indices_.get();
      ctx_.values = d_values_.get();
      ctx_.positions = d_positions_.get();
      ctx_.plain_values = d_plain_.get();
    }
  }

  double inputs() const override { return double(n_); }

 private:
  // The compressed array read once (packed words, bases, lane_offsets, indices, values) and the
  // decoded column written once; the same count for every variant (the peer reads its own plain
  // positions instead of the lane layout, which is no fewer bytes).
  double bytes(const Def&) const override { return packed_.bytes() + patches_.bytes() + double(n_) * double(sizeof(T)); }

  harness::Validation check(const Def& d) override {
    const std::vector<T> got = d.kind == VariantKind::Cpu ? host_out_ : out_.download();
    const std::string bad = harness::first_mismatch(column_, got, "value", [](T v) { return std::to_string(v); });
    return bad.empty() ? harness::Validation::pass() : harness::Validation::fail(bad);
  }

  std::string checksum(const Def&) override { return harness::checksum_hex(column_); }

  // auto's plan at this point and, where it looked, the profile of lane_offsets it decided from.
  Params measured(const Def& d) override { return d.name == "auto" ? auto_metrics(ctx_) : Params{}; }

  std::int64_t n_ = 0;
  int w_ = 0;
  std::vector<T> column_;  // the reference: what decode + patch must give back
  cp::Packed<T> packed_;
  cp::PatchLayout<T> patches_;
  DeviceBuffer<T> d_words_, d_bases_, d_values_, d_plain_;
  DeviceBuffer<std::uint32_t> d_offsets_, d_positions_;
  DeviceBuffer<std::uint16_t> d_indices_;
};

// A float column of a generated kind (float_columns.hpp), ALP-encoded (the scheme the encoder picks
// for it), its exceptions in the seed's patch layout. The exception rate and the bits a value are
// measured, not set (the axes bit_width, patch_rate and patches do not apply).
template <class F>
class FloatPoint final : public ColumnPoint<F, typename cp::alp::Traits<F>::Bits> {
  using U = typename cp::alp::Traits<F>::Bits;
  using ColumnPoint<F, U>::ctx_;
  using ColumnPoint<F, U>::host_out_;
  using ColumnPoint<F, U>::out_;

 public:
  FloatPoint(const Params& p, std::uint64_t seed, bool device) {
    n_ = harness::as_int(p, "n");
    const std::string tag = std::to_string(n_) + "/" + harness::as_str(p, "type") + "/" + harness::as_str(p, "column");
    const std::vector<F> column =
        cp::make_float_column<F>(cp::float_column(harness::as_str(p, "column")), n_, harness::derive_seed(seed, "floats/" + tag));
    const cp::alp::Encoded<F> enc = cp::alp::encode(column.data(), n_, 0);  // every core: the same encoding as one
    exceptions_ = enc.exceptions();
    packed_ = cp::pack_alp(enc);
    bits_.resize(column.size());
    for (std::size_t i = 0; i < column.size(); ++i) bits_[i] = cp::alp::bits_of(column[i]);

    ctx_.bytes = int(sizeof(F));
    ctx_.n = n_;
    ctx_.count = packed_.patches.count();
    ctx_.tune.threads = int(harness::as_int(p, "threads"));
    ctx_.tune.dense = int(harness::as_int(p, "dense"));
    ctx_.host_alp = &packed_;
    if (device) upload();
  }

  double inputs() const override { return double(n_); }

 private:
  void upload() {
    const cp::PatchLayout<U>& pl = packed_.patches;
    d_offsets_.upload(pl.lane_offsets);
    d_indices_.upload(pl.indices);
    d_values_.upload(pl.values);
    // The plain exception list the peer scatters: global positions ascending.
    std::vector<std::pair<std::uint32_t, U>> plain;
    plain.reserve(std::size_t(pl.count()));
    for (std::int64_t c = 0; c < packed_.chunks; ++c) {
      const std::size_t at = plain.size();
      const auto [first, last] = cp::chunk_patches(pl, c);
      for (std::uint32_t k = first; k < last; ++k) plain.push_back({std::uint32_t(c * pk::kChunk + pl.indices[k]), pl.values[k]});
      std::sort(plain.begin() + std::ptrdiff_t(at), plain.end());
    }
    std::vector<std::uint32_t> positions(plain.size());
    std::vector<U> values(plain.size());
    for (std::size_t k = 0; k < plain.size(); ++k) positions[k] = plain[k].first, values[k] = plain[k].second;
    d_positions_.upload(positions);
    d_plain_.upload(values);

    pk::DeviceAlp<U>& a = alp_;
    a.patches.n = n_;
    a.patches.lane_offsets = d_offsets_.get();
    a.patches.indices = d_indices_.get();
    a.patches.values = d_values_.get();
    a.patches.count = pl.count();
    a.rd = packed_.scheme == cp::alp::Scheme::AlpRd;
    if (!a.rd) {
      d_e_.upload(packed_.e);
      d_f_.upload(packed_.f);
      d_w_.upload(packed_.w);
      d_bases_.upload(packed_.bases);
      d_word_offset_.upload(packed_.word_offset);
      d_words_.upload(packed_.words);
      a.max_w = packed_.w.empty() ? 0 : int(*std::max_element(packed_.w.begin(), packed_.w.end()));
      a.e = d_e_.get(), a.f = d_f_.get(), a.w = d_w_.get(), a.bases = d_bases_.get();
      a.word_offset = d_word_offset_.get(), a.words = d_words_.get();
    } else {
      d_right_words_.upload(packed_.right.words);
      d_right_bases_.upload(packed_.right.bases);
      d_code_words_.upload(packed_.codes.words);
      d_code_bases_.upload(packed_.codes.bases);
      d_dictionary_.upload(packed_.dictionary);
      a.right_bits = packed_.right_bits, a.right_w = packed_.right.w, a.code_w = packed_.codes.w;
      a.dictionary_size = int(packed_.dictionary.size());
      a.right_words = d_right_words_.get(), a.right_bases = d_right_bases_.get();
      a.code_words = d_code_words_.get(), a.code_bases = d_code_bases_.get(), a.dictionary = d_dictionary_.get();
    }
    ctx_.alp = &alp_;
    ctx_.lane_offsets = a.patches.lane_offsets;
    ctx_.indices = a.patches.indices;
    ctx_.values = a.patches.values;
    ctx_.positions = d_positions_.get();
    ctx_.plain_values = d_plain_.get();
  }

  // The encoded column read once (AlpPacked::bytes: packed words and headers, or ALP-RD's two
  // packed arrays and dictionary, and the patches) and the decoded column written once.
  double bytes(const Def&) const override { return packed_.bytes() + double(n_) * double(sizeof(F)); }

  // Bit for bit: NaN payloads, -0.0 and subnormals included.
  harness::Validation check(const Def& d) override {
    std::vector<U> got;
    if (d.kind == VariantKind::Cpu) {
      got.resize(host_out_.size());
      for (std::size_t i = 0; i < got.size(); ++i) got[i] = cp::alp::bits_of(host_out_[i]);
    } else {
      got = out_.download();
    }
    const std::string bad = harness::first_mismatch(bits_, got, "value bits", [](U v) { return std::to_string(v); });
    return bad.empty() ? harness::Validation::pass() : harness::Validation::fail(bad);
  }

  std::string checksum(const Def&) override { return harness::checksum_hex(bits_); }

  // The encoding as measured: its scheme, exception rate and bits a value (the layout's bytes read,
  // as AlpPacked::bytes counts them); auto's plan and profile where it ran.
  Params measured(const Def& d) override {
    Params out = d.name == "auto" ? auto_metrics(ctx_) : Params{};
    out["scheme"] = std::string(packed_.scheme == cp::alp::Scheme::Alp ? "alp" : "alp_rd");
    out["exception_rate"] = n_ > 0 ? double(exceptions_) / double(n_) : 0.0;
    out["bits_per_value"] = n_ > 0 ? 8.0 * packed_.bytes() / double(n_) : 0.0;
    return out;
  }

  std::int64_t n_ = 0, exceptions_ = 0;
  std::vector<U> bits_;  // the reference, as bits
  cp::AlpPacked<F> packed_;
  pk::DeviceAlp<U> alp_;
  DeviceBuffer<std::uint8_t> d_e_, d_f_, d_w_;
  DeviceBuffer<std::int64_t> d_word_offset_;
  DeviceBuffer<U> d_bases_, d_words_, d_right_words_, d_right_bases_, d_code_words_, d_code_bases_, d_values_, d_plain_;
  DeviceBuffer<std::uint16_t> d_dictionary_, d_indices_;
  DeviceBuffer<std::uint32_t> d_offsets_, d_positions_;
};

}  // namespace

std::unique_ptr<harness::Study> make_study() {
  using harness::AxisKind;
  using V = harness::Value;
  harness::StudyDecl s{"patched",
                       "Vortex PatchedArray / G-ALP: FastLanes decode + exception patching, fused (G-ALP), the seed's lane-parallel "
                       "apply, ours and auto vs decode + thrust::scatter and the CPU; u8..u64, patch rate, uniform or clustered patches; f32 and f64 columns ALP-encoded, their exceptions as the patches",
                       kDefaultConfig};
  s.axes = {
      {"n", AxisKind::Size, "values in the column", {V(std::int64_t(1) << 26)}, {}, 1, std::int64_t(1) << 31},
      {"type", AxisKind::Choice,
       "value type (lanes per 1024-element chunk: u8 128, u16 64, u32 32, u64 16); f32 and f64: a float column (axis column), ALP-encoded",
       {V(std::string("u32"))}, {"u8", "u16", "u32", "u64", "f32", "f64"}},
      {"column", AxisKind::Choice,
       "f32 and f64: the generated column (prices with two decimals, coordinates with six, percentages with one, integers, a random "
       "walk with two decimals, uniform doubles of full precision, prices with special values); its exception rate is measured",
       {V(std::string("prices"))}, {"prices", "coordinates", "percentages", "integers", "random_walk", "uniform", "specials"}},
      {"bit_width", AxisKind::Int, "packed bits per value, 1..the type's width (frame of reference per chunk)", {V(std::int64_t(6))}, {}, 0, 64},
      {"patch_rate", AxisKind::Real, "fraction of values that are exceptions (patched), 0..1", {V(0.01)}, {}},
      {"patches", AxisKind::Choice, "uniform: positions uniform over the column; clustered: as few chunks as possible, whole chunks patched",
       {V(std::string("uniform"))}, {"uniform", "clustered"}},
      {"threads", AxisKind::Int, "GPU threads per block, a multiple of 32 (0: 256)", {V(std::int64_t(0))}, {}, 0, 1024},
      {"dense", AxisKind::Int, "auto: patches per patched lane (times a chunk's lanes, from the profile of lane_offsets) above which they count as clustered (0: 256)", {V(std::int64_t(0))}, {}, 0, 2048},
  };
  s.variants = table().specs();
  s.check_params = [](const Params& p) -> std::string {
    const double rate = harness::as_real(p, "patch_rate");
    if (!(rate >= 0 && rate <= 1)) return "patch_rate: must be in [0, 1], not " + harness::to_string(p.at("patch_rate"));
    const std::string& type = harness::as_str(p, "type");
    const std::int64_t w = harness::as_int(p, "bit_width"), bits = 8 * type_bytes(type);
    if (!is_float(type) && (w < 1 || w > bits))
      return "bit_width: must be in 1.." + std::to_string(bits) + " for " + type + ", not " + std::to_string(w);
    const std::int64_t threads = harness::as_int(p, "threads");
    if (threads % 32 != 0) return "threads: must be a multiple of 32 (or 0), not " + std::to_string(threads);
    return {};
  };
  s.make_point = [](const Params& p, std::uint64_t seed, bool device) -> std::unique_ptr<harness::Point> {
    const std::string& type = harness::as_str(p, "type");
    if (type == "f32") return std::make_unique<FloatPoint<float>>(p, seed, device);
    if (type == "f64") return std::make_unique<FloatPoint<double>>(p, seed, device);
    switch (type_bytes(type)) {
      case 1: return std::make_unique<PatchedPoint<std::uint8_t>>(p, seed, device);
      case 2: return std::make_unique<PatchedPoint<std::uint16_t>>(p, seed, device);
      case 4: return std::make_unique<PatchedPoint<std::uint32_t>>(p, seed, device);
      default: return std::make_unique<PatchedPoint<std::uint64_t>>(p, seed, device);
    }
  };
  return harness::declare_study(std::move(s));
}

}  // namespace lp::patched_study
