// The sorted search's `auto` decision table (kernels/sortedsearch/auto_rule.hpp, beyond the
// documents) as the host functions it is: every size region at its boundaries (just below and
// above), the look's threshold, each profile region (duplicates, disjoint and partly overlapping key
// ranges, tiles that would overflow) at its boundaries, decide() answering only what possible()
// allows over many random inputs, and the profiles of real sorted columns (the host twin of the
// device pass) sending each layout where the table says.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "auto_rule_checks.hpp"
#include "check.hpp"
#include "kernels/sortedsearch/auto_rule.hpp"

namespace ar = lp::sortedsearch::auto_rule;
using ar::Plan;
using lp::profile::Profile;

namespace {

constexpr std::int64_t kNa = std::int64_t(1) << 26;  // needles of the sized tests: 256 MiB of 4-byte keys, a look with any haystack

ar::Sizes sizes(std::int64_t na, std::int64_t nb, std::uint32_t key_bytes, bool thrust = true, double window_ratio = 1.5) {
  ar::Sizes s{};
  s.na = na;
  s.nb = nb;
  s.key_bytes = key_bytes;
  s.thrust = thrust;
  s.window_ratio = window_ratio;
  return s;
}
// |B| = r |A| just below (-1 key) or at and above (+0, +1).
ar::Sizes at_ratio(double r, std::int64_t plus, std::uint32_t key_bytes, bool thrust = true) {
  return sizes(kNa, std::int64_t(std::ceil(r * double(kNa))) + plus, key_bytes, thrust, 1e9);
}

// A column's profile over the key range [lo, hi] with a mean run of equal keys `run`.
Profile column(double lo, double hi, double run = 1) {
  Profile p;
  p.min = lo;
  p.max = hi;
  p.span = hi - lo + 1;
  p.run_mean = run;
  return p;
}

void names() {
  check_plan_names<Plan>([](Plan p) { return ar::name(p); });
  // scripts/plot_regret.py maps these families onto the variants (mergepath -> mergepath_lower, thrust -> thrust_lower_bound).
  CHECK(std::string(ar::name(Plan::MergePath)) == "mergepath" && std::string(ar::name(Plan::Thrust)) == "thrust");
}

// The regions by |B| / |A| (the sweeps' answer), each boundary from both sides.
void size_regions() {
  struct Edge {
    std::uint32_t bytes;
    double r;
    Plan below, above;  // at r - 1 key, at r + 1 key
  };
  const Edge edges[] = {
      {4, ar::kMergePathLow4, Plan::Windowed, Plan::MergePath},
      {4, ar::kWindowedLow4, Plan::MergePath, Plan::Windowed},
      {4, ar::kBinarySwitch4, Plan::Windowed, Plan::Thrust},
      {4, ar::kThrustMax4, Plan::Thrust, Plan::BinarySearch},
      {8, ar::kWindowedLow8, Plan::MergePath, Plan::Windowed},
      {8, ar::kBinarySwitch8, Plan::Windowed, Plan::BinarySearch},
  };
  for (const Edge& e : edges) {
    CHECK_MSG(ar::by_size(at_ratio(e.r, -1, e.bytes)) == e.below, e.bytes << "-byte keys just below " << e.r);
    CHECK_MSG(ar::by_size(at_ratio(e.r, 1, e.bytes)) == e.above, e.bytes << "-byte keys just above " << e.r);
  }
  // The switch is strict: |B| = 20 |A| exactly stays on the windows (as the windowed launcher's own switch).
  CHECK(ar::by_size(sizes(kNa, 20 * kNa, 4)) == Plan::Windowed && ar::by_size(sizes(kNa, 20 * kNa + 1, 4)) == Plan::Thrust);
  // Without Thrust (several GPUs: an index offset) its band is our binary search.
  CHECK(ar::by_size(at_ratio(30, 0, 4, false)) == Plan::BinarySearch);
  // 8-byte keys: the merge path down to any ratio; Thrust never by size.
  CHECK(ar::by_size(at_ratio(1.0 / 64, 0, 8)) == Plan::MergePath);
  for (double r : {15.0, 20.0, 30.0, 64.0}) CHECK(ar::by_size(at_ratio(r, 0, 8)) == Plan::BinarySearch);
  // No needles: the windowed launcher, which returns at once (the merge path would read all of B).
  CHECK(ar::by_size(sizes(0, kNa, 4)) == Plan::Windowed && ar::by_size(sizes(0, kNa, 8)) == Plan::Windowed);
  // Few keys in all: one binary search per needle at any ratio, no needles included.
  const std::int64_t small = std::int64_t(ar::kSmallTotal);
  for (std::uint32_t bytes : {4u, 8u})
    for (std::int64_t na : {std::int64_t(0), std::int64_t(1), small / 64, small / 2, small - 2}) {
      CHECK(ar::by_size(sizes(na, small - 1 - na, bytes)) == Plan::BinarySearch);
      CHECK(ar::by_size(sizes(na, small - na, bytes)) ==
            (na == 0 ? Plan::Windowed : ar::by_ratio(sizes(na, small - na, bytes), ar::ratio_of(double(na), double(small - na)), false)));
    }
}

void look_threshold() {
  for (std::uint32_t bytes : {4u, 8u}) {
    const std::int64_t keys = std::int64_t(ar::kLookMinBytes) / bytes;
    CHECK(!ar::needs_look(sizes(keys / 2, keys / 2 - 1, bytes)));
    CHECK(ar::needs_look(sizes(keys / 2, keys / 2, bytes)));
    CHECK(!ar::needs_look(sizes(0, 4 * keys, bytes)) && !ar::needs_look(sizes(4 * keys, 0, bytes)));
    // Either side at kLookMinSide keys or fewer: no look, however large the other.
    const std::int64_t side = ar::kLookMinSide;
    CHECK(!ar::needs_look(sizes(side, 4 * keys, bytes)) && ar::needs_look(sizes(side + 1, 4 * keys, bytes)));
    CHECK(!ar::needs_look(sizes(4 * keys, side, bytes)) && ar::needs_look(sizes(4 * keys, side + 1, bytes)));
    // There the sizes' plan is a search per needle (few needles) or reads every needle (few haystack keys).
    CHECK(ar::by_size(sizes(side, 4 * keys, bytes)) == Plan::BinarySearch);
    CHECK(ar::by_size(sizes(4 * keys, side, bytes)) != Plan::BinarySearch && ar::by_size(sizes(4 * keys, side, bytes)) != Plan::Thrust);
    // Below it decide() is by_size() whatever the profile says.
    const ar::Sizes s = sizes(keys / 4, keys / 4, bytes);
    CHECK(ar::decide(s, column(0, 100), column(1000, 2000)) == ar::by_size(s));
    for (unsigned q = 0; q < unsigned(Plan::Count); ++q) CHECK(ar::possible(s, Plan(q)) == (Plan(q) == ar::by_size(s)));
  }
}

// Full overlap and distinct keys: the sizes' answer.
void interleaved() {
  for (std::uint32_t bytes : {4u, 8u})
    for (double r = 1.0 / 64; r <= 64; r *= 1.25) {
      const ar::Sizes s = sizes(kNa, std::int64_t(r * kNa), bytes, true, 2 * r + 1);
      CHECK_MSG(ar::decide(s, column(0, 1e9), column(0, 1e9)) == ar::by_size(s), bytes << "-byte keys at " << r);
    }
}

// Duplicates in the haystack: run_mean just below and at kDupRunMean.
void duplicates() {
  const double below = ar::kDupRunMean * (1 - 1e-9), at = ar::kDupRunMean;
  auto plan = [](const ar::Sizes& s, double run) { return ar::decide(s, column(0, 1e9, run), column(0, 1e9)); };
  const ar::Sizes i32 = sizes(kNa, kNa * 6, 4, true, 8), i64 = sizes(kNa, kNa * 3 / 2, 8, true, 2);
  CHECK(plan(i32, below) == Plan::Windowed && plan(i32, at) == Plan::MergePath);  // 6: the windowed low doubles
  CHECK(plan(i64, below) == Plan::Windowed && plan(i64, at) == Plan::MergePath);  // 1.5
  // ... and up to twice the low only.
  CHECK(plan(at_ratio(2 * ar::kWindowedLow8, 0, 8), at) == Plan::Windowed && plan(at_ratio(2 * ar::kWindowedLow8, -1, 8), at) == Plan::MergePath);
  // 8-byte keys: searches per needle from kDupBinarySwitch8, Thrust's up to kDupThrustMax8.
  CHECK(plan(at_ratio(ar::kDupBinarySwitch8, 0, 8), at) == Plan::Windowed);
  CHECK(plan(at_ratio(ar::kDupBinarySwitch8, 1, 8), at) == Plan::Thrust);
  CHECK(plan(at_ratio(ar::kDupBinarySwitch8, 1, 8, false), at) == Plan::BinarySearch);
  CHECK(plan(at_ratio(12, 0, 8), below) == Plan::Windowed);
  CHECK(plan(at_ratio(ar::kDupThrustMax8, -1, 8), at) == Plan::Thrust && plan(at_ratio(ar::kDupThrustMax8, 0, 8), at) == Plan::BinarySearch);
  // 4-byte keys: the switch stays.
  CHECK(plan(at_ratio(ar::kBinarySwitch4, 0, 4), at) == Plan::Windowed && plan(at_ratio(ar::kBinarySwitch4, 1, 4), at) == Plan::Thrust);
}

// Disjoint ranges: only the merge path moves, to the windowed search, which reads none of B then,
// where all of B costs the merge path more than its edge.
void disjoint() {
  for (std::uint32_t bytes : {4u, 8u})
    for (double r : {1.0 / 64, 0.11, 0.25, 0.4, 0.5, 0.9, 1.0, 8.0, 30.0, 64.0}) {
      const ar::Sizes s = sizes(kNa, std::int64_t(r * kNa), bytes, true, 1e9);
      const double edge = bytes == 4 ? ar::kMergePathEdge4 : ar::kMergePathEdge8;
      const Plan sized = ar::by_size(s), want = sized == Plan::MergePath && 1 + r > edge ? Plan::Windowed : sized;
      const Profile hay = column(1000, 2000);
      CHECK_MSG(ar::decide(s, hay, column(0, 999)) == want, "needles below, " << bytes << "-byte keys at " << r);
      CHECK_MSG(ar::decide(s, hay, column(2001, 5000)) == want, "needles above, " << bytes << "-byte keys at " << r);
      // Touching at one key is not disjoint.
      CHECK(ar::overlap(hay, column(0, 1000)).needles > 0);
    }
}

// Part of the haystack outside the needles' range: the merge path kept while that part adds less than
// kMergePathEdge to the work, the windowed search beyond.
void merge_edge() {
  for (std::uint32_t bytes : {4u, 8u}) {
    // A ratio in the merge path's range where the edge can be crossed: (1 + r) > edge.
    const double r = bytes == 4 ? 0.3 : 0.6, edge = bytes == 4 ? ar::kMergePathEdge4 : ar::kMergePathEdge8;
    // Needles over [0, 1e6), the haystack over [0, 1e6 k): nb_in = nb / k, and the merge path reads
    // na + nb against the windowed search's na + nb / k. The edge: (1 + r) = edge (1 + r / k).
    const double k = r / ((1 + r) / edge - 1);
    const ar::Sizes s = sizes(kNa, std::int64_t(r * kNa), bytes, true, 4);
    const Profile needles = column(0, 1e6 - 1);
    CHECK_MSG(ar::decide(s, column(0, 1e6 * k * 0.999 - 1), needles) == Plan::MergePath, bytes << "-byte keys inside the edge");
    CHECK_MSG(ar::decide(s, column(0, 1e6 * k * 1.001 - 1), needles) == Plan::Windowed, bytes << "-byte keys beyond the edge");
  }
}

// Needles spread wider than the haystack: the local ratio rises. The windowed tiles (sized to the
// global ratio) hold up to window_ratio; beyond, the merge path; far beyond, searches per needle.
void local_ratio() {
  const double g = ar::kWindowedLow4;  // the global ratio: windowed, tiles holding up to 3 g
  const ar::Sizes s = sizes(kNa, std::int64_t(g * kNa), 4, true, 3 * g);
  const Profile hay = column(0, 1e6 - 1);
  auto wider = [&](double k) { return ar::decide(s, hay, column(0, 1e6 * k - 1)); };
  CHECK(wider(1) == Plan::Windowed);
  CHECK(wider(3 * 0.999) == Plan::Windowed && wider(3 * 1.001) == Plan::MergePath);
  CHECK(wider(ar::kBinarySwitch4 / g * 1.01) == Plan::Thrust);
  CHECK(wider(ar::kThrustMax4 / g * 1.01) == Plan::BinarySearch);
  ar::Sizes own = s;
  own.thrust = false;
  CHECK(ar::decide(own, hay, column(0, 1e6 * ar::kBinarySwitch4 / g * 1.01 - 1)) == Plan::BinarySearch);
  // Needles in a narrow band of the haystack: the local ratio falls. Global 64 (a search per needle)
  // with the needles over 1/64 of B's range: 1, the windowed search.
  const ar::Sizes far = sizes(kNa, 64 * kNa, 4, true, 28);
  CHECK(ar::by_size(far) == Plan::BinarySearch);
  CHECK(ar::decide(far, column(0, 64e6 - 1), column(5e6, 6e6 - 1)) == Plan::Windowed);
  CHECK(ar::decide(far, column(0, 64e6 - 1), column(5e6, 5e6 + 30e6 - 1)) == Plan::Thrust);  // over 30/64 of it: 30
  // All needles one key inside the haystack: no haystack between them, and half a needle's worth
  // outside them, beyond the merge path's edge.
  CHECK(ar::decide(sizes(kNa, kNa / 2, 8, true, 1.5), column(0, 1e6), column(500, 500, 1e6)) == Plan::Windowed);
  CHECK(ar::decide(sizes(kNa, kNa / 4, 8, true, 1.5), column(0, 1e6), column(500, 500, 1e6)) == Plan::MergePath);
  // The haystack one key: every needle inside has the same path (a search per needle).
  CHECK(ar::decide(sizes(kNa, kNa, 4, true, 1.5), column(7, 7, 1e6), column(0, 1e6)) == Plan::BinarySearch);
}

// Any sizes, any profiles: decide() within possible(), which holds by_size().
void random_inputs() {
  std::mt19937_64 rng(11);
  auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  for (int i = 0; i < 200000; ++i) {
    const std::uint32_t bytes = rng() % 2 ? 4 : 8;
    const std::int64_t na = rng() % 20 == 0 ? 0 : std::int64_t(std::exp2(real(0, 30)));
    const std::int64_t nb = rng() % 20 == 0 ? 0 : std::int64_t(std::exp2(real(0, 30)));
    const ar::Sizes s = sizes(na, nb, bytes, rng() % 2 == 0, std::exp2(real(-3, 8)));
    const double a0 = real(0, 1e12), b0 = real(0, 1e12);
    const Profile hay = column(b0, b0 + std::exp2(real(0, 40)), rng() % 3 == 0 ? std::exp2(real(0, 10)) : 1);
    const Profile needles = column(a0, a0 + std::exp2(real(0, 40)), rng() % 3 == 0 ? std::exp2(real(0, 10)) : 1);
    const Plan q = ar::decide(s, hay, needles);
    CHECK_MSG(ar::possible(s, q), "|A| " << na << " |B| " << nb << " plan " << ar::name(q));
    CHECK(ar::possible(s, ar::by_size(s)));
    if (!s.thrust) CHECK(q != Plan::Thrust);
    if (!ar::needs_look(s)) CHECK(q == ar::by_size(s));
    CHECK(ar::Rule{s}(hay, needles, 0) == unsigned(q));
  }
}

// Sorted keys of type T: n keys spread over [lo, hi], each repeated `copies` times.
template <class T>
std::vector<T> sorted_keys(std::int64_t n, double lo, double hi, int copies, std::mt19937_64& rng) {
  std::vector<T> v;
  v.reserve(std::size_t(n));
  std::uniform_real_distribution<double> d(lo, hi);
  for (std::int64_t i = 0; i < n; i += copies) {
    const T x = T(d(rng));
    for (int c = 0; c < copies && i + c < n; ++c) v.push_back(x);
  }
  std::sort(v.begin(), v.end());
  return v;
}

template <class T>
Profile profile_of(const std::vector<T>& v) {
  const std::int64_t n = std::int64_t(v.size());
  return lp::profile::finish(lp::profile::count_column_host(v.data(), n), n, 0);
}

// Real columns through the host twin of the device's profile: a sorted column's min and max are its
// first and last keys (the sample holds both), and each layout lands in its region. The sizes say
// 2^24 + 2^24 keys (a look); the columns that stand for them are smaller, sampled all the same.
template <class T>
void real_columns(const char* type) {
  std::mt19937_64 rng(5);
  const std::int64_t n = 100003;
  const double sign = -1;  // negative keys too: key_of's order for signed and floating keys
  const std::vector<T> hay = sorted_keys<T>(n, sign * 1e6, 1e6, 1, rng);
  const Profile ph = profile_of(hay);
  CHECK_MSG(ph.min == double(lp::profile::key_of(hay.front())) && ph.max == double(lp::profile::key_of(hay.back())), type << ": exact range");
  CHECK_MSG(!ph.whole && ph.run_mean < 1.2, type);
  // The windowed search's low ratio (4-byte keys 4, 8-byte 1): windowed by size.
  const double w = sizeof(T) == 4 ? ar::kWindowedLow4 : ar::kWindowedLow8;
  const ar::Sizes s = sizes(std::int64_t(1) << 24, std::int64_t(w * double(std::int64_t(1) << 24)), sizeof(T), true, 1.5 * w);
  CHECK(ar::by_size(s) == Plan::Windowed);
  // Where the needles fall within the haystack's range: integer keys, whose order-preserving words
  // are spread as the keys are (a float's bits are not: keys spread evenly in value crowd the bits
  // near zero, so the table's even-spread reading of a float range is a rougher one).
  if constexpr (std::is_integral_v<T>) {
    struct Layout {
      const char* what;
      double lo, hi;
      Plan want;
    };
    const Layout layouts[] = {
        {"interleaved", sign * 1e6, 1e6, Plan::Windowed},
        {"inside 1/64 of the range", 0, (1 - sign) * 1e6 / 64, Plan::Windowed},  // local w/64, the merge path beyond its edge
        {"spread 64 times wider", (sign - 1) * 64e6, 64e6, Plan::BinarySearch},  // local ~96 w
    };
    for (const Layout& l : layouts) {
      const Profile pn = profile_of(sorted_keys<T>(n, l.lo, l.hi, 1, rng));
      CHECK_MSG(ar::decide(s, ph, pn) == l.want, type << " " << l.what << ": " << ar::name(ar::decide(s, ph, pn)));
    }
  }
  // Every needle below the haystack (negative keys against positive ones), and every one above:
  // disjoint in the order-preserving words of every type.
  // The merge path by size, and all of B well beyond its edge (4-byte keys: 0.4; 8-byte: 0.5).
  const ar::Sizes m = sizes(kNa, kNa / (sizeof(T) == 4 ? 5 : 4) * 2, sizeof(T), true, 1.5);
  CHECK(ar::by_size(m) == Plan::MergePath);
  const std::vector<T> pos = sorted_keys<T>(n, 1, 1e6, 1, rng);
  CHECK_MSG(ar::decide(m, profile_of(pos), profile_of(sorted_keys<T>(n, -1e6, -1, 1, rng))) == Plan::Windowed, type << " below");
  CHECK_MSG(ar::decide(m, profile_of(pos), profile_of(sorted_keys<T>(n, 2e6, 3e6, 1, rng))) == Plan::Windowed, type << " above");
  // A duplicate-heavy haystack (8 copies of each key): run_mean near 8, and the merge path where the
  // windowed search's low doubles.
  const Profile dups = profile_of(sorted_keys<T>(n, 0, 1e6, 8, rng));
  CHECK_MSG(dups.run_mean >= ar::kDupRunMean && dups.run_mean < 9, type << " duplicates: run_mean " << dups.run_mean);
  const double r = sizeof(T) == 4 ? 6 : 1.5;
  const ar::Sizes d = sizes(kNa, std::int64_t(r * double(kNa)), sizeof(T), true, 8);
  CHECK(ar::by_size(d) == Plan::Windowed);
  CHECK_MSG(ar::decide(d, dups, profile_of(sorted_keys<T>(n, 0, 1e6, 1, rng))) == Plan::MergePath, type << " duplicates");
}

}  // namespace

int main() {
  names();
  size_regions();
  look_threshold();
  interleaved();
  duplicates();
  disjoint();
  merge_edge();
  local_ratio();
  random_inputs();
  real_columns<std::int32_t>("int32");
  real_columns<std::int64_t>("int64");
  real_columns<float>("float");
  real_columns<double>("double");
  return test_summary("test_auto_rule_sortedsearch");
}
