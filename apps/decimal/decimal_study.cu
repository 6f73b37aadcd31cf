// The decimal study (the decimal128 article, docs/references.md): the article's
// query, per product sum(price × quantity) (its "min of the window total per product" is that total),
// on generated sales rows (sales.hpp) in decimal128 (Spark's types: decimal(p, s) × int ->
// decimal(p + 11, s), sum -> decimal(p + 21, s)), in decimal64 (the same query in an engine whose
// precision stops at 18 digits) and in double. CheckOverflow as Spark applies it: an overflowing
// row is null and drops out of the sum, an overflowing total is null; or, with on_overflow "fail",
// either fails the query. Every record is validated exactly against the CPU reference
// (cpu_reference/decimal/group_sum.hpp), nulls and the fail verdict included; the double query
// within a relative 10^-6 of the exact totals, its groups whose cents differ counted.
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>

#include "apps/harness/datagen.hpp"
#include "apps/harness/device_buffer.hpp"
#include "apps/harness/label_axes.hpp"
#include "cpu_reference/decimal/fixed_point.hpp"
#include "cpu_reference/decimal/spark_types.hpp"
#include "decimal_study.hpp"
#include "sales.hpp"
#include "variant.hpp"

namespace lp::decimal_study {

using harness::Params;
using harness::VariantKind;
namespace sp = lp::decimal::spark;

namespace {

const Defs& table() {
  static const Defs t("decimal", {add_gpu_variants, add_peer_variants, add_cpu_variants});
  return t;
}

Type type_of(const std::string& t) { return t == "decimal64" ? Type::Decimal64 : t == "double" ? Type::Double : Type::Decimal128; }

// The product's and the total's types by Spark's rules, and their limits; decimal64 caps both at
// 18 digits (the double query is checked against decimal128's exact totals).
struct QueryTypes {
  sp::DecimalType price, product, total;
  cd::Limits lim;
};

QueryTypes query_types(Type t, int precision, int scale) {
  QueryTypes q;
  q.price = {precision, scale};
  q.product = sp::multiply_result(q.price, sp::of_integer(32));
  q.total = sp::sum_result(q.product);
  const int cap = t == Type::Decimal64 ? sp::kMaxLongDigits : sp::kMaxPrecision;
  q.lim.product = lp::decimal::pow10<int128>(std::min(q.product.precision, cap)) - 1;
  q.lim.sum = lp::decimal::pow10<int128>(std::min(q.total.precision, cap)) - 1;
  return q;
}

// An unscaled total as decimal text at the price's scale ("1234.56").
std::string text(int128 v, int scale) {
  return lp::decimal::to_string(lp::decimal::decimal128(lp::decimal::scaled_integer<int128>(v, lp::decimal::scale_type(-scale))));
}

class DecimalPoint final : public harness::TablePoint<Def> {
 public:
  DecimalPoint(const Params& p, std::uint64_t seed, bool device) : TablePoint(table()) {
    const std::int64_t n = harness::as_int(p, "n");
    const auto m = std::uint32_t(harness::as_int(p, "m"));
    const std::string dist = harness::as_str(p, "distribution");
    precision_ = int(harness::as_int(p, "price_precision"));
    scale_ = int(harness::as_int(p, "price_scale"));
    ctx_.type = type_of(harness::as_str(p, "type"));
    ctx_.fail_on_overflow = harness::as_str(p, "on_overflow") == "fail";
    types_ = query_types(ctx_.type, precision_, scale_);
    ctx_.lim = types_.lim;
    ctx_.n = n;
    ctx_.m = m;
    ctx_.threads = int(harness::as_int(p, "threads"));
    // The type and the overflow mode are not in the tag: the three queries read the same rows.
    std::string tag = std::to_string(n) + "/" + std::to_string(m) + "/" + dist + "/" + harness::to_string(p.at("zipf_s")) + "/" +
                      std::to_string(precision_) + "/" + std::to_string(scale_);
    if (harness::uses_run_length(dist)) tag += "/" + harness::to_string(p.at("run_length"));
    sales_ = make_sales(n, m, dist, harness::as_real(p, "zipf_s"), precision_, scale_, ctx_.type == Type::Double,
                        harness::derive_seed(seed, "sales/" + tag), harness::as_real(p, "run_length"));
    ctx_.rows = {sales_.labels.data(), sales_.price.data(), sales_.price_f.empty() ? nullptr : sales_.price_f.data(), sales_.qty.data(), n, m};
    // The exact answer; the double query is judged against decimal128's.
    want_ = cd::reference(ctx_.rows, ctx_.type == Type::Double ? query_types(Type::Decimal128, precision_, scale_).lim : ctx_.lim);
    ctx_.host_total = &total_;
    ctx_.host_total_f = &total_f_;
    ctx_.host_null = &null_;
    ctx_.host_failed = &failed_;
    if (device) {
      d_labels_.upload(sales_.labels);
      d_qty_.upload(sales_.qty);
      if (ctx_.type == Type::Double)
        d_price_f_.upload(sales_.price_f);
      else
        d_price_.upload(sales_.price);
      d_flags_.resize(1);
      ctx_.d_labels = d_labels_.get();
      ctx_.d_price = d_price_.get();
      ctx_.d_price_f = d_price_f_.get();
      ctx_.d_qty = d_qty_.get();
      ctx_.d_flags = d_flags_.get();
    }
  }

  double inputs() const override { return double(ctx_.n); }

 private:
  std::string instantiation() const override { return "type"; }

  // The rows read once (a 4-byte product id, an 8-byte price, a 4-byte quantity) and the totals
  // written once (16 bytes and a null byte each; 8 bytes in double).
  double bytes(const Def&) const override {
    return double(ctx_.n) * 16.0 + double(ctx_.m) * (ctx_.type == Type::Double ? 8.0 : 17.0);
  }

  std::size_t bucket_bytes(const Def& d) const {
    return for_op<std::size_t>(ctx_.type, d.props.buckets, [](auto op) { return sizeof(typename decltype(op)::value_type); });
  }

  void allocate(const Def& d) override {
    ctx_.scratch_bytes = d.scratch ? d.scratch(ctx_) : 0;
    if (d.kind == VariantKind::Cpu) {
      total_.assign(ctx_.m, 0);
      total_f_.assign(ctx_.type == Type::Double ? ctx_.m : 0, 0.0);
      null_.assign(ctx_.m, 0);
      failed_ = false;
      host_scratch_.resize(ctx_.scratch_bytes);
      ctx_.host_scratch = host_scratch_.data();
      return;
    }
    d_buckets_.resize(std::size_t(ctx_.m) * bucket_bytes(d));
    d_buckets_.poison();
    d_null_.resize(ctx_.m);
    d_null_.poison();
    scratch_.resize(ctx_.scratch_bytes);
    ctx_.d_buckets = d_buckets_.get();
    ctx_.d_null = d_null_.get();
    ctx_.scratch = scratch_.get();
  }

  // The GPU's buckets back as totals (through the operator's total()), its nulls and verdict.
  void fetch(const Def& d) {
    unsigned flags = 0;
    LP_CUDA(cudaMemcpy(&flags, ctx_.d_flags, sizeof flags, cudaMemcpyDeviceToHost));
    failed_ = flags != 0;
    if (ctx_.type == Type::Double) {
      total_f_.resize(ctx_.m);
      LP_CUDA(cudaMemcpy(total_f_.data(), d_buckets_.get(), std::size_t(ctx_.m) * sizeof(double), cudaMemcpyDeviceToHost));
      null_.assign(ctx_.m, 0);
      return;
    }
    null_.resize(ctx_.m);
    LP_CUDA(cudaMemcpy(null_.data(), d_null_.get(), ctx_.m, cudaMemcpyDeviceToHost));
    with_op(ctx_.type, d.props.buckets, [&](auto op) {
      using Op = decltype(op);
      if constexpr (!std::is_same_v<Op, lp::decimal::SumDouble>) {
        std::vector<typename Op::value_type> b(ctx_.m);
        LP_CUDA(cudaMemcpy(b.data(), d_buckets_.get(), b.size() * sizeof(b[0]), cudaMemcpyDeviceToHost));
        total_.resize(ctx_.m);
        for (std::uint32_t g = 0; g < ctx_.m; ++g) total_[g] = Op::total(b[g]);
      }
    });
  }

  harness::Validation check(const Def& d) override {
    if (d.kind != VariantKind::Cpu) fetch(d);
    wrong_groups_ = 0;
    max_rel_error_ = 0;
    if (ctx_.type == Type::Double) return check_double();
    if (ctx_.fail_on_overflow) {
      if (failed_ != want_.failed())
        return harness::Validation::fail(std::string("the query ") + (failed_ ? "failed" : "did not fail") + ", expected it " +
                                         (want_.failed() ? "to fail" : "not to fail"));
      if (failed_) return harness::Validation::pass();  // a failed query has no totals to compare
    }
    for (std::uint32_t g = 0; g < ctx_.m; ++g) {
      if (want_.null[g] != null_[g])
        return harness::Validation::fail("product " + std::to_string(g) + ": " + (null_[g] ? "null" : text(total_[g], scale_)) + ", expected " +
                                         (want_.null[g] ? "null" : text(want_.total[g], scale_)));
      if (!want_.null[g] && want_.total[g] != total_[g])
        return harness::Validation::fail("product " + std::to_string(g) + ": " + text(total_[g], scale_) + ", expected " + text(want_.total[g], scale_));
    }
    return harness::Validation::pass();
  }

  // Floats are judged against the exact totals: within a relative 10^-6 passes (any summation
  // order of up to 2^30 rows stays well inside it); the groups whose total, rounded to the price's
  // scale, is not the exact one are counted (metric wrong_groups).
  harness::Validation check_double() {
    const double unit = std::pow(10.0, scale_);
    for (std::uint32_t g = 0; g < ctx_.m; ++g) {
      const double exact = double(want_.total[g]) / unit, got = total_f_[g];
      const double err = std::fabs(got - exact) / std::max(std::fabs(exact), 1e-300);
      if (!(err <= 1e-6))
        return harness::Validation::fail("product " + std::to_string(g) + ": " + std::to_string(got) + ", expected " + text(want_.total[g], scale_));
      max_rel_error_ = std::max(max_rel_error_, exact == 0 ? 0.0 : err);
      const double cents = std::nearbyint(got * unit);
      wrong_groups_ += !(std::fabs(cents) < 1e38 && int128(cents) == want_.total[g]);
    }
    return harness::Validation::pass();
  }

  std::string checksum(const Def&) override {
    std::vector<unsigned char> bytes(want_.total.size() * 16);
    std::memcpy(bytes.data(), want_.total.data(), bytes.size());
    bytes.insert(bytes.end(), want_.null.begin(), want_.null.end());
    return harness::checksum_hex(bytes);
  }

  Params measured(const Def& d) override {
    Params out;
    out["groups"] = want_.groups;
    out["null_rows"] = want_.null_rows;
    out["null_groups"] = want_.null_groups;
    out["product_type"] = sp::to_string(types_.product);
    out["total_type"] = sp::to_string(types_.total);
    if (ctx_.fail_on_overflow) out["failed"] = std::int64_t(want_.failed());
    if (ctx_.type == Type::Double) {
      out["wrong_groups"] = wrong_groups_;
      out["max_rel_error"] = max_rel_error_;
    }
    if (d.name == "auto")
      for (auto& [k, v] : auto_metrics(ctx_)) out[k] = v;
    return out;
  }

  void deallocate(const Def&) override {
    std::vector<unsigned char>().swap(host_scratch_);
    d_buckets_.reset();
    d_null_.reset();
    scratch_.reset();
  }

  // sales.csv (product,price,quantity; the price as exact decimal text) and the reference's facts
  // for scripts/duckdb/duckdb_anchor.mjs: products with rows, the sum, min and max of their totals
  // and a moment of (product, total) pairs.
  Params dump_inputs(const std::string& dir) override {
    if (ctx_.type != Type::Decimal128) throw harness::Unsupported("the DuckDB anchor runs the decimal128 query (type decimal128)");
    std::filesystem::create_directories(dir);
    write_sales(dir + "/sales.csv");
    int128 sum = 0, lo = 0, hi = 0, moment = 0;
    bool any = false;
    for (std::uint32_t g = 0; g < ctx_.m; ++g) {
      if (!want_.has_rows[g]) continue;
      const int128 t = want_.total[g];
      sum += t;
      lo = any ? std::min(lo, t) : t;
      hi = any ? std::max(hi, t) : t;
      any = true;
      moment += int128(g + 1) * (t % 1000000007);
    }
    auto s = [&](int128 v) { return harness::Value(text(v, scale_)); };
    return {{"file", std::string("sales.csv")}, {"rows", ctx_.n}, {"inputs", ctx_.n}, {"m", std::int64_t(ctx_.m)},
            {"price_precision", std::int64_t(precision_)}, {"price_scale", std::int64_t(scale_)}, {"type", std::string("decimal128")},
            {"groups", want_.groups}, {"sum_total", s(sum)}, {"min_total", s(lo)}, {"max_total", s(hi)},
            {"moment", harness::Value(text(moment, 0))}, {"bytes", bytes(table_.all().front())}};
  }

  void write_sales(const std::string& path) const {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw std::runtime_error("cannot write " + path);
    std::string buf;
    buf.reserve(1 << 20);
    char num[24];
    for (std::size_t i = 0; i < sales_.labels.size(); ++i) {
      buf.append(num, std::to_chars(num, num + sizeof num, sales_.labels[i]).ptr);
      buf.push_back(',');
      buf += text(sales_.price[i], scale_);
      buf.push_back(',');
      buf.append(num, std::to_chars(num, num + sizeof num, sales_.qty[i]).ptr);
      buf.push_back('\n');
      if (buf.size() > (1 << 20) - 96 || i + 1 == sales_.labels.size()) {
        if (std::fwrite(buf.data(), 1, buf.size(), f) != buf.size()) {
          std::fclose(f);
          throw std::runtime_error("cannot write " + path);
        }
        buf.clear();
      }
    }
    if (std::fclose(f) != 0) throw std::runtime_error("cannot write " + path);
  }

  int precision_ = 0, scale_ = 0;
  QueryTypes types_;
  Sales sales_;
  cd::Answer want_;
  std::vector<int128> total_;
  std::vector<double> total_f_;
  std::vector<std::uint8_t> null_;
  bool failed_ = false;
  std::int64_t wrong_groups_ = 0;
  double max_rel_error_ = 0;
  std::vector<unsigned char> host_scratch_;
  harness::DeviceBuffer<std::uint32_t> d_labels_;
  harness::DeviceBuffer<std::int64_t> d_price_;
  harness::DeviceBuffer<double> d_price_f_;
  harness::DeviceBuffer<std::int32_t> d_qty_;
  harness::DeviceBuffer<unsigned> d_flags_;
  harness::DeviceBuffer<unsigned char> d_buckets_, scratch_;
  harness::DeviceBuffer<std::uint8_t> d_null_;
};

}  // namespace

std::unique_ptr<harness::Study> make_study() {
  using harness::AxisKind;
  using V = harness::Value;
  harness::StudyDecl s{"decimal",
                       "the decimal128 article's query: per product sum(price x quantity) over sales rows, in decimal128 (Spark's "
                       "types, CheckOverflow), decimal64 and double; ours (the multireduce kernels on the rows with 16-byte carry buckets or "
                       "32-bit words, a sort-based group-by, auto) against CUB's sort + reduce-by-key and the CPU",
                       kDefaultConfig};
  s.axes = {
      {"n", AxisKind::Size, "rows", {V(std::int64_t(1) << 20)}, {}, 1, std::int64_t(1) << 30},
      {"m", AxisKind::Size, "products (groups)", {V(std::int64_t(256))}, {}, 1, std::int64_t(1) << 30},
      {"distribution", AxisKind::Choice, std::string("product ids: uniform, zipf (exponent zipf_s), degenerate, sorted, ") + harness::run_distributions_help(),
       {V(std::string("uniform"))}, {"uniform", "zipf", "degenerate", "sorted", "runs", "equal_runs"}},
      {"zipf_s", AxisKind::Real, "zipf exponent (distribution zipf), > 0", {V(1.0)}, {}},
      harness::run_length_axis(),
      {"type", AxisKind::Choice,
       "the query's arithmetic: decimal128 (Spark's product and sum types), decimal64 (both capped at 18 digits), double",
       {V(std::string("decimal128"))}, {"decimal128", "decimal64", "double"}},
      {"on_overflow", AxisKind::Choice, "Spark's CheckOverflow: null (an overflowing row or total is null) or fail (the query fails)",
       {V(std::string("null"))}, {"null", "fail"}},
      {"price_precision", AxisKind::Int, "the price column's decimal(p, s): p", {V(std::int64_t(11))}, {}, 1, 1000},
      {"price_scale", AxisKind::Int, "the price column's decimal(p, s): s (digits after the point)", {V(std::int64_t(2))}, {}, 0, 1000},
      {"threads", AxisKind::Int, "CPU threads of cpu_mt (0: every core)", {V(std::int64_t(0))}, {}, 0, 4096},
  };
  s.variants = table().specs();
  s.check_params = [](const Params& p) -> std::string {
    const sp::DecimalType price{int(harness::as_int(p, "price_precision")), int(harness::as_int(p, "price_scale"))};
    if (!sp::valid(price)) return "price_precision, price_scale: " + sp::invalid_reason(price);
    if (sp::needs_decimal128(price.precision))
      return "price_precision: the study's price column is decimal64 (at most 18 digits), not " + std::to_string(price.precision);
    const double zs = harness::as_real(p, "zipf_s");
    if (harness::as_str(p, "distribution") == "zipf" && !(zs > 0)) return "zipf_s: must be > 0 for distribution zipf, not " + harness::to_string(p.at("zipf_s"));
    return harness::check_run_length(p);
  };
  s.make_point = [](const Params& p, std::uint64_t seed, bool device) -> std::unique_ptr<harness::Point> {
    return std::make_unique<DecimalPoint>(p, seed, device);
  };
  return harness::declare_study(std::move(s));
}

}  // namespace lp::decimal_study
