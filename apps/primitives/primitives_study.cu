// The primitives study: He et al. 2008's six data-parallel primitives (3.1 of
// He et al. 2008, docs/references.md), the constructs of their joins, each on n
// (key, rid) tuples (inputs.hpp): our kernels and their algorithms beside CUB, Thrust and one CPU
// thread. The axis `op` picks the primitive a point computes; each variant runs the points of its
// own. The reference is computed once per point on the host; outputs with one right answer (map,
// scatter, gather, scan) are compared element by element, a split by its partitions (a permutation
// of the input, partition ids non-decreasing, the sizes of the CPU's histogram) and a sort by its
// keys (those of std::sort, in order) and rids (each once, naming a tuple of that key).
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/harness/device_buffer.hpp"
#include "cpu_reference/primitives/primitives.hpp"
#include "inputs.hpp"
#include "kernels/join/split.cuh"
#include "kernels/join/split_staged.cuh"
#include "kernels/scatter/multipass.cuh"
#include "primitives_study.hpp"
#include "variant.hpp"

namespace lp::primitives_study {

using harness::Params;
using harness::VariantKind;
namespace cp = lp::cpu::primitives;

namespace {

const Defs& table() {
  static const Defs t("primitives", {add_ours_variants, add_peer_variants, add_cpu_variants});
  return t;
}

Op op_of(const std::string& name) {
  for (Op op : {Op::Map, Op::Scatter, Op::Gather, Op::Scan, Op::Split, Op::Sort})
    if (name == to_string(op)) return op;
  throw std::logic_error("primitives: no op '" + name + "'");  // the config layer checked the choice
}

std::string decimal(std::uint32_t v) { return std::to_string(v); }
std::string tuple_text(std::uint64_t t) {
  return "(key " + std::to_string(lp::join::tuple_key(t)) + ", rid " + std::to_string(lp::join::tuple_rid(t)) + ")";
}

// What DeviceBuffer::poison leaves, for the CPU variants' outputs too: a slot a variant forgot
// to write fails validation.
template <class T>
void poison(std::vector<T>& v, std::int64_t n) {
  v.assign(std::size_t(n), ~T(0));
}

class PrimitivesPoint final : public harness::TablePoint<Def> {
 public:
  PrimitivesPoint(const Params& p, std::uint64_t seed, bool device) : TablePoint(table()) {
    ctx_.op = op_of(harness::as_str(p, "op"));
    ctx_.n = harness::as_int(p, "n");
    ctx_.fanout = std::uint32_t(harness::as_int(p, "fanout"));
    ctx_.split_tile = int(harness::as_int(p, "split_tile"));
    const std::int64_t n = ctx_.n;
    std::vector<std::uint32_t> keys = make_keys(n, seed);
    // Each primitive's inputs only, and its reference.
    switch (ctx_.op) {
      case Op::Map:
        keys_ = std::move(keys);
        want32_.resize(std::size_t(n));
        cp::map_partitions(keys_.data(), n, ctx_.fanout, want32_.data());
        break;
      case Op::Scatter:
      case Op::Gather:
        tuples_ = make_tuples(keys);
        loc_ = make_locations(n, seed);
        want64_.resize(std::size_t(n));
        if (ctx_.op == Op::Scatter) cp::scatter(tuples_.data(), loc_.data(), n, want64_.data());
        else cp::gather(tuples_.data(), loc_.data(), n, want64_.data());
        break;
      case Op::Scan:
        counts_ = make_counts(keys);
        want32_.resize(std::size_t(n));
        cp::exclusive_scan(counts_.data(), n, want32_.data());
        break;
      case Op::Split:
        tuples_ = make_tuples(keys);
        hist_ = cp::histogram(tuples_.data(), n, ctx_.fanout);
        break;
      case Op::Sort: {
        keys_ = std::move(keys);
        rids_ = make_rids(n);
        std::vector<std::uint32_t> k(static_cast<std::size_t>(n)), r(static_cast<std::size_t>(n));
        cp::sort(keys_.data(), rids_.data(), n, k.data(), r.data(), want64_);  // want64_: the sorted (key, rid) words
        break;
      }
    }
    ctx_.host = {keys_.data(), rids_.data(), tuples_.data(), loc_.data(), counts_.data()};
    ctx_.host_scratch = &host_scratch_;
    if (device) {
      d_keys_.upload(keys_);
      d_rids_.upload(rids_);
      d_tuples_.upload(tuples_);
      d_loc_.upload(loc_);
      d_counts_.upload(counts_);
      ctx_.dev = {d_keys_.get(), d_rids_.get(), d_tuples_.get(), d_loc_.get(), d_counts_.get()};
    }
  }

  double inputs() const override { return double(ctx_.n); }

 private:
  // The primitive's minimal traffic: its inputs read once, its output written once.
  double bytes(const Def&) const override {
    const double n = double(ctx_.n);
    switch (ctx_.op) {
      case Op::Map: return n * (4 + 4);                // key in, partition id out
      case Op::Scatter:
      case Op::Gather: return n * (8 + 4 + 8);         // tuple and location in, tuple out
      case Op::Scan: return n * (4 + 4);               // count in, sum out
      case Op::Split: return n * (8 + 8);              // tuple in, tuple out
      case Op::Sort: return n * (4 + 4 + 4 + 4);       // key and rid in, key and rid out
    }
    return 0;
  }

  // The outputs the primitive writes, poisoned; for GPU variants on the device with their scratch.
  void allocate(const Def& d) override {
    const std::int64_t n = ctx_.n;
    const bool words = ctx_.op == Op::Map || ctx_.op == Op::Scan || ctx_.op == Op::Sort;
    const bool rids = ctx_.op == Op::Sort;
    const bool tuples = !words;
    if (d.kind == VariantKind::Cpu) {
      if (words) poison(got32_, n);
      if (rids) poison(got_rids_, n);
      if (tuples) poison(got64_, n);
      ctx_.host_out = {got32_.data(), got_rids_.data(), got64_.data()};
      return;
    }
    if (words) d_out32_.resize(std::size_t(n)), d_out32_.poison();
    if (rids) d_out_rids_.resize(std::size_t(n)), d_out_rids_.poison();
    if (tuples) d_out64_.resize(std::size_t(n)), d_out64_.poison();
    ctx_.dev_out = {d_out32_.get(), d_out_rids_.get(), d_out64_.get()};
    ctx_.scratch_bytes = d.scratch ? d.scratch(ctx_) : 0;
    scratch_.resize(ctx_.scratch_bytes);
    ctx_.scratch = scratch_.get();
  }

  harness::Validation check(const Def& d) override {
    if (d.kind != VariantKind::Cpu) {
      got32_ = d_out32_.download();
      got_rids_ = d_out_rids_.download();
      got64_ = d_out64_.download();
    }
    std::string bad;
    switch (ctx_.op) {
      case Op::Map: bad = harness::first_mismatch(want32_, got32_, "id", decimal); break;
      case Op::Scan: bad = harness::first_mismatch(want32_, got32_, "sum", decimal); break;
      case Op::Scatter:
      case Op::Gather: bad = harness::first_mismatch(want64_, got64_, "out", tuple_text); break;
      case Op::Split:
        bad = got64_.size() != std::size_t(ctx_.n) ? "no output" : cp::split_mismatch(tuples_.data(), ctx_.n, ctx_.fanout, hist_, got64_.data());
        break;
      case Op::Sort:
        bad = got32_.size() != std::size_t(ctx_.n) || got_rids_.size() != std::size_t(ctx_.n)
                  ? "no output"
                  : cp::sort_mismatch(keys_.data(), ctx_.n, want64_, got32_.data(), got_rids_.data());
        break;
    }
    return bad.empty() ? harness::Validation::pass() : harness::Validation::fail(bad);
  }

  // The reference: the ids or sums, the moved or sorted tuples, the split's partition sizes.
  std::string checksum(const Def&) override {
    switch (ctx_.op) {
      case Op::Map:
      case Op::Scan: return harness::checksum_hex(want32_);
      case Op::Split: return harness::checksum_hex(hist_);
      default: return harness::checksum_hex(want64_);
    }
  }

  // The choices a variant made at this point: He et al.'s pass count, the split's thread blocks.
  Params measured(const Def& d) override {
    Params out;
    if (d.name == "multipass")
      out["passes"] = std::int64_t(lp::scatter::multipass_count(std::uint32_t(ctx_.n), sizeof(std::uint64_t), ctx_.op == Op::Gather, lp::scatter::Tuning{}));
    if (d.name == "split") out["blocks"] = std::int64_t(lp::join::split_blocks(ctx_.n, ctx_.fanout));
    if (d.name == "split_staged") out["blocks"] = std::int64_t(lp::join::split_staged_blocks(ctx_.n, ctx_.fanout, ctx_.split_tile));
    return out;
  }

  // The outputs and scratch go with the variant, so no variant's timing depends on which ran before.
  void deallocate(const Def&) override {
    std::vector<std::uint32_t>().swap(got32_);
    std::vector<std::uint32_t>().swap(got_rids_);
    std::vector<std::uint64_t>().swap(got64_);
    std::vector<std::uint64_t>().swap(host_scratch_);
    d_out32_.reset();
    d_out_rids_.reset();
    d_out64_.reset();
    scratch_.reset();
    ctx_.host_out = {};
    ctx_.dev_out = {};
    ctx_.scratch = nullptr;
    ctx_.scratch_bytes = 0;
  }

  // Inputs (only the op's are filled).
  std::vector<std::uint32_t> keys_, rids_, loc_, counts_;
  std::vector<std::uint64_t> tuples_;
  // The reference: ids or sums (want32_); moved tuples or sorted words (want64_); partition sizes.
  std::vector<std::uint32_t> want32_;
  std::vector<std::uint64_t> want64_, hist_;
  // The last variant's outputs (the CPU's written in place, the GPU's downloaded) and the CPU's scratch.
  std::vector<std::uint32_t> got32_, got_rids_;
  std::vector<std::uint64_t> got64_, host_scratch_;
  harness::DeviceBuffer<std::uint32_t> d_keys_, d_rids_, d_loc_, d_counts_, d_out32_, d_out_rids_;
  harness::DeviceBuffer<std::uint64_t> d_tuples_, d_out64_;
  harness::DeviceBuffer<unsigned char> scratch_;
};

}  // namespace

std::unique_ptr<harness::Study> make_study() {
  using harness::AxisKind;
  using V = harness::Value;
  harness::StudyDecl s{"primitives",
                       "He et al. 2008's data-parallel primitives of GPU joins (3.1): map, scatter, gather, prefix scan, split (Algorithm 1) "
                       "and sort over n (key, rid) tuples; ours, CUB, Thrust and one CPU thread",
                       kDefaultConfig};
  s.axes = {
      {"n", AxisKind::Size, "tuples: a 32-bit key uniform over [0, 2^32) and its rid (= position)", {V(std::int64_t(1) << 24)}, {}, 1,
       std::int64_t(1) << 30},
      {"fanout", AxisKind::Int, "map and split: partitions, partition = hash(key) % fanout (any value, not only powers of two)",
       {V(std::int64_t(1) << 8)}, {}, 2, std::int64_t(1) << 12},
      {"split_tile", AxisKind::Int,
       "split_staged's tile in tuples: 0 takes its default by the fanout (8192 up to fanout 256, 16384 beyond), else 4096, 8192 or 16384; "
       "the other variants ignore it",
       {V(std::int64_t(0))}, {}, 0, 16384, true},
      {"op", AxisKind::Choice,
       "the primitive: map (partition ids), scatter / gather (the tuples through a random permutation), scan (exclusive sum of key % 16), "
       "split (into fanout partitions), sort (by key)",
       {V(std::string("map"))}, op_names()},
  };
  s.variants = table().specs();
  s.make_point = [](const Params& p, std::uint64_t seed, bool device) -> std::unique_ptr<harness::Point> {
    return std::make_unique<PrimitivesPoint>(p, seed, device);
  };
  return harness::declare_study(std::move(s));
}

}  // namespace lp::primitives_study
