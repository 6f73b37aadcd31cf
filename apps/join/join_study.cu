// The join study: relations R and S of (key, rid) tuples (relations.hpp: primary and
// foreign keys, uniform keys with duplicates, zipf-skewed foreign keys; int32 or int64), joined
// by He et al.'s algorithms (docs/references.md) into
// materialised (rid_R, rid_S) pairs. Every record is validated against cpu::join::reference: the
// count and an order-independent digest of the pairs always, and pair for pair (sorted) where the
// result has at most kExactPairs pairs.
#include <sys/sysinfo.h>

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <stdexcept>

#include "apps/harness/datagen.hpp"
#include "apps/harness/device_buffer.hpp"
#include "join_study.hpp"
#include "relations.hpp"
#include "variant.hpp"

namespace lp::join_study {

using harness::Params;
using harness::VariantKind;
namespace cj = lp::cpu::join;

const Defs& table() {
  static const Defs t("join", {add_paper_variants, add_modern_variants, add_cpu_variants});
  return t;
}

namespace {

// Results up to this many pairs are also compared pair for pair (a sort of both); beyond, the
// count and the digest (a 64-bit sum of hashed pairs) decide.
constexpr std::uint64_t kExactPairs = std::uint64_t(1) << 22;

int key_bytes(const std::string& key) { return key == "int64" ? 8 : 4; }

std::string hex_digest(const cj::Digest& d) {
  char buf[48];
  std::snprintf(buf, sizeof buf, "%llx:%016llx", static_cast<unsigned long long>(d.count), static_cast<unsigned long long>(d.sum));
  return buf;
}

// Host memory a result may take: half of what the machine has, so a point that would not fit is
// skipped with its size named instead of failing an allocation partway.
double host_result_limit() {
  struct sysinfo si {};
  if (sysinfo(&si) != 0) return 8.0 * (1ull << 30);
  return 0.5 * double(si.totalram) * double(si.mem_unit);
}

template <class K>
class JoinPoint final : public harness::TablePoint<Def> {
 public:
  JoinPoint(const Params& p, std::uint64_t seed, bool device) : TablePoint(table()) {
    const std::int64_t nr = harness::as_int(p, "r"), ns = harness::as_int(p, "s");
    const std::string dist = harness::as_str(p, "distribution");
    const double zipf_s = harness::as_real(p, "zipf_s"), match = harness::as_real(p, "match");
    const std::string tag = std::to_string(nr) + "/" + std::to_string(ns) + "/" + dist + "/" + harness::to_string(p.at("zipf_s")) + "/" +
                            harness::to_string(p.at("match"));
    // The key type is not in the tag: int32 and int64 points share their relations' values.
    rel_ = make_relations<K>(nr, ns, dist, zipf_s, match, harness::derive_seed(seed, "relations/" + tag));
    ctx_.key_bytes = int(sizeof(K));
    ctx_.r = rel_.r.data();
    ctx_.s = rel_.s.data();
    ctx_.nr = nr;
    ctx_.ns = ns;
    ctx_.band = std::uint64_t(harness::as_int(p, "band"));
    ctx_.threads = int(harness::as_int(p, "threads"));
    ctx_.radix_bits = int(harness::as_int(p, "radix_bits"));
    ctx_.host_out = &out_;
    ctx_.workspace = &ws_;
    want_digest_ = cj::reference(rel_.r, rel_.s, ctx_.band, &want_, kExactPairs);
    std::sort(want_.begin(), want_.end());
    ctx_.pairs = want_digest_.count;
    if (device) {
      // The upload timed (synchronous copies from pageable memory: what a user's std::vector pays)
      // and reported beside the GPU records, which exclude it.
      const auto t0 = std::chrono::steady_clock::now();
      d_r_.upload(rel_.r);
      d_s_.upload(rel_.s);
      LP_CUDA(cudaDeviceSynchronize());
      h2d_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      ctx_.d_r = d_r_.get();
      ctx_.d_s = d_s_.get();
    }
  }

  double inputs() const override { return double(ctx_.nr + ctx_.ns); }

 private:
  std::string skip_reason(const Def& v) const override {
    const double bytes = double(want_digest_.count) * sizeof(cj::Pair);
    if (v.kind == VariantKind::Cpu && bytes > host_result_limit())
      return "the result (" + std::to_string(want_digest_.count) + " pairs) exceeds half of the host's memory";
    const std::string why = TablePoint::skip_reason(v);
    if (!why.empty() || v.kind == VariantKind::Cpu) return why;
    // The materialised pairs and the variant's scratch must fit what the device has free.
    std::size_t free = 0, total = 0;
    LP_CUDA(cudaMemGetInfo(&free, &total));
    const double need = bytes + double(v.scratch ? v.scratch(ctx_) : 0);
    if (need > double(free))
      return "the result (" + std::to_string(want_digest_.count) + " pairs) and scratch need " + gib(need) + " GiB, the device has " +
             gib(double(free)) + " GiB free";
    return {};
  }

  static std::string gib(double bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.2f", bytes / double(1ull << 30));
    return buf;
  }

  // Both relations read once (key and rid per tuple) and the pairs written once.
  double bytes(const Def&) const override {
    return double(ctx_.nr + ctx_.ns) * double(sizeof(K) + sizeof(std::uint32_t)) + double(want_digest_.count) * sizeof(cj::Pair);
  }

  // GPU variants: room for exactly the reference's pairs (a join sized by its own count would
  // allocate inside the timed region), poisoned, and the variant's scratch.
  void allocate(const Def& d) override {
    out_.clear();
    if (d.kind == VariantKind::Cpu) return;
    ctx_.capacity = want_digest_.count;
    d_out_.resize(std::max<std::uint64_t>(1, ctx_.capacity));
    d_out_.poison();
    ctx_.scratch_bytes = d.scratch ? d.scratch(ctx_) : 0;
    scratch_.resize(ctx_.scratch_bytes);
    ctx_.d_out = d_out_.get();
    ctx_.scratch = scratch_.get();
    if (d.props.setup) {  // a variant's untimed set-up (pre-sorted inputs), on the default stream
      Ctx c = ctx_;
      c.stream = nullptr;
      d.props.setup(c);
      LP_CUDA(cudaDeviceSynchronize());
    }
  }

  harness::Validation check(const Def& d) override {
    if (d.kind != VariantKind::Cpu) {
      out_.resize(std::size_t(ctx_.capacity));
      const auto t0 = std::chrono::steady_clock::now();
      if (ctx_.capacity)
        LP_CUDA(cudaMemcpy(out_.data(), d_out_.get(), std::size_t(ctx_.capacity) * sizeof(cj::Pair), cudaMemcpyDeviceToHost));
      d2h_ms_ = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    }
    const cj::Digest got = cj::digest(out_.data(), out_.size());
    if (got.count != want_digest_.count)
      return harness::Validation::fail(std::to_string(got.count) + " pairs, expected " + std::to_string(want_digest_.count));
    if (!(got == want_digest_)) return harness::Validation::fail("the pairs' digest differs (same count)");
    if (want_digest_.count <= kExactPairs) {
      std::sort(out_.begin(), out_.end());
      const auto at = std::mismatch(out_.begin(), out_.end(), want_.begin()).first;
      if (at != out_.end())
        return harness::Validation::fail("pair " + std::to_string(at - out_.begin()) + " (sorted): (" + std::to_string(at->r) + ", " +
                                         std::to_string(at->s) + ")");
    }
    return harness::Validation::pass();
  }

  std::string checksum(const Def&) override { return hex_digest(want_digest_); }

  Params measured(const Def& d) override {
    // auto: the plan it ran and, where it looked, the profiles and the match estimate it decided from.
    Params out = d.name == "auto" ? auto_metrics(ctx_) : Params{};
    out["pairs"] = std::int64_t(want_digest_.count);
    if (d.props.radix_bits) out["radix_bits"] = std::int64_t(d.props.radix_bits(ctx_));
    if (d.kind != VariantKind::Cpu) {
      // What a user pays around the timed join: R and S up, the pairs down (pageable memory).
      out["h2d_ms"] = h2d_ms_;
      out["d2h_ms"] = d2h_ms_;
    }
    return out;
  }

  // The CPU joins' memory goes with the variant (its repetitions reuse it; the next variant starts
  // afresh), so no variant's timing depends on which ran before it.
  void deallocate(const Def&) override {
    ws_ = {};
    std::vector<cj::Pair>().swap(out_);
    d_out_.reset();
    scratch_.reset();
  }

  // The relations as r.csv and s.csv (one key per line, a tuple's rid its line number from 0) and
  // the reference's count and moments, for scripts/duckdb/duckdb_join.mjs.
  Params dump_inputs(const std::string& dir) override {
    std::filesystem::create_directories(dir);
    write_keys(dir + "/r.csv", rel_.r);
    write_keys(dir + "/s.csv", rel_.s);
    auto u = [](std::uint64_t v) { return harness::Value(std::to_string(v)); };  // unsigned, mod 2^64
    return {{"r_file", std::string("r.csv")}, {"s_file", std::string("s.csv")}, {"key", std::string(sizeof(K) == 8 ? "int64" : "int32")},
            {"r", ctx_.nr}, {"s", ctx_.ns}, {"band", std::int64_t(ctx_.band)}, {"pairs", u(want_digest_.count)},
            {"sum_r", u(want_digest_.sum_r)}, {"sum_s", u(want_digest_.sum_s)}, {"sum_rs", u(want_digest_.sum_rs)},
            {"bytes", bytes(table_.all().front())}};
  }

  static void write_keys(const std::string& path, const std::vector<K>& keys) {
    std::FILE* f = std::fopen(path.c_str(), "wb");
    if (!f) throw std::runtime_error("cannot write " + path);
    std::string buf;
    buf.reserve(1 << 20);
    char num[24];
    for (std::size_t i = 0; i < keys.size(); ++i) {
      const auto end = std::to_chars(num, num + sizeof num, keys[i]).ptr;
      buf.append(num, end);
      buf.push_back('\n');
      if (buf.size() > (1 << 20) - 32 || i + 1 == keys.size()) {
        if (std::fwrite(buf.data(), 1, buf.size(), f) != buf.size()) {
          std::fclose(f);
          throw std::runtime_error("cannot write " + path);
        }
        buf.clear();
      }
    }
    if (std::fclose(f) != 0) throw std::runtime_error("cannot write " + path);
  }

  Relations<K> rel_;
  cj::Digest want_digest_;
  std::vector<cj::Pair> want_;  // the reference pairs, sorted (small results only)
  std::vector<cj::Pair> out_;
  cj::Workspace<K> ws_;
  double h2d_ms_ = 0, d2h_ms_ = 0;
  harness::DeviceBuffer<K> d_r_, d_s_;
  harness::DeviceBuffer<lp::join::RidPair> d_out_;
  harness::DeviceBuffer<unsigned char> scratch_;
};

}  // namespace

std::unique_ptr<harness::Study> make_study() {
  using harness::AxisKind;
  using V = harness::Value;
  harness::StudyDecl s{"join",
                       "He et al.'s relational joins: NINLJ (equi and band), INLJ (CSS-tree, binary search), SMJ, the radix hash join, "
                       "ours (one global hash table; SMJ's merge on sorted inputs) and auto, over R and S of (key, rid) tuples, the (rid_R, "
                       "rid_S) pairs materialised; unique, uniform or zipf-skewed keys, int32 or int64",
                       kDefaultConfig};
  const std::int64_t kMaxTuples = std::int64_t(1) << 30;  // keys of [0, 2 |R|) fit int32; rids fit uint32
  s.axes = {
      {"r", AxisKind::Size, "|R|: tuples of the build (primary key) side", {V(std::int64_t(1) << 20)}, {}, 1, kMaxTuples},
      {"s", AxisKind::Size, "|S|: tuples of the probe (foreign key) side", {V(std::int64_t(1) << 20)}, {}, 1, kMaxTuples},
      {"key", AxisKind::Choice, "key type (int64 keys: the same values minus 2^40)", {V(std::string("int32"))}, {"int32", "int64"}},
      {"distribution", AxisKind::Choice,
       "unique: R's keys distinct, S's drawn from R's (PK-FK); uniform: both uniform over [0, |R|), duplicates on both sides; zipf: "
       "R unique, S's keys zipf(zipf_s) over R's tuples",
       {V(std::string("unique"))}, {"unique", "uniform", "zipf"}},
      {"zipf_s", AxisKind::Real, "zipf exponent (distribution zipf), > 0", {V(1.0)}, {}},
      {"match", AxisKind::Real, "fraction of S's tuples whose key R holds, 0..1 (the join's selectivity on S)", {V(1.0)}, {}},
      {"band", AxisKind::Int, "the predicate |r.key - s.key| <= band: 0 is the equi-join, > 0 a band join (NINLJ only)", {V(std::int64_t(0))},
       {}, 0, std::int64_t(1) << 40},
      {"threads", AxisKind::Int, "CPU threads of the _mt variants (0: every core)", {V(std::int64_t(0))}, {}, 0, 4096},
      {"radix_bits", AxisKind::Int, "hash joins: 2^radix_bits partitions (0: their own choice, R partitions of about 2^13 tuples on the CPU, 2^10 on the GPU (phj: 2^10 with int32 keys, 2^9 with int64))", {V(std::int64_t(0))}, {}, 0, 24},
  };
  s.variants = table().specs();
  s.check_params = [](const Params& p) -> std::string {
    const double match = harness::as_real(p, "match");
    if (!(match >= 0 && match <= 1)) return "match: must be in [0, 1], not " + harness::to_string(p.at("match"));
    const double zs = harness::as_real(p, "zipf_s");
    if (harness::as_str(p, "distribution") == "zipf" && !(zs > 0)) return "zipf_s: must be > 0 for distribution zipf, not " + harness::to_string(p.at("zipf_s"));
    return {};
  };
  s.make_point = [](const Params& p, std::uint64_t seed, bool device) -> std::unique_ptr<harness::Point> {
    if (key_bytes(harness::as_str(p, "key")) == 8) return std::make_unique<JoinPoint<std::int64_t>>(p, seed, device);
    return std::make_unique<JoinPoint<std::int32_t>>(p, seed, device);
  };
  return harness::declare_study(std::move(s));
}

}  // namespace lp::join_study
