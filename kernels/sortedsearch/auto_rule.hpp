// The sorted search's `auto` decision table (beyond the documents): from |A| (needles), |B|
// (haystack) and the key size, and where the inputs are large enough, the input profile
// (kernels/common/input_profile.hpp) of both columns computed on the device, to the search that
// runs: ModernGPU's merge path, our windowed search, one binary search per needle (ours or
// Thrust's). Plain C++, __host__ __device__: the profile pass evaluates it on the device, the CPU
// tests at every boundary. The size regions are the H100 ratio sweeps'
// (results/h100/sortedsearch/ratios_*.json: |A| + |B| = 2^27 and |A| = 2^24, A and B spread over the same
// key range, distinct and duplicate-heavy keys; 4-byte keys' merge-path region measured again on the
// H200 after the merge path's tiles grew), the small sizes and the look's threshold the regret
// sweep's fitting draw's (results/h100/regret/fit/sortedsearch.json.gz); the profile's regions have
// yet to meet enough points of it.
//
// What the profile adds. The sweeps' keys interleave; real needles need not. A sorted column's
// sample holds its first and last key (the first window starts at 0, the last ends at n), so the
// profile's min and max are both columns' exact ranges, and where they overlap tells how much work
// each search does: the merge path reads all of A and B whatever the overlap, the windowed search
// reads B only between its tiles' first needles (nothing of B outside the needles' range), and a
// binary search per needle reads only its path (a needle outside B's range walks a path every such
// needle shares, in cache). So the ratio that sets the regime is the local one, B's keys inside A's
// range against A's keys inside B's range (assuming keys spread evenly within each range). The
// haystack's mean run of equal keys (run_mean: equal keys are neighbours in a sorted column) tells
// duplicates, which slow the windowed search's walk and favour searches per needle earlier.
#pragma once
#include <cstdint>

#include "../common/hd.hpp"
#include "../common/input_profile.hpp"

namespace lp::sortedsearch::auto_rule {

enum class Plan : unsigned { MergePath, Windowed, BinarySearch, Thrust, Count };
// The family names: auto_lower's plan "mergepath" runs mergepath_lower, "thrust" thrust::lower_bound.
inline const char* name(Plan p) {
  constexpr const char* kNames[] = {"mergepath", "windowed", "binary_search", "thrust"};
  return unsigned(p) < unsigned(Plan::Count) ? kNames[unsigned(p)] : "?";
}

// What the host knows before any look. No padding: the plan graph's key is made of these bytes.
struct Sizes {
  std::int64_t na = 0;            // |A|, the needles
  std::int64_t nb = 0;            // |B|, the haystack
  double window_ratio = 0;        // the |B| / |A| the windowed search's tiles (sized to the global ratio) hold in one window
  std::uint32_t key_bytes = 4;
  bool thrust = true;             // Thrust's bound runs here (the one-GPU search: no index offset)
  bool unused[3] = {};
};
static_assert(sizeof(Sizes) == 32, "Sizes has no padding");

// --- by |B| / |A| and the key size (the sweeps) ---
// One binary search per needle beyond this ratio: reading all of B then loses to searching it (int32
// binary search 0.258 against the windowed search's 0.322 ms at 24, int64 0.424 against 0.663 at 16).
constexpr double kBinarySwitch4 = 20.0, kBinarySwitch8 = 14.0;
// The windowed search from this ratio up to the switch, the merge path below. 4-byte keys: since the
// merge path's tiles grew (mergepath_sorted_search.cuh: its partition a quarter of what it was) it
// is 1.05-1.15x ahead from 1/64 to 2/3 and level from 1 to 3 (0.96-1.02x), the windowed search
// ahead at 4 and 6 (0.96x, 0.92x; H200, results/h200/sortedsearch/ratios_lower_plans.json, int32,
// |A| + |B| = 2^27; the H100 sweeps' low of 1/2 is gone, and their band below 1/10 for the windowed
// search narrowed to the one below). 8-byte keys, from the H100 sweeps (1.10x at 1:1, 0.76-1.0x below), the merge path's larger
// tiles keeping the windowed search ahead at 1:1 on distinct keys (0.462 against 0.477 ms on the H200).
constexpr double kWindowedLow4 = 4.0, kWindowedLow8 = 1.0;
// ... and, 4-byte keys, below this one, under the sweep's lowest ratio (1/64, where the merge path
// is 1.10x ahead): needle-heavy inputs with a haystack far smaller than a tile, where the windowed
// search's tiles span next to nothing of B (the H100 sweeps had it 1.01-1.06x ahead up to 1/12 with
// the small tiles; on the H200's sorted-search judging draw, results/h200/regret/sortedsearch_bounds/,
// the merge path took 1.03-1.21x the windowed search's time at |B| / |A| of 2e-6 to 1/400).
constexpr double kMergePathLow4 = 1.0 / 80;
// 4-byte keys beyond the switch: Thrust's search per needle is 1-7% ahead of ours up to this ratio
// (int32 at 24 and 32, distinct and duplicate keys; |A| = 2^24 at 24), ours ahead from 48, and for
// 8-byte keys on distinct keys at every ratio.
constexpr double kThrustMax4 = 40.0;

// --- duplicates (the haystack's run_mean) ---
// The haystack counts as duplicate-heavy from this mean run of equal keys (the sweep's duplicates:
// about 8 copies of each key; distinct keys: 1).
constexpr double kDupRunMean = 4.0;
// The windowed search walks through runs of equal keys: on duplicates the merge path stays ahead up to
// twice kWindowedLow (int32: 0.86-0.89x the windowed search's time up to 3, level at 4 and 6 on the
// H200; int64 0.94-0.99x at 1 and 1.5 on the H100, 0.88x at 1:1 on the H200).
constexpr double kDupWindowedLowScale = 2.0;
// 8-byte duplicates: searches per needle win from about 10 (at 12: Thrust 0.430, ours 0.444, the
// windowed search 0.467 ms; the merge path ahead at 8), Thrust's up to 16 (a tie there).
constexpr double kDupBinarySwitch8 = 10.0, kDupThrustMax8 = 16.0;

// --- key ranges ---
// The windowed search's time over the merge path's at most within the merge path's range on distinct
// keys (int32 1.19 at 1/6 on the H200, 1.28 on duplicates; int64 1.33): the merge path is kept only
// while the haystack outside the needles' range (which it reads and the windowed search does not)
// adds less than this to the work.
constexpr double kMergePathEdge4 = 1.18, kMergePathEdge8 = 1.33;

// --- the look ---
// A look (one block, two columns' samples) is taken from this many key bytes: a search over 128 MiB
// of keys takes 80-150 us on the H100. The look was priced at a few microseconds; measured in auto's
// time it is more: the profile 10.5-16 us (look_us) and with the plan graph's decision 19-28 us (H200
// judging draw), 10-25% of a search at these sizes where it changes nothing, against up to all of B's
// read saved where it does. Until the decision is cheaper (docs/auto.md), kLookMinSide keeps it from
// the sizes where it cannot pay.
constexpr double kLookMinBytes = double(std::int64_t(1) << 28);
// Few keys in all: one binary search per needle, a single launch, wins at every ratio (regret
// fitting draw, |A| + |B| < 2^21: 4.9-13 us against the windowed search's and the merge path's
// 10-25, whose partition pass and tiles are set-up the work never repays).
constexpr double kSmallTotal = double(std::int64_t(1) << 21);

LP_HD bool wide(const Sizes& s) { return s.key_bytes > 4; }
LP_HD double ratio_of(double na, double nb) { return na > 0 ? nb / na : 0.0; }

// The search per needle's switch, and the plan at |B| / |A| = r (dups: the haystack is duplicate-heavy).
LP_HD double binary_switch(const Sizes& s, bool dups) { return wide(s) ? (dups ? kDupBinarySwitch8 : kBinarySwitch8) : kBinarySwitch4; }
LP_HD Plan by_ratio(const Sizes& s, double r, bool dups) {
  if (r > binary_switch(s, dups)) {
    const double thrust_max = wide(s) ? (dups ? kDupThrustMax8 : 0.0) : kThrustMax4;
    return s.thrust && r < thrust_max ? Plan::Thrust : Plan::BinarySearch;
  }
  const double low = (wide(s) ? kWindowedLow8 : kWindowedLow4) * (dups ? kDupWindowedLowScale : 1.0);
  const double merge_low = wide(s) ? 0.0 : kMergePathLow4;
  return r >= low || r < merge_low ? Plan::Windowed : Plan::MergePath;
}

// The plan from the sizes alone: the sweeps' answer for distinct keys over the same range.
LP_HD Plan by_size(const Sizes& s) {
  if (double(s.na) + double(s.nb) < kSmallTotal) return Plan::BinarySearch;
  // No needles: the windowed launcher returns at once; the merge path would still read all of B.
  if (s.na == 0) return Plan::Windowed;
  return by_ratio(s, ratio_of(double(s.na), double(s.nb)), false);
}

// No look where either column holds at most this many keys: the plans it could choose between then
// differ by less than the look costs. Few needles: a binary search per needle is one launch over
// them (16-25 us, 5 to 25 000 needles in haystacks of 4-16 x 10^7 keys), about what the look and the
// decision add (19-28 us); few haystack keys: every plan reads all the needles, and what the look can
// spare is a read of the haystack. (H200, the 7002 draw, results/h200/regret/fit/sortedsearch.json.gz:
// at its 30 points with a look, the look changed the plan once, for the worse, and cost 19-28 us;
// auto_lower 2.0-2.5x behind the binary search at every needle count up to 25 502.)
constexpr std::int64_t kLookMinSide = std::int64_t(1) << 16;

// A look where both columns have keys and they are large enough. Every region can move: the local
// ratio can be anything the ranges make it.
LP_HD bool needs_look(const Sizes& s) {
  return s.na > kLookMinSide && s.nb > kLookMinSide && double(s.na + s.nb) * double(s.key_bytes) >= kLookMinBytes;
}

// What fraction of each column lies inside the other's key range (keys assumed spread evenly within
// each range; profile keys are order-preserving words, key_of). Both 0: the ranges are disjoint.
struct Overlap {
  double needles = 0;   // of A inside B's range
  double haystack = 0;  // of B inside A's range
};
LP_HD Overlap overlap(const profile::Profile& hay, const profile::Profile& needles) {
  const double lo = hay.min > needles.min ? hay.min : needles.min;
  const double hi = hay.max < needles.max ? hay.max : needles.max;
  Overlap o;
  if (lo > hi) return o;
  const double w = hi - lo + 1;
  o.needles = needles.span > w ? w / needles.span : 1.0;
  o.haystack = hay.span > w ? w / hay.span : 1.0;
  return o;
}

// The merge path reads all of A and B; the windowed search all of A and the `nb_in` keys of B inside
// the needles' range. The merge path is kept where the rest of B costs it less than its edge.
LP_HD bool merge_path_pays(const Sizes& s, double nb_in) {
  return double(s.na + s.nb) <= (wide(s) ? kMergePathEdge8 : kMergePathEdge4) * (double(s.na) + nb_in);
}

LP_HD Plan decide(const Sizes& s, const profile::Profile& hay, const profile::Profile& needles) {
  if (!needs_look(s)) return by_size(s);
  const Overlap o = overlap(hay, needles);
  if (o.needles <= 0) {
    // Disjoint: every needle's bound is 0 or |B|. The windowed search's tiles then span nothing and a
    // search per needle walks one shared path; only the merge path still reads all of B. (Ranges that
    // touch in the profile's doubles, 64-bit keys a rounding apart, come out the same way below: a
    // sliver of overlap, next to nothing inside.)
    const Plan p = by_size(s);
    return p == Plan::MergePath && !merge_path_pays(s, 0) ? Plan::Windowed : p;
  }
  const bool dups = hay.run_mean >= kDupRunMean;
  const double na_in = double(s.na) * o.needles, nb_in = double(s.nb) * o.haystack;
  const double r_in = ratio_of(na_in, nb_in);
  Plan p = by_ratio(s, r_in, dups);
  if (p == Plan::MergePath && !merge_path_pays(s, nb_in)) p = Plan::Windowed;
  // The windowed tiles are sized to the global ratio: where the local one is higher than they hold,
  // their spans overflow the window into global-memory searches; the merge path does not care.
  if (p == Plan::Windowed && r_in > s.window_ratio) p = Plan::MergePath;
  return p;
}

// Every plan decide() can answer for these sizes (the graph captures only these).
LP_HD bool possible(const Sizes& s, Plan q) {
  if (!needs_look(s)) return q == by_size(s);
  return q != Plan::Thrust || s.thrust;
}

// The table as the profile pass calls it on the device: the first column is B (the haystack), the
// second A (the needles), so that the match estimate reads as a join's, the fraction of the probe
// side's keys (needles) that the build side (haystack) holds.
struct Rule {
  Sizes sizes;
  LP_HD unsigned operator()(const profile::Profile& haystack, const profile::Profile& needles, double) const {
    return unsigned(decide(sizes, haystack, needles));
  }
};

}  // namespace lp::sortedsearch::auto_rule
