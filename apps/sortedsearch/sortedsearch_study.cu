// The sorted-search study: ModernGPU's vectorized sorted search (every mode), our windowed variant,
// vectorized binary search, and Thrust/CUB peers, on sorted keys A (needles) and B (haystack).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <map>
#include <sstream>

#include "apps/harness/auto_record.cuh"
#include "apps/harness/datagen.hpp"
#include "apps/harness/device_buffer.hpp"
#include "apps/harness/framework.hpp"
#include "apps/harness/multigpu.hpp"
#include "apps/harness/sharded_gather.cuh"
#include "apps/harness/sharded_params.hpp"
#include "cpu_reference/sortedsearch/cpu_sorted_search.hpp"
#include "kernels/sortedsearch/auto_sorted_search.cuh"
#include "kernels/sortedsearch/binary_search.cuh"
#include "kernels/sortedsearch/gpu_cuts.hpp"
#include "kernels/sortedsearch/mergepath_sorted_search.cuh"
#include "kernels/sortedsearch/windowed_sorted_search.cuh"
#include "peers.hpp"
#include "sortedsearch_study.hpp"

namespace lp::sortedsearch_study {

using harness::DeviceBuffer;
using harness::Params;
using harness::VariantKind;
using sortedsearch::Bounds;
using sortedsearch::Output;

namespace {

// What a variant computes, which fixes its reference and its minimal traffic.
enum class Result { LowerA, UpperA, LowerAShuffled, Complete, MatchA, CountA, Merge };

// How a sharded variant spreads the search over the GPUs.
enum class Split {
  None,        // a one-GPU variant
  MergePath,   // the merge path of A and B cut into equal diagonals: GPU k holds A and B between two cuts
  Replicated,  // A cut into equal parts, B whole on every GPU
};

// One-GPU indices are 31-bit with a flag bit, and tile offsets are 32-bit.
constexpr std::int64_t kOneGpuKeys = (1ll << 30) + (1ll << 29);

using Gather = harness::ShardedGather<std::uint32_t>;

template <class T>
using MP = sortedsearch::DefaultMergePathTuning<T>;
template <class T>
using WIN = sortedsearch::DefaultWindowedShape<T>;

// What a launcher sees: the sorted keys (device, and on the host for the CPU variants), the
// outputs of its Result, scratch and the stream.
template <class T>
struct Ctx {
  const T* a = nullptr;           // device: the needles
  const T* b = nullptr;           // device: the haystack
  const T* a_shuffled = nullptr;  // device: the needles in a random order (LowerAShuffled)
  int na = 0, nb = 0;
  std::uint32_t* out_a = nullptr;
  std::uint32_t* out_b = nullptr;
  T* out_merge = nullptr;
  unsigned long long* counts = nullptr;    // Complete: the match counts
  const std::uint32_t* lower_in = nullptr;  // CountA: the lower bounds it starts from
  Gather* sharded = nullptr;                // the sharded variants' GPUs and slices
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;
  const T* host_a = nullptr;
  const T* host_b = nullptr;
  std::uint32_t* host_out_a = nullptr;
  std::uint32_t* host_out_b = nullptr;
  cudaStream_t stream = nullptr;
};

struct Props {
  Result result = Result::LowerA;
  bool looks = false;  // auto_lower / auto_upper: the decision table with the profile (auto_sorted_search.cuh)
  Split split = Split::None;
  bool gathered = true;  // sharded: the parts gathered into GPU 0's output, or left on their GPUs
};

// auto_lower / auto_upper's record: the plan (and, where it looked, both columns' profile: profile_
// the haystack, profile2_ the needles) and the sizes-only switch to one search per needle.
template <class T>
harness::Params auto_search_metrics(const Ctx<T>& c) {
  harness::Params p = harness::auto_record(sortedsearch::auto_rule::Rule{sortedsearch::auto_sizes<WIN<T>, T>(c.na, c.nb, true)},
                                           sortedsearch::auto_columns(c.a, c.na, c.b, c.nb), c.scratch, c.scratch_bytes);
  p["switch_ratio"] = sortedsearch::kBinarySwitchRatio<T>;
  return p;
}

template <class T>
using Def = harness::Variant<Ctx<T>, Props>;
template <class T>
using Defs = harness::VariantTable<Def<T>>;

template <class T>
const Defs<T>& table();

template <class T>
class SortedSearchPoint final : public harness::TablePoint<Def<T>> {
  using Base = harness::TablePoint<Def<T>>;
  using Base::ctx_;

 public:
  SortedSearchPoint(const Params& p, std::uint64_t seed, bool device) : Base(table<T>()), device_(device), sp_(p) {
    const std::int64_t na = harness::as_int(p, "a_size"), nb = harness::as_int(p, "b_size");
    const std::string& keys = harness::as_str(p, "keys");
    // Both arrays spread over the same key range, so they interleave whatever their sizes.
    // distinct: 2^30 wide; dups: one eighth of the larger array, about 8 copies of each key.
    std::int64_t span = keys == "dups" ? std::max<std::int64_t>(1, std::max(na, nb) / 8) : (1ll << 30);
    std::string tag = harness::to_string(p.at("a_size")) + "/" + harness::to_string(p.at("b_size")) + "/" + keys;
    a_ = convert(harness::sorted_integers(na, span, harness::derive_seed(seed, "A/" + tag)));
    b_ = convert(harness::sorted_integers(nb, span, harness::derive_seed(seed, "B/" + tag)));
    seed_ = harness::derive_seed(seed, "perm/" + tag);
    // Only the one-GPU variants read the keys from GPU 0; the sharded ones place their own slices.
    if (device_ && sp_.one_gpu()) {
      da_.upload(a_);
      db_.upload(b_);
    }
    ctx_.a = da_.get();
    ctx_.b = db_.get();
    one_gpu_fits_ = std::int64_t(a_.size() + b_.size()) <= kOneGpuKeys;  // else only the sharded variants run
    ctx_.na = one_gpu_fits_ ? int(a_.size()) : 0;
    ctx_.nb = one_gpu_fits_ ? int(b_.size()) : 0;
    ctx_.host_a = a_.data();
    ctx_.host_b = b_.data();
  }

  double inputs() const override { return static_cast<double>(a_.size() + b_.size()); }

 private:
  double bytes(const Def<T>& d) const override {
    const double na = static_cast<double>(a_.size()), nb = static_cast<double>(b_.size()), k = sizeof(T), i = 4;
    switch (d.props.result) {
      case Result::Complete: return (k + i) * (na + nb);
      case Result::CountA: return k * (na + nb) + 2 * i * na;  // the lower bounds are read too
      case Result::Merge: return 2 * k * (na + nb);
      default: return k * (na + nb) + i * na;
    }
  }

  std::string skip_reason(const Def<T>& d) const override {
    const bool sharded = d.props.split != Split::None;
    if (std::string why = sp_.skip(sharded, d.kind, "keys"); !why.empty()) return why;
    if (!sharded && !one_gpu_fits_) return "a_size + b_size above 2^30 + 2^29 on one device (31-bit indices): the sharded_* variants";
    if (d.props.split == Split::Replicated) {
      const std::int64_t most = harness::shard_range(std::int64_t(a_.size()), sp_.gpus, 0).size() + std::int64_t(b_.size());
      if (most > kOneGpuKeys) return "a replicated haystack with a GPU's needles above 2^30 + 2^29 keys (31-bit indices)";
    }
    return Base::skip_reason(d);
  }

  void allocate(const Def<T>& d) override {
    if (d.props.split != Split::None) return allocate_sharded(d);
    const std::size_t na = a_.size(), nb = b_.size();
    if (d.props.result == Result::LowerAShuffled) shuffled();
    if (d.kind == VariantKind::Cpu) {
      host_a_.assign(na, 0xffffffffu);
      host_b_.assign(d.props.result == Result::Complete ? nb : 0, 0xffffffffu);
      bind_outputs();
      return;
    }
    if (d.props.result == Result::Merge) {
      out_merge_.resize(na + nb);
      out_merge_.poison();
    } else {
      out_a_.resize(na);
      out_a_.poison();
    }
    if (d.props.result == Result::Complete) {
      out_b_.resize(nb);
      out_b_.poison();
      counts_.resize(2);
    }
    if (d.props.result == Result::CountA) lower_in_.upload(reference(Result::LowerA));
    // A variant that states its scratch gets exactly that (auto: its slot at the end); the others share one size.
    std::size_t scratch = d.scratch ? d.scratch(ctx_)
                                    : std::max({sortedsearch::mergepath_scratch_bytes<MP<T>>(na, nb), sortedsearch::windowed_scratch_bytes<WIN<T>>(na),
                                                lp::peers::cub_merge_temp_bytes<T>(int(na), int(nb))});
    scratch_.resize(scratch);
    bind_outputs();
  }

  harness::Validation check(const Def<T>& d) override {
    auto idx = [](std::uint32_t v) {
      std::ostringstream os;
      os << (v & 0x7fffffffu);
      if (v & sortedsearch::kMatchBit) os << "*";
      return os.str();
    };
    std::string bad;
    if (d.props.split != Split::None) {
      bad = sharded_->validate(reference(d.props.result), [&](const std::vector<std::uint32_t>& want, const std::vector<std::uint32_t>& got) {
        return harness::first_mismatch(want, got, "A", idx);
      });
    } else if (d.props.result == Result::Merge) {
      bad = harness::first_mismatch(merged(), out_merge_.download(), "merged", [](T v) {
        std::ostringstream os;
        os << v;
        return os.str();
      });
    } else {
      const auto& want = reference(d.props.result);
      bad = harness::first_mismatch(want, d.kind == VariantKind::Cpu ? host_a_ : out_a_.download(), "A", idx);
      if (bad.empty() && d.props.result == Result::Complete) {
        bad = harness::first_mismatch(ref_complete_b_, d.kind == VariantKind::Cpu ? host_b_ : out_b_.download(), "B", idx);
        if (bad.empty() && d.kind != VariantKind::Cpu) {
          std::vector<unsigned long long> got = counts_.download();
          if (got[0] != static_cast<unsigned long long>(complete_matches_.first) ||
              got[1] != static_cast<unsigned long long>(complete_matches_.second))
            bad = "match counts: expected " + std::to_string(complete_matches_.first) + "/" +
                  std::to_string(complete_matches_.second) + ", got " + std::to_string(got[0]) + "/" + std::to_string(got[1]);
        }
      }
    }
    return bad.empty() ? harness::Validation::pass() : harness::Validation::fail(bad);
  }

  harness::Params measured(const Def<T>& d) override {
    if (d.props.split != Split::None && sharded_) {
      // the plan by sizes on GPU 0's slices (each GPU takes its own)
      const auto& c = sharded_->parts()[0].cols;
      namespace ar = sortedsearch::auto_rule;
      harness::Params p = harness::auto_metrics(ar::name(by_size(sortedsearch::auto_sizes<WIN<T>, T>(c[0].size(), c[1].size(), false))), nullptr, -1);
      p["switch_ratio"] = sortedsearch::kBinarySwitchRatio<T>;
      for (auto& [k, v] : sharded_->metrics()) p[k] = v;
      p["split"] = std::string(d.props.split == Split::MergePath ? "merge_path" : "replicated");
      return p;
    }
    if (d.props.looks) return auto_search_metrics(ctx_);
    // auto_complete: the merge path at every ratio, no look.
    if (d.name == "auto_complete") return harness::auto_metrics(sortedsearch::auto_rule::name(sortedsearch::auto_rule::Plan::MergePath), nullptr, -1);
    return {};
  }

  // The sharded variants' slices: one placement at a time (the GPUs then hold one copy of the
  // keys), kept while the next variant wants the same split and bound.
  void allocate_sharded(const Def<T>& d) {
    const Bounds bound = d.props.result == Result::UpperA ? Bounds::Upper : Bounds::Lower;
    const int key = int(d.props.split) * 2 + int(bound);
    if (!sharded_ || sharded_key_ != key) {
      sharded_.reset();
      const std::int64_t na = std::int64_t(a_.size()), nb = std::int64_t(b_.size());
      std::vector<Gather::Part> parts(std::size_t(sp_.gpus));
      if (d.props.split == Split::MergePath) {
        // Cuts at multiples of 32 needles (128 bytes of indices): each part's place in GPU 0's
        // output is then aligned for NCCL's receive (gpu_cuts.hpp says what the exact cuts cost).
        constexpr std::int64_t kAlign = 32;
        const auto cuts = bound == Bounds::Upper ? sortedsearch::merge_path_cuts_aligned<Bounds::Upper>(a_.data(), na, b_.data(), nb, sp_.gpus, kAlign)
                                                 : sortedsearch::merge_path_cuts_aligned<Bounds::Lower>(a_.data(), na, b_.data(), nb, sp_.gpus, kAlign);
        for (std::size_t k = 0; k < parts.size(); ++k) {
          const harness::Range ra{cuts[k].a, cuts[k + 1].a}, rb{cuts[k].b, cuts[k + 1].b};
          parts[k] = {{ra, rb}, ra};
        }
      } else {
        for (std::size_t k = 0; k < parts.size(); ++k) {
          const harness::Range ra = harness::shard_range(na, sp_.gpus, int(k));
          parts[k] = {{ra, harness::Range{0, nb}}, ra};
        }
      }
      sharded_ = std::make_unique<Gather>(std::vector<Gather::Column>{{a_.data(), na, sizeof(T), da_.get()}, {b_.data(), nb, sizeof(T), db_.get()}},
                                          std::move(parts), na);
      sharded_key_ = key;
    }
    ctx_.sharded = sharded_.get();
    sharded_->set_local([](const Gather::Part& p) { return sortedsearch::auto_search_by_size_scratch_bytes<MP<T>, WIN<T>, T>(p.cols[0].size(), p.cols[1].size()); },
                        bound == Bounds::Upper ? search_part<Bounds::Upper> : search_part<Bounds::Lower>,
                        d.props.gathered ? Gather::Outputs::Gather : Gather::Outputs::Leave);
  }
  // A GPU's part: auto's search by sizes of its needles in its slice of B, whose first key is B[b.begin].
  template <Bounds B>
  static void search_part(const Gather::Local& s) {
    const harness::Range &a = s.part->cols[0], &b = s.part->cols[1];
    sortedsearch::auto_sorted_search_by_size<MP<T>, WIN<T>, B>(static_cast<const T*>(s.cols[0]), int(a.size()), static_cast<const T*>(s.cols[1]),
                                                               int(b.size()), s.out, s.scratch, s.stream, std::uint32_t(b.begin));
  }

  std::string checksum(const Def<T>& d) override {
    const Result r = d.props.result;
    if (r == Result::Merge) return harness::checksum_hex(merged());
    std::string sum = harness::checksum_hex(reference(r));
    if (r == Result::Complete) sum += harness::checksum_hex(ref_complete_b_);
    return sum;
  }

  void deallocate(const Def<T>&) override {
    out_a_.reset();
    out_b_.reset();
    out_merge_.reset();
    counts_.reset();
    lower_in_.reset();
    scratch_.reset();
    host_a_.clear();
    host_b_.clear();
  }

 private:
  // Integers map to keys monotonically and one to one. Floating keys are the x-th positive normal
  // value (IEEE bit patterns of positive numbers sort like integers), so 2^26 "distinct" floats
  // stay distinct where a value cast would merge neighbours beyond the 24-bit mantissa.
  static std::vector<T> convert(const std::vector<std::int64_t>& v) {
    std::vector<T> out(v.size());
    std::transform(v.begin(), v.end(), out.begin(), [](std::int64_t x) {
      if constexpr (std::is_same_v<T, float>) {
        std::uint32_t bits = static_cast<std::uint32_t>(x) + 0x00800000u;  // smallest normal float
        float f;
        std::memcpy(&f, &bits, sizeof f);
        return f;
      } else if constexpr (std::is_same_v<T, double>) {
        std::uint64_t bits = static_cast<std::uint64_t>(x) + 0x0010000000000000ull;  // smallest normal double
        double d;
        std::memcpy(&d, &bits, sizeof d);
        return d;
      } else {
        return static_cast<T>(x);
      }
    });
    return out;
  }
  void bind_outputs() {
    ctx_.a_shuffled = da_shuf_.get();
    ctx_.out_a = out_a_.get();
    ctx_.out_b = out_b_.get();
    ctx_.out_merge = out_merge_.get();
    ctx_.counts = counts_.get();
    ctx_.lower_in = lower_in_.get();
    ctx_.scratch = scratch_.get();
    ctx_.scratch_bytes = scratch_.size();
    ctx_.host_out_a = host_a_.data();
    ctx_.host_out_b = host_b_.data();
  }
  void shuffled() {
    if (!perm_.empty() || a_.empty()) return;
    perm_ = harness::permutation(static_cast<std::int64_t>(a_.size()), seed_);
    if (!device_) return;  // only GPU variants take shuffled needles
    std::vector<T> a_shuf(a_.size());
    for (std::size_t i = 0; i < a_.size(); ++i) a_shuf[i] = a_[perm_[i]];
    da_shuf_.upload(a_shuf);
  }
  const std::vector<std::uint32_t>& reference(Result r) {
    auto it = refs_.find(r);
    if (it != refs_.end()) return it->second;
    const std::int64_t na = a_.size(), nb = b_.size();
    std::vector<std::uint32_t> v(a_.size());
    switch (r) {
      case Result::LowerA: cpu::sorted_search<Bounds::Lower>(a_.data(), na, b_.data(), nb, v.data()); break;
      case Result::UpperA: cpu::sorted_search<Bounds::Upper>(a_.data(), na, b_.data(), nb, v.data()); break;
      case Result::MatchA: cpu::sorted_match(a_.data(), na, b_.data(), nb, v.data()); break;
      case Result::CountA: cpu::sorted_equality_count(a_.data(), na, b_.data(), nb, v.data()); break;
      case Result::LowerAShuffled: {
        const auto& lower = reference(Result::LowerA);
        for (std::size_t i = 0; i < v.size(); ++i) v[i] = lower[perm_[i]];
        break;
      }
      case Result::Complete:
        ref_complete_b_.resize(b_.size());
        complete_matches_ = cpu::sorted_search_both<Bounds::Lower>(a_.data(), na, b_.data(), nb, v.data(), ref_complete_b_.data(), true);
        break;
      case Result::Merge: break;
    }
    return refs_[r] = std::move(v);
  }
  const std::vector<T>& merged() {
    if (merged_.empty()) {
      merged_.resize(a_.size() + b_.size());
      std::merge(a_.begin(), a_.end(), b_.begin(), b_.end(), merged_.begin());
    }
    return merged_;
  }

  bool device_;
  harness::ShardedParams sp_;
  bool one_gpu_fits_ = true;
  std::unique_ptr<Gather> sharded_;
  int sharded_key_ = -1;  // the split and bound sharded_ was placed for
  std::uint64_t seed_ = 0;
  std::vector<T> a_, b_, merged_;
  std::vector<std::uint32_t> perm_, ref_complete_b_, host_a_, host_b_;
  std::pair<std::int64_t, std::int64_t> complete_matches_{0, 0};
  std::map<Result, std::vector<std::uint32_t>> refs_;
  DeviceBuffer<T> da_, db_, da_shuf_, out_merge_;
  DeviceBuffer<std::uint32_t> out_a_, out_b_, lower_in_;
  DeviceBuffer<unsigned long long> counts_;
  DeviceBuffer<char> scratch_;
};

// The variants: one entry each.
template <class T>
void add_variants(Defs<T>& d) {
  namespace ss = lp::sortedsearch;
  std::vector<Def<T>> list = {
      {"mergepath_lower", VariantKind::Ours, "merge-path vectorized sorted search: lower bound of A into B (ModernGPU SortedSearch<Lower, Index, None>)", {Result::LowerA}, {}, {},
       [](Ctx<T>& c) { ss::mergepath_sorted_search<MP<T>, Bounds::Lower, Output::Index, Output::None>(c.a, c.na, c.b, c.nb, c.out_a, nullptr, c.scratch, nullptr, c.stream); }},
      {"mergepath_upper", VariantKind::Ours, "merge-path vectorized sorted search: upper bound of A into B (SortedSearch<Upper, Index, None>)", {Result::UpperA}, {}, {},
       [](Ctx<T>& c) { ss::mergepath_sorted_search<MP<T>, Bounds::Upper, Output::Index, Output::None>(c.a, c.na, c.b, c.nb, c.out_a, nullptr, c.scratch, nullptr, c.stream); }},
      {"mergepath_complete", VariantKind::Ours, "complete search in one pass: lower bound A->B, upper bound B->A, match flags in the MSB, match counts (SortedSearch<Lower, IndexMatch, IndexMatch>)", {Result::Complete}, {}, {},
       [](Ctx<T>& c) { ss::mergepath_sorted_search<MP<T>, Bounds::Lower, Output::IndexMatch, Output::IndexMatch>(c.a, c.na, c.b, c.nb, c.out_a, c.out_b, c.scratch, c.counts, c.stream); }},
      {"mergepath_match", VariantKind::Ours, "match-only: 1 where a key of A occurs in B, else 0 (SortedSearch<Lower, Match, None>)", {Result::MatchA}, {}, {},
       [](Ctx<T>& c) { ss::mergepath_sorted_search<MP<T>, Bounds::Lower, Output::Match, Output::None>(c.a, c.na, c.b, c.nb, c.out_a, nullptr, c.scratch, nullptr, c.stream); }},
      {"mergepath_equality_count", VariantKind::Ours, "SortedEqualityCount: occurrences in B of each key of A, from its lower bounds (upper-bound pass minus the given lower bound)", {Result::CountA}, {}, {},
       [](Ctx<T>& c) { ss::mergepath_sorted_search<MP<T>, Bounds::Upper, Output::Index, Output::None>(c.a, c.na, c.b, c.nb, c.out_a, nullptr, c.scratch, nullptr, c.stream, c.lower_in); }},
      {"windowed_lower", VariantKind::Ours, "ours beyond ModernGPU: needle tiles sized to |B| / |A| so that each one's haystack span fits one shared-memory window, binary search + walk; never switches to one binary search per needle (the sweep's merge curve; a tile whose span overflows the window searches it in global memory)", {Result::LowerA}, {}, {},
       [](Ctx<T>& c) { ss::windowed_sorted_search<WIN<T>, Bounds::Lower>(c.a, c.na, c.b, c.nb, c.out_a, c.scratch, c.stream, ss::kNeverSwitch); }},
      {"windowed_complete", VariantKind::Ours, "ours: the complete search on the windowed tiles (lower bound A->B, upper bound B->A, match flags and counts in one pass; each thread writes the B keys between its needles' bounds)", {Result::Complete}, {}, {},
       [](Ctx<T>& c) { ss::windowed_complete_search<WIN<T>>(c.a, c.na, c.b, c.nb, c.out_a, c.out_b, c.scratch, c.counts, c.stream); }},
      {"auto_lower", VariantKind::Ours, "ours (auto_rule.hpp, metrics.plan): by |B| / |A| and key size, one binary search per needle beyond the measured switch ratio (Thrust's from 20 to 40, 4-byte keys) and below 2^21 keys in all, the windowed search from 4 (4-byte keys, 8 on duplicates; 1 for 8-byte keys, 2 on duplicates) up to it and below 1/80 (4-byte), the merge path between; from 128 MiB of keys a look on the device at both columns first: the ratio inside the overlap of their key ranges and the haystack's duplicates move the regions", {Result::LowerA, true}, {},
       [](const Ctx<T>& c) { return ss::auto_search_scratch_bytes<MP<T>, WIN<T>, T>(c.na, c.nb); },
       [](Ctx<T>& c) { ss::auto_sorted_search<MP<T>, WIN<T>, Bounds::Lower>(c.a, c.na, c.b, c.nb, c.out_a, c.scratch, c.scratch_bytes, c.stream); }},
      {"auto_upper", VariantKind::Ours, "ours: auto_lower's table for the upper bound", {Result::UpperA, true}, {},
       [](const Ctx<T>& c) { return ss::auto_search_scratch_bytes<MP<T>, WIN<T>, T>(c.na, c.nb); },
       [](Ctx<T>& c) { ss::auto_sorted_search<MP<T>, WIN<T>, Bounds::Upper>(c.a, c.na, c.b, c.nb, c.out_a, c.scratch, c.scratch_bytes, c.stream); }},
      {"auto_complete", VariantKind::Ours, "ours: the complete search's best as measured on the H100 ratio sweep: the merge-path kernel at every ratio (windowed_complete ties it only at 4..12 and loses elsewhere; a complete search reads all of B at any ratio)", {Result::Complete}, {}, {},
       [](Ctx<T>& c) { ss::mergepath_sorted_search<MP<T>, Bounds::Lower, Output::IndexMatch, Output::IndexMatch>(c.a, c.na, c.b, c.nb, c.out_a, c.out_b, c.scratch, c.counts, c.stream); }},
      {"binary_search_lower", VariantKind::Ours, "vectorized binary search, one thread per needle, sorted needles", {Result::LowerA}, {}, {},
       [](Ctx<T>& c) { ss::binary_search<Bounds::Lower>(c.a, c.na, c.b, c.nb, c.out_a, c.stream); }},
      {"binary_search_lower_unsorted", VariantKind::Ours, "vectorized binary search with the needles shuffled (the reference's cache-line argument)", {Result::LowerAShuffled}, {}, {},
       [](Ctx<T>& c) { ss::binary_search<Bounds::Lower>(c.a_shuffled, c.na, c.b, c.nb, c.out_a, c.stream); }},
      {"thrust_lower_bound", VariantKind::Peer, "thrust::lower_bound, sorted needles", {Result::LowerA}, {}, {},
       [](Ctx<T>& c) { lp::peers::thrust_lower_bound(c.b, c.nb, c.a, c.na, c.out_a, c.stream); }},
      {"thrust_lower_bound_unsorted", VariantKind::Peer, "thrust::lower_bound, shuffled needles", {Result::LowerAShuffled}, {}, {},
       [](Ctx<T>& c) { lp::peers::thrust_lower_bound(c.b, c.nb, c.a_shuffled, c.na, c.out_a, c.stream); }},
      {"thrust_upper_bound", VariantKind::Peer, "thrust::upper_bound, sorted needles", {Result::UpperA}, {}, {},
       [](Ctx<T>& c) { lp::peers::thrust_upper_bound(c.b, c.nb, c.a, c.na, c.out_a, c.stream); }},
#if LP_CUB_BOUND_SORTED
      {"cub_lower_bound_sorted", VariantKind::Peer, "cub::DeviceFind::LowerBoundSortedValues (CCCL 3.5 and later): CUB's search for sorted needles", {Result::LowerA}, {},
       [](const Ctx<T>& c) { return lp::peers::cub_bound_sorted_temp_bytes<T>(int(c.nb), int(c.na)); },
       [](Ctx<T>& c) { lp::peers::cub_bound_sorted<T, false>(c.b, c.nb, c.a, c.na, c.out_a, c.scratch, c.scratch_bytes, c.stream); }},
      {"cub_upper_bound_sorted", VariantKind::Peer, "cub::DeviceFind::UpperBoundSortedValues (CCCL 3.5 and later)", {Result::UpperA}, {},
       [](const Ctx<T>& c) { return lp::peers::cub_bound_sorted_temp_bytes<T>(int(c.nb), int(c.na)); },
       [](Ctx<T>& c) { lp::peers::cub_bound_sorted<T, true>(c.b, c.nb, c.a, c.na, c.out_a, c.scratch, c.scratch_bytes, c.stream); }},
#endif
      {"thrust_merge", VariantKind::Peer, "thrust::merge of A and B: the same traversal, writing keys", {Result::Merge}, {}, {},
       [](Ctx<T>& c) { lp::peers::thrust_merge(c.a, c.na, c.b, c.nb, c.out_merge, c.stream); }},
      {"cub_merge", VariantKind::Peer, "cub::DeviceMerge::MergeKeys of A and B", {Result::Merge}, {}, {},
       [](Ctx<T>& c) { lp::peers::cub_merge(c.a, c.na, c.b, c.nb, c.out_merge, c.scratch, c.scratch_bytes, c.stream); }},
      {"sharded_lower", VariantKind::Ours, "over the gpus: the merge path of A and B cut into equal diagonals, each cut moved to a multiple of 32 needles so that the parts land aligned (gpu_cuts.hpp), GPU k runs auto_lower's plan by sizes (no look) on its needles and haystack slice, the parts gathered to GPU 0 (ncclSend/Recv)", {Result::LowerA, false, Split::MergePath}, {}, {},
       [](Ctx<T>& c) { c.sharded->run(c.stream); }},
      {"sharded_upper", VariantKind::Ours, "sharded_lower's cuts and gather for the upper bound (equal keys: B before A on the merge path)", {Result::UpperA, false, Split::MergePath}, {}, {},
       [](Ctx<T>& c) { c.sharded->run(c.stream); }},
      {"sharded_lower_local", VariantKind::Ours, "sharded_lower's cuts and local searches with each GPU's indices left on it (no gather): what a distributed pipeline consumes, the local phase alone", {Result::LowerA, false, Split::MergePath, false}, {}, {},
       [](Ctx<T>& c) { c.sharded->run(c.stream); }},
      {"sharded_lower_replicated", VariantKind::Ours, "the alternative: the needles cut into equal parts, the haystack whole on every GPU, auto_lower's plan by sizes on each part, gathered to GPU 0", {Result::LowerA, false, Split::Replicated}, {}, {},
       [](Ctx<T>& c) { c.sharded->run(c.stream); }},
      {"cpu_sorted_search", VariantKind::Cpu, "CPUSortedSearch<Lower>: one sequential linear pass (the reference's CPU code)", {Result::LowerA}, {}, {},
       [](Ctx<T>& c) { cpu::sorted_search<Bounds::Lower>(c.host_a, c.na, c.host_b, c.nb, c.host_out_a); }},
      {"cpu_sorted_search3", VariantKind::Cpu, "CPUSortedSearch3: lower bound A->B and upper bound B->A with match flags, one pass", {Result::Complete}, {}, {},
       [](Ctx<T>& c) { cpu::sorted_search_both<Bounds::Lower>(c.host_a, c.na, c.host_b, c.nb, c.host_out_a, c.host_out_b, true); }},
      {"cpu_binary_search", VariantKind::Cpu, "std::lower_bound for every needle (sequential)", {Result::LowerA}, {}, {},
       [](Ctx<T>& c) { cpu::binary_search<Bounds::Lower>(c.host_a, c.na, c.host_b, c.nb, c.host_out_a); }},
  };
  for (Def<T>& v : list) d.add(std::move(v));
}

template <class T>
const Defs<T>& table() {
  static const Defs<T> t("sortedsearch", {add_variants<T>});
  return t;
}

// SortRandom(n, 0, 299) of the reference's demonstrations: n uniform keys, sorted.
std::vector<int> sort_random(int n, std::uint64_t seed) {
  harness::Rng rng(seed);
  std::vector<int> v(n);
  for (int& x : v) x = static_cast<int>(rng.below(300));
  std::sort(v.begin(), v.end());
  return v;
}

template <class F>
void print_array(std::ostream& os, int n, F item) {
  char buf[32];
  for (int i = 0; i < n; ++i) {
    if (i % 10 == 0) {
      std::snprintf(buf, sizeof buf, "%s%5d: ", i ? "\n" : "", i);
      os << buf;
    }
    os << item(i);
  }
  os << "\n";
}

// Runs a demonstration's search on the GPU when there is one; without one, returns the CPU
// reference results (`ia`, `ib` hold them on entry).
void demo_search(const std::vector<int>& a, const std::vector<int>& b, bool complete, std::vector<std::uint32_t>& ia,
                 std::vector<std::uint32_t>& ib, bool device) {
  if (!device) return;
  DeviceBuffer<int> da, db;
  da.upload(a);
  db.upload(b);
  DeviceBuffer<std::uint32_t> oa(a.size()), ob(b.size());
  DeviceBuffer<unsigned long long> counts(2);
  DeviceBuffer<char> scratch(sortedsearch::mergepath_scratch_bytes<MP<int>>(a.size(), b.size()));
  if (complete)
    sortedsearch::mergepath_sorted_search<MP<int>, Bounds::Lower, Output::IndexMatch, Output::IndexMatch>(
        da.get(), int(a.size()), db.get(), int(b.size()), oa.get(), ob.get(), scratch.get(), counts.get(), nullptr);
  else
    sortedsearch::mergepath_sorted_search<MP<int>, Bounds::Lower, Output::Index, Output::None>(
        da.get(), int(a.size()), db.get(), int(b.size()), oa.get(), nullptr, scratch.get(), nullptr, nullptr);
  LP_CUDA(cudaDeviceSynchronize());
  ia = oa.download();
  if (complete) ib = ob.download();
}

// The reference page's two demonstrations, in its format, checked against CPUSortedSearch(3).
int demo(std::ostream& os, bool device) {
  auto num = [](int v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%4d", v);
    return std::string(buf);
  };
  auto flagged = [](std::uint32_t v) {
    char buf[16];
    std::snprintf(buf, sizeof buf, "%c%3d", (v & sortedsearch::kMatchBit) ? '*' : ' ', int(v & 0x7fffffffu));
    return std::string(buf);
  };
  bool ok = true;
  const char* where = device ? "GPU mergepath kernel" : "CPU reference (no GPU)";

  std::vector<int> haystack = sort_random(200, 1), needles = sort_random(100, 2);
  std::vector<std::uint32_t> lower, unused, ref(needles.size());
  cpu::sorted_search<Bounds::Lower>(needles.data(), 100, haystack.data(), 200, ref.data());
  lower = ref;
  demo_search(needles, haystack, false, lower, unused, device);
  os << "\n\nSORTED SEARCH DEMONSTRATION:\n\nHaystack array:\n";
  print_array(os, 200, [&](int i) { return num(haystack[i]); });
  os << "\nNeedles array:\n";
  print_array(os, 100, [&](int i) { return num(needles[i]); });
  os << "\nLower bound array:\n";
  print_array(os, 100, [&](int i) { return num(int(lower[i])); });
  ok &= lower == ref;

  std::vector<int> a = sort_random(100, 3), b = sort_random(100, 4);
  std::vector<std::uint32_t> ia, ib, ra(100), rb(100);
  cpu::sorted_search_both<Bounds::Lower>(a.data(), 100, b.data(), 100, ra.data(), rb.data(), true);
  ia = ra, ib = rb;
  demo_search(a, b, true, ia, ib, device);
  os << "\n\nSORTED SEARCH DEMONSTRATION (2):\n\nA array:\n";
  print_array(os, 100, [&](int i) { return num(a[i]); });
  os << "\nB array:\n";
  print_array(os, 100, [&](int i) { return num(b[i]); });
  os << "\nLower bound of A into B (* for match):\n";
  print_array(os, 100, [&](int i) { return flagged(ia[i]); });
  os << "\nUpper bound of B into A (* for match):\n";
  print_array(os, 100, [&](int i) { return flagged(ib[i]); });
  ok &= ia == ra && ib == rb;

  os << "\n" << (ok ? "checked: " : "MISMATCH: ") << where << (ok ? " agrees with" : " differs from")
     << " CPUSortedSearch / CPUSortedSearch3\n";
  return ok ? 0 : 1;

}

}  // namespace

std::unique_ptr<harness::Study> make_study() {
  const std::int64_t max_size = (1ll << 32) - 1;  // several GPUs; one takes a_size + b_size <= kOneGpuKeys
  harness::StudyDecl s{"sortedsearch",
                       "ModernGPU vectorized sorted search (all modes) vs vectorized binary search, Thrust and CUB",
                       kDefaultConfig};
  s.axes = {
      {"a_size", harness::AxisKind::Size, "|A|, the needles (sorted)", {std::int64_t(1) << 26}, {}, 0, max_size},
      {"b_size", harness::AxisKind::Size, "|B|, the haystack (sorted)", {std::int64_t(1) << 26}, {}, 0, max_size},
      {"type", harness::AxisKind::Choice, "key type: int32, int64, float, double", {std::string("int32")}, {"int32", "int64", "float", "double"}, 0, 0},
      {"keys", harness::AxisKind::Choice, "distinct (no key repeats within an array) or dups (about 8 copies of each key)", {std::string("distinct")}, {"distinct", "dups"}, 0, 0},
      harness::gpus_axis(),
  };
  s.variants = table<int>().specs();
  s.check_params = [](const Params& p) -> std::string {
    // Indices are 32-bit with a flag bit, and tile offsets are 32-bit: each GPU's share of the
    // keys must fit that; the gathered indices into B are 32-bit.
    const std::int64_t keys = harness::as_int(p, "a_size") + harness::as_int(p, "b_size"), gpus = harness::as_int(p, "gpus");
    if (keys > gpus * kOneGpuKeys)
      return gpus == 1 ? "a_size + b_size must not exceed 2^30 + 2^29 on one GPU (indices are 31-bit)"
                       : "a_size + b_size must not exceed gpus * (2^30 + 2^29) (each GPU's indices are 31-bit)";
    return {};
  };
  s.make_point = [](const Params& p, std::uint64_t seed, bool device) -> std::unique_ptr<harness::Point> {
    const std::string& t = harness::as_str(p, "type");
    if (t == "int32") return std::make_unique<SortedSearchPoint<std::int32_t>>(p, seed, device);
    if (t == "int64") return std::make_unique<SortedSearchPoint<std::int64_t>>(p, seed, device);
    if (t == "float") return std::make_unique<SortedSearchPoint<float>>(p, seed, device);
    return std::make_unique<SortedSearchPoint<double>>(p, seed, device);
  };
  s.demo = demo;
  return harness::declare_study(std::move(s));
}

}  // namespace lp::sortedsearch_study
