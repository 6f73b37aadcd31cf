// The sorted-search study: ModernGPU's vectorized sorted search (every mode), our windowed variant,
// vectorized binary search, and Thrust/CUB peers, on sorted keys A (needles) and B (haystack).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <functional>
#include <map>
#include <sstream>

#include "apps/harness/datagen.hpp"
#include "apps/harness/device_buffer.hpp"
#include "apps/harness/study.hpp"
#include "cpu_reference/sortedsearch/cpu_sorted_search.hpp"
#include "kernels/sortedsearch/binary_search.cuh"
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

template <class T>
using MP = sortedsearch::DefaultMergePathTuning<T>;
template <class T>
using WIN = sortedsearch::DefaultWindowedTuning<T>;

template <class T>
class SortedSearchPoint;

template <class T>
struct Def {
  const char* name;
  VariantKind kind;
  Result result;
  const char* description;
  std::function<void(SortedSearchPoint<T>&, cudaStream_t)> run;
};

template <class T>
const std::vector<Def<T>>& defs();

template <class T>
class SortedSearchPoint final : public harness::Point {
 public:
  SortedSearchPoint(const Params& p, std::uint64_t seed, bool device) : device_(device) {
    const std::int64_t na = harness::as_int(p, "a_size"), nb = harness::as_int(p, "b_size");
    const std::string& keys = harness::as_str(p, "keys");
    // Both arrays spread over the same key range, so they interleave whatever their sizes.
    // distinct: 2^30 wide; dups: one eighth of the larger array, about 8 copies of each key.
    std::int64_t span = keys == "dups" ? std::max<std::int64_t>(1, std::max(na, nb) / 8) : (1ll << 30);
    std::string tag = harness::to_string(p.at("a_size")) + "/" + harness::to_string(p.at("b_size")) + "/" + keys;
    a_ = convert(harness::sorted_integers(na, span, harness::derive_seed(seed, "A/" + tag)));
    b_ = convert(harness::sorted_integers(nb, span, harness::derive_seed(seed, "B/" + tag)));
    seed_ = harness::derive_seed(seed, "perm/" + tag);
    if (device_) {
      da_.upload(a_);
      db_.upload(b_);
    }
  }

  double inputs() const override { return static_cast<double>(a_.size() + b_.size()); }

  double minimal_bytes(const std::string& variant) const override {
    const double na = static_cast<double>(a_.size()), nb = static_cast<double>(b_.size()), k = sizeof(T), i = 4;
    switch (def(variant).result) {
      case Result::Complete: return (k + i) * (na + nb);
      case Result::CountA: return k * (na + nb) + 2 * i * na;  // the lower bounds are read too
      case Result::Merge: return 2 * k * (na + nb);
      default: return k * (na + nb) + i * na;
    }
  }

  void prepare(const std::string& variant) override {
    const Def<T>& d = def(variant);
    const std::size_t na = a_.size(), nb = b_.size();
    if (d.result == Result::LowerAShuffled) shuffled();
    if (d.kind == VariantKind::Cpu) {
      host_a_.assign(na, 0xffffffffu);
      host_b_.assign(d.result == Result::Complete ? nb : 0, 0xffffffffu);
      return;
    }
    if (d.result == Result::Merge) {
      out_merge_.resize(na + nb);
      out_merge_.poison();
    } else {
      out_a_.resize(na);
      out_a_.poison();
    }
    if (d.result == Result::Complete) {
      out_b_.resize(nb);
      out_b_.poison();
      counts_.resize(2);
    }
    if (d.result == Result::CountA) lower_in_.upload(reference(Result::LowerA));
    std::size_t scratch = std::max({sortedsearch::mergepath_scratch_bytes<MP<T>>(na, nb),
                                    sortedsearch::windowed_scratch_bytes<WIN<T>>(na),
                                    lp::peers::cub_merge_temp_bytes<T>(int(na), int(nb))});
    scratch_.resize(scratch);
  }

  void run(const std::string& variant, void* stream) override { def(variant).run(*this, static_cast<cudaStream_t>(stream)); }

  harness::Validation validate(const std::string& variant) override {
    const Def<T>& d = def(variant);
    auto idx = [](std::uint32_t v) {
      std::ostringstream os;
      os << (v & 0x7fffffffu);
      if (v & sortedsearch::kMatchBit) os << "*";
      return os.str();
    };
    std::string bad;
    if (d.result == Result::Merge) {
      bad = harness::first_mismatch(merged(), out_merge_.download(), "merged", [](T v) {
        std::ostringstream os;
        os << v;
        return os.str();
      });
    } else {
      const auto& want = reference(d.result);
      bad = harness::first_mismatch(want, d.kind == VariantKind::Cpu ? host_a_ : out_a_.download(), "A", idx);
      if (bad.empty() && d.result == Result::Complete) {
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

  std::string reference_checksum(const std::string& variant) override {
    const Result r = def(variant).result;
    if (r == Result::Merge) return harness::checksum_hex(merged());
    std::string sum = harness::checksum_hex(reference(r));
    if (r == Result::Complete) sum += harness::checksum_hex(ref_complete_b_);
    return sum;
  }

  void release(const std::string&) override {
    out_a_.reset();
    out_b_.reset();
    out_merge_.reset();
    counts_.reset();
    lower_in_.reset();
    scratch_.reset();
    host_a_.clear();
    host_b_.clear();
  }

  // What the variants' run functions use.
  int na() const { return static_cast<int>(a_.size()); }
  int nb() const { return static_cast<int>(b_.size()); }
  const T* da() const { return da_.get(); }
  const T* db() const { return db_.get(); }
  const T* da_shuffled() const { return da_shuf_.get(); }
  const std::vector<T>& a() const { return a_; }
  const std::vector<T>& b() const { return b_; }
  std::uint32_t* out_a() { return out_a_.get(); }
  std::uint32_t* out_b() { return out_b_.get(); }
  T* out_merge() { return out_merge_.get(); }
  unsigned long long* counts() { return counts_.get(); }
  const std::uint32_t* lower_in() const { return lower_in_.get(); }
  void* scratch() { return scratch_.get(); }
  std::size_t scratch_bytes() const { return scratch_.size(); }
  std::vector<std::uint32_t>& host_a() { return host_a_; }
  std::vector<std::uint32_t>& host_b() { return host_b_; }

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
  static const Def<T>& def(const std::string& name) {
    for (const auto& d : defs<T>())
      if (name == d.name) return d;
    throw std::logic_error("sortedsearch: no variant '" + name + "'");
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

// The variants: one line each. P is the point; s the stream.
template <class T>
const std::vector<Def<T>>& defs() {
  using P = SortedSearchPoint<T>;
  namespace ss = lp::sortedsearch;
  static const std::vector<Def<T>> list = {
      {"mergepath_lower", VariantKind::Ours, Result::LowerA, "merge-path vectorized sorted search: lower bound of A into B (ModernGPU SortedSearch<Lower, Index, None>)",
       [](P& p, cudaStream_t s) { ss::mergepath_sorted_search<MP<T>, Bounds::Lower, Output::Index, Output::None>(p.da(), p.na(), p.db(), p.nb(), p.out_a(), nullptr, p.scratch(), nullptr, s); }},
      {"mergepath_upper", VariantKind::Ours, Result::UpperA, "merge-path vectorized sorted search: upper bound of A into B (SortedSearch<Upper, Index, None>)",
       [](P& p, cudaStream_t s) { ss::mergepath_sorted_search<MP<T>, Bounds::Upper, Output::Index, Output::None>(p.da(), p.na(), p.db(), p.nb(), p.out_a(), nullptr, p.scratch(), nullptr, s); }},
      {"mergepath_complete", VariantKind::Ours, Result::Complete, "complete search in one pass: lower bound A->B, upper bound B->A, match flags in the MSB, match counts (SortedSearch<Lower, IndexMatch, IndexMatch>)",
       [](P& p, cudaStream_t s) { ss::mergepath_sorted_search<MP<T>, Bounds::Lower, Output::IndexMatch, Output::IndexMatch>(p.da(), p.na(), p.db(), p.nb(), p.out_a(), p.out_b(), p.scratch(), p.counts(), s); }},
      {"mergepath_match", VariantKind::Ours, Result::MatchA, "match-only: 1 where a key of A occurs in B, else 0 (SortedSearch<Lower, Match, None>)",
       [](P& p, cudaStream_t s) { ss::mergepath_sorted_search<MP<T>, Bounds::Lower, Output::Match, Output::None>(p.da(), p.na(), p.db(), p.nb(), p.out_a(), nullptr, p.scratch(), nullptr, s); }},
      {"mergepath_equality_count", VariantKind::Ours, Result::CountA, "SortedEqualityCount: occurrences in B of each key of A, from its lower bounds (upper-bound pass minus the given lower bound)",
       [](P& p, cudaStream_t s) { ss::mergepath_sorted_search<MP<T>, Bounds::Upper, Output::Index, Output::None>(p.da(), p.na(), p.db(), p.nb(), p.out_a(), nullptr, p.scratch(), nullptr, s, p.lower_in()); }},
      {"windowed_lower", VariantKind::Ours, Result::LowerA, "ours beyond ModernGPU: needle tiles with a staged haystack window, binary search + walk; global binary search when |A| << |B|",
       [](P& p, cudaStream_t s) { ss::windowed_sorted_search<WIN<T>, Bounds::Lower>(p.da(), p.na(), p.db(), p.nb(), p.out_a(), p.scratch(), s); }},
      {"binary_search_lower", VariantKind::Ours, Result::LowerA, "vectorized binary search, one thread per needle, sorted needles",
       [](P& p, cudaStream_t s) { ss::binary_search<Bounds::Lower>(p.da(), p.na(), p.db(), p.nb(), p.out_a(), s); }},
      {"binary_search_lower_unsorted", VariantKind::Ours, Result::LowerAShuffled, "vectorized binary search with the needles shuffled (the reference's cache-line argument)",
       [](P& p, cudaStream_t s) { ss::binary_search<Bounds::Lower>(p.da_shuffled(), p.na(), p.db(), p.nb(), p.out_a(), s); }},
      {"thrust_lower_bound", VariantKind::Peer, Result::LowerA, "thrust::lower_bound, sorted needles",
       [](P& p, cudaStream_t s) { lp::peers::thrust_lower_bound(p.db(), p.nb(), p.da(), p.na(), p.out_a(), s); }},
      {"thrust_lower_bound_unsorted", VariantKind::Peer, Result::LowerAShuffled, "thrust::lower_bound, shuffled needles",
       [](P& p, cudaStream_t s) { lp::peers::thrust_lower_bound(p.db(), p.nb(), p.da_shuffled(), p.na(), p.out_a(), s); }},
      {"thrust_upper_bound", VariantKind::Peer, Result::UpperA, "thrust::upper_bound, sorted needles",
       [](P& p, cudaStream_t s) { lp::peers::thrust_upper_bound(p.db(), p.nb(), p.da(), p.na(), p.out_a(), s); }},
      {"thrust_merge", VariantKind::Peer, Result::Merge, "thrust::merge of A and B: the same traversal, writing keys",
       [](P& p, cudaStream_t s) { lp::peers::thrust_merge(p.da(), p.na(), p.db(), p.nb(), p.out_merge(), s); }},
      {"cub_merge", VariantKind::Peer, Result::Merge, "cub::DeviceMerge::MergeKeys of A and B",
       [](P& p, cudaStream_t s) { lp::peers::cub_merge(p.da(), p.na(), p.db(), p.nb(), p.out_merge(), p.scratch(), p.scratch_bytes(), s); }},
      {"cpu_sorted_search", VariantKind::Cpu, Result::LowerA, "CPUSortedSearch<Lower>: one sequential linear pass (the reference's CPU code)",
       [](P& p, cudaStream_t) { cpu::sorted_search<Bounds::Lower>(p.a().data(), p.na(), p.b().data(), p.nb(), p.host_a().data()); }},
      {"cpu_sorted_search3", VariantKind::Cpu, Result::Complete, "CPUSortedSearch3: lower bound A->B and upper bound B->A with match flags, one pass",
       [](P& p, cudaStream_t) { cpu::sorted_search_both<Bounds::Lower>(p.a().data(), p.na(), p.b().data(), p.nb(), p.host_a().data(), p.host_b().data(), true); }},
      {"cpu_binary_search", VariantKind::Cpu, Result::LowerA, "std::lower_bound for every needle (sequential)",
       [](P& p, cudaStream_t) { cpu::binary_search<Bounds::Lower>(p.a().data(), p.na(), p.b().data(), p.nb(), p.host_a().data()); }},
  };
  return list;
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

}  // namespace

class SortedSearchStudy final : public harness::Study {
 public:
  std::string name() const override { return "sortedsearch"; }
  std::string description() const override {
    return "ModernGPU vectorized sorted search (all modes) vs vectorized binary search, Thrust and CUB";
  }
  std::vector<harness::AxisSpec> axes() const override {
    const std::int64_t max_size = (1ll << 30);
    return {
        {"a_size", harness::AxisKind::Size, "|A|, the needles (sorted)", {std::int64_t(1) << 26}, {}, 0, max_size},
        {"b_size", harness::AxisKind::Size, "|B|, the haystack (sorted)", {std::int64_t(1) << 26}, {}, 0, max_size},
        {"type", harness::AxisKind::Choice, "key type: int32, int64, float, double", {std::string("int32")}, {"int32", "int64", "float", "double"}, 0, 0},
        {"keys", harness::AxisKind::Choice, "distinct (no key repeats within an array) or dups (about 8 copies of each key)", {std::string("distinct")}, {"distinct", "dups"}, 0, 0},
    };
  }
  std::vector<harness::VariantSpec> variants() const override {
    std::vector<harness::VariantSpec> out;
    for (const auto& d : defs<int>()) out.push_back({d.name, d.kind, d.description});
    return out;
  }
  std::string default_config() const override { return kDefaultConfig; }
  std::string check_params(const Params& p) const override {
    // Indices are 32-bit with a flag bit, and tile offsets are 32-bit.
    if (harness::as_int(p, "a_size") + harness::as_int(p, "b_size") > (1ll << 30) + (1ll << 29))
      return "a_size + b_size must not exceed 2^30 + 2^29 (indices are 31-bit)";
    return {};
  }
  std::unique_ptr<harness::Point> make_point(const Params& p, std::uint64_t seed, bool device) const override {
    const std::string& t = harness::as_str(p, "type");
    if (t == "int32") return std::make_unique<SortedSearchPoint<std::int32_t>>(p, seed, device);
    if (t == "int64") return std::make_unique<SortedSearchPoint<std::int64_t>>(p, seed, device);
    if (t == "float") return std::make_unique<SortedSearchPoint<float>>(p, seed, device);
    return std::make_unique<SortedSearchPoint<double>>(p, seed, device);
  }
  bool has_demo() const override { return true; }
  // The reference page's two demonstrations, in its format, checked against CPUSortedSearch(3).
  int demo(std::ostream& os, bool device) const override {
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
};

std::unique_ptr<harness::Study> make_study() { return std::make_unique<SortedSearchStudy>(); }

}  // namespace lp::sortedsearch_study
