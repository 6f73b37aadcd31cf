// The join's `auto` decision table (beyond the paper): from the sizes, the key type and the L2, and
// for an equi-join of two large relations from the profiles of R's and S's keys and the match
// estimate the device computes (kernels/common/input_profile.hpp), to the join that runs. Plain
// C++, __host__ __device__: the profile pass evaluates it on the device, the CPU test
// (tests/cpu/test_auto_rule_join.cpp) at every boundary. The thresholds are read off the H100's
// join runs (results/h100/join/), two size regions moved by the regret sweep's fitting draw
// (results/h100/regret/fit/join.json.gz); the profile's signals have yet to meet enough points of it.
//
// Every plan here builds on R (a hash table of R, R's sorted index) or sorts both sides, except the
// nested loop, which holds a tile of S in shared memory and streams R past it: with |S| tiny that
// is the join built on the small side, one pass over R. With |R| tiny, R's hash table stays cached
// and S streams past it once. Neither of the two then sorts or partitions the large side.
#pragma once
#include <cstdint>

#include "../common/hd.hpp"
#include "../common/input_profile.hpp"

namespace lp::join::auto_rule {

// The plans, named after the variants they run (smj_presorted is no plan: its sort is untimed).
enum class Plan : unsigned { Nlj, InljCss, InljBs, Smj, Hj, GlobalHash, Phj, Count };
inline const char* name(Plan p) {
  constexpr const char* kNames[] = {"nlj", "inlj_css", "inlj_bs", "smj", "hj", "global_hash", "phj"};
  return unsigned(p) < unsigned(Plan::Count) ? kNames[unsigned(p)] : "?";
}

// What the host knows before any look: the sizes, the predicate, the key type, the L2, and which
// plans can run at this point (each variant's own supported-when, evaluated on the host). The
// fields leave no padding: run_auto keys its plan graph on this struct's bytes, and padding bytes
// are indeterminate.
struct Sizes {
  std::int64_t nr = 0, ns = 0;
  std::uint64_t band = 0;  // 0: the equi-join
  double l2_bytes = 50.0 * (1 << 20);
  std::uint16_t key_bytes = 4;  // 4 (int32) or 8 (int64)
  bool nlj = false, inlj_css = false, inlj_bs = false, smj = false, hj = false, global_hash = false, phj = false;
  std::uint8_t reserved[7] = {};  // named, so that no byte of the key is padding
};
static_assert(sizeof(Sizes) == 4 * 8 + 2 + 7 + 7, "Sizes has no padding (its bytes are a plan key)");

LP_HD bool runs(const Sizes& s, Plan p) {
  switch (p) {
    case Plan::Nlj: return s.nlj;
    case Plan::InljCss: return s.inlj_css;
    case Plan::InljBs: return s.inlj_bs;
    case Plan::Smj: return s.smj;
    case Plan::Hj: return s.hj;
    case Plan::GlobalHash: return s.global_hash;
    case Plan::Phj: return s.phj;
    default: return false;
  }
}

// |S| at most this: S is one tile of the nested loop, R streams past it once and each R key is
// compared with |S| keys on chip. That costs |S| x 0.64 ps per R tuple with int32 keys and |S| x 0.91
// ps with int64 (the regret draws' nlj records, |R| = 16-92 M), where a plan that partitions or
// sorts a large R costs 33 ps (int32) and 70 ps (int64) per R tuple (hj's records at the same
// points): the loop wins up to about 52 and 77 S keys over a large R, a few more over a small one,
// whose other plans pay fixed set-up. (H200, results/h200/regret/fit/fifth_rules/: int64 |R| = 92 M,
// |S| = 36, nlj 3.0 ms against hj's 6.9; 6.2 M and 59, 0.34 against 0.45; 2.6 M and 69, 0.17 against
// 0.24; int32 22 M and 64, hj 0.73 against nlj 0.93. H100, results/h100/regret/fit/: int64 4.8 M and
// 124, hj 0.41 against nlj 0.54.)
constexpr std::int64_t kNljMaxS32 = 56, kNljMaxS64 = 88;
LP_HD std::int64_t nlj_max_s(unsigned key_bytes) { return key_bytes == 8 ? kNljMaxS64 : kNljMaxS32; }
// R's hash table (2 |R| slots) at most this many bytes: its few lines stay cached beside the probe
// kernel's shared buffers and every probe step hits, so global_hash's one pass over S beats INLJ's
// search, scan and expansion passes over S at any |S|. Across the regret draws' points with S over
// 64 |R| and a table of 4-16 KiB (results/h100/regret/fit/, results/h200/regret/fit/fifth_rules/),
// inlj_bs took 0.80-2.38x global_hash's time, above 1 at 15 of 19 points; the plan that loses least
// at its worst point is global_hash (1.25x behind at |R| = 393 over 23 M; inlj_bs up to 2.38x
// behind).
constexpr double kTinyTableBytes = 16 * 1024;
// ... and, with a larger table still within kIndexMaxTableBytes, over S below this many tuples: INLJ's
// three passes over S pay their set-up where global_hash streams S once (the same draws, |S| under
// 4 M: global_hash ahead at 14 of 16 points, up to 2.46x; from 4 M inlj_bs ahead at 11 of 16, the
// others a skewed S, below).
constexpr std::int64_t kIndexMinS = std::int64_t(1) << 22;
// ... and with S at least this large the look at S pays (its 20-25 us are under 10% of the 0.2 ms
// and more that such a join takes): S with a hot key, whose matches each expand in INLJ's pass,
// takes global_hash (|R| = 141 over 8.6 M, zipf 1.6: 0.13 ms against inlj_bs's 0.22; 3 669 over 17
// M, zipf 2.4: 0.28 against 0.44; 30 252 over 45 M, zipf 2.6: 0.62 against 1.30; where little
// matches, 0.93-1.21x either way).
constexpr std::int64_t kIndexLookMinS = std::int64_t(1) << 23;
// |S| more than this many times |R|: INLJ over R's CSS-tree beats probing R's hash table in L2
// (H100, |R| = 2^16: global_hash wins to |S| = 2^22, inlj_css from 2^24).
constexpr double kSDominates = 64;
// ... with the binary searches' INLJ (inlj_bs), which beat the CSS tree's at every such point of the
// regret fitting draw (|R| = 393-1561 over |S| = 6.6-46 M: 1.1-1.6x), while R's table stays below
// this size; a table beyond it, still in the L2, is probed faster than either index is searched
// (|R| = 80 K and 153 K, 2.6 and 4.9 MB, over 40 M and 11 M: global_hash 1.09 and 0.44 ms, inlj_bs
// 1.50 and 0.80).
constexpr double kIndexMaxTableBytes = 1 << 20;
// |R| at least this many times |S|, with R's table beyond the L2 and int32 keys: INLJ sorts R only,
// and S's few searches cost less than SMJ's sort of S and its merge over both (from SMJ at 2^26: a
// sort costs 0.036 ns a tuple and the merge 0.013 ns over both; INLJ's search and expansion 0.16 ns
// an S tuple; the two meet at |R| = 8.5 |S|). A spot check on the H100 at |R| = 2^24: |S| = 2^21,
// inlj_css 0.95 ms, smj 0.97, hj 1.29; |S| = 1000, hj 0.65, inlj_css 0.69, smj 0.75.
// The regret fitting draw put the meeting point lower and showed it for int64 keys too, ahead of the
// radix HJ (|R| / |S| = 6.6 and 116, int64: inlj_css 2.16 and 6.25 ms, hj 2.98 and 9.34).
constexpr double kRDominates = 4;
// int64 keys, R's table beyond the L2 but its sorted keys within half of it, and S at least this many
// times |R|: inlj_bs sorts the small side once and S's searches stay in the L2, where HJ partitions
// the large side (regret judged draw, |R| = 2.1 M and 2.6 M, |S| = 9.2 and 9.6 |R|, zipf R: inlj_bs
// 0.87 and 1.28 ms, hj 1.98 and 2.52, global_hash 1.41 and 1.58).
constexpr double kSOutgrows = 4;
// int64 keys and S under 1/256 of R: HJ partitions R in fewer passes than a 64-bit sort takes, and S
// is too small to matter (fitting draw, |S| / |R| = 8e-4: hj 2.00 ms, inlj_bs 2.29, inlj_css 2.34;
// judged draw, 4e-4 and 4e-5: hj 0.29 and 1.19, inlj_css 0.35 and 1.55); from 1/116 on the
// searches' INLJ wins (fitting draw: inlj_css 6.25 ms, hj 9.34; 1/6.6: 2.16 and 2.98).
constexpr double kTinyProbeRatio = 256;
// Both sides at least this many tuples before the profile decides. The look (one block reading up
// to 8 K keys of each side) took 53-86 us in a spot check on the H100 (look_us; auto with it 0.20 ms
// against global_hash's 0.12 at 2^20); from 2^22 a side the joins beyond the L2 take 0.4-0.7 ms,
// and what it finds pays there (no match at 2^22: inlj_bs 0.36 ms, smj 0.56).
constexpr std::int64_t kLookMinSide = std::int64_t(1) << 22;
// R's heaviest key at least this share of R: in a hash table with linear probing (global_hash's,
// hj's shared-memory tiles) its duplicates are one run of |R| / 100 slots or more, which every
// probe that lands in it walks; sorted R holds them as one run that a search skips.
constexpr double kHotBuildShare = 0.01;
// S's heaviest key at least this share of S: INLJ's searches for it stay cached and it wins over
// SMJ (H100, 2^24: zipf 1.5, heaviest ~0.38: inlj_css 1.50 ms, smj 1.68; zipf 1, ~0.06: smj 1.75,
// inlj_css 1.89).
constexpr double kHotProbeShare = 0.2;
// S in key order where this share of its sampled neighbours and of its windows ascend: neighbouring
// INLJ searches take the same path, so S streams through R's index and only R is sorted.
constexpr double kSortedProbe = 0.97;
// The match estimate at most this reads "nothing matches" ...
constexpr double kNoMatch = 0.05;
// ... where it can tell: a full match would hit at least this many distinct sampled keys (missing
// them all has the chance e^-16), or the sampled key ranges do not meet.
constexpr double kMinExpectedHits = 16;

// The partitioned hash join (phj) where R's table is at least this large and either beyond the L2
// or both sides together at least kPhjMinTuples: it sorts both sides on 16 hash bits at most (two
// passes) where SMJ sorts every key bit, and probes in shared memory where global_hash's table is
// read at random (configs/join/probe_phj.json on the H200, results/h200/join/probe_phj.json:
// |R| = |S| = 2^24 int32 1.19 ms against SMJ's 1.59, int64 1.54 against 2.98; |R| = 2^20 under |S| =
// 2^26 int32 2.12 against global_hash's 3.77 and SMJ's 3.22). Below those sizes its fixed cost (two
// sorts' set-up, about 90 us) loses to global_hash's one pass over each side with R's table in the
// L2: 2^21 both sides int32, 0.249 ms against 0.234; 3 x 2^20, 0.331 against global_hash's 0.417.
constexpr double kPhjMinTableBytes = 4 << 20;
constexpr double kPhjMinTuples = 5 << 20;

// R's hash table as global_hash sizes it, at the load factor of one half it was measured at.
LP_HD double table_bytes(const Sizes& s) { return 2.0 * double(s.nr) * (s.key_bytes == 4 ? 8.0 : 16.0); }
LP_HD bool beyond_l2(const Sizes& s) { return table_bytes(s) > s.l2_bytes; }

// The first plan that runs, cheapest first at large sizes.
LP_HD Plan any_plan(const Sizes& s) {
  if (s.phj) return Plan::Phj;
  if (s.smj) return Plan::Smj;
  if (s.hj) return Plan::Hj;
  if (s.inlj_css) return Plan::InljCss;
  if (s.global_hash) return Plan::GlobalHash;
  if (s.inlj_bs) return Plan::InljBs;
  return Plan::Nlj;  // also where nothing runs: the variant then reports nlj's reason
}

// S dominates and R's table is small: one of the index joins over R, or R's cached table.
LP_HD bool index_region(const Sizes& s) {
  return double(s.ns) > kSDominates * double(s.nr) && table_bytes(s) <= kIndexMaxTableBytes;
}

// The plan from the sizes alone.
LP_HD Plan by_size(const Sizes& s) {
  if (s.band > 0) return Plan::Nlj;  // a band predicate: only the nested loop evaluates it
  if (s.ns <= nlj_max_s(s.key_bytes) && s.nlj) return Plan::Nlj;
  if (table_bytes(s) <= kTinyTableBytes && s.global_hash) return Plan::GlobalHash;
  if (index_region(s)) {
    if (s.ns < kIndexMinS && s.global_hash) return Plan::GlobalHash;
    if (s.inlj_bs) return Plan::InljBs;
    if (s.inlj_css) return Plan::InljCss;
  }
  if (s.phj && table_bytes(s) >= kPhjMinTableBytes && (beyond_l2(s) || double(s.nr) + double(s.ns) >= kPhjMinTuples)) return Plan::Phj;
  if (!beyond_l2(s) && s.global_hash) return Plan::GlobalHash;
  if (s.key_bytes == 8 && s.inlj_bs && double(s.ns) >= kSOutgrows * double(s.nr) && double(s.nr) * s.key_bytes <= s.l2_bytes / 2)
    return Plan::InljBs;
  if (s.key_bytes == 8 && s.hj && double(s.ns) * kTinyProbeRatio <= double(s.nr)) return Plan::Hj;
  if (double(s.nr) >= kRDominates * double(s.ns) && s.inlj_css) return Plan::InljCss;
  // Beyond the L2 with int64 keys the radix HJ's partitioning of R beats a 64-bit sort's eight passes,
  // with S small as with S large (H100, |R| = 2^24: |S| = 1000, hj 1.19 ms, inlj_css 1.55, smj 1.65
  // in a spot check; |S| = 2^24, hj 3.28, smj 3.58).
  if (s.key_bytes == 8 && s.hj) return Plan::Hj;
  // Both large: SMJ's sorts stream where a table beyond the L2 is built and probed at random.
  return any_plan(s);
}

// The index region's look: an index join by sizes that a hot S would turn to global_hash.
LP_HD bool index_look(const Sizes& s) {
  const Plan p = by_size(s);
  return s.global_hash && s.ns >= kIndexLookMinS && index_region(s) && (p == Plan::InljBs || p == Plan::InljCss);
}

LP_HD bool needs_look(const Sizes& s) {
  return s.band == 0 && ((s.nr >= kLookMinSide && s.ns >= kLookMinSide) || index_look(s));
}

// What the profile says, as the four facts the table reads.
struct Signals {
  bool hot_build = false;     // R has a hot key
  bool no_match = false;      // (almost) no key of S is in R
  bool hot_probe = false;     // S has a hot key
  bool sorted_probe = false;  // S arrives in key order
};

// The distinct keys a full match would hit at least: each distinct key of S's sample is in R's
// sample with the chance that R's key was sampled (1 where R was read whole), and S's sample holds
// at least 1 / heavy distinct keys. Keys, not samples: a hot S key hits or misses with all its
// samples at once, so under skew a full match can show no hit at all.
LP_HD double expected_hits(const profile::Profile& r, const profile::Profile& s) {
  const double keys = s.heavy > 0 && 1.0 / s.heavy < s.sample ? 1.0 / s.heavy : s.sample;
  const double seen = r.whole || r.n <= 0 || r.sample >= r.n ? 1.0 : r.sample / r.n;
  return keys * seen;
}

// S's sampled keys all at or beyond one end of R's sampled ones. The ends compare as doubles of
// key_of, where int64 keys within about 2^10 of each other read as equal; equal ends count as apart:
// an S key equal to R's end key is a hit in the sample, and signals() also wants the match estimate
// near 0.
LP_HD bool ranges_apart(const profile::Profile& r, const profile::Profile& s) {
  return r.sample > 0 && s.sample > 0 && (s.min >= r.max || s.max <= r.min);
}

LP_HD Signals signals(const profile::Profile& r, const profile::Profile& s, double match) {
  Signals g;
  g.hot_build = r.heavy >= kHotBuildShare;
  g.no_match = match <= kNoMatch && (expected_hits(r, s) >= kMinExpectedHits || ranges_apart(r, s));
  g.hot_probe = s.heavy >= kHotProbeShare;
  g.sorted_probe = s.sorted >= kSortedProbe && s.sorted_global >= kSortedProbe;
  return g;
}

// The plan for the sizes and what the profile says.
LP_HD Plan choose(const Sizes& z, const Signals& g) {
  const Plan base = by_size(z);
  // A small R searched by a large S with a hot key: R's cached table (kIndexLookMinS).
  if (index_look(z)) return g.hot_probe ? Plan::GlobalHash : base;
  // A hot R key: sorted runs instead of a hash table's run of slots.
  if (g.hot_build && (base == Plan::GlobalHash || base == Plan::Hj || base == Plan::Phj)) {
    if (base == Plan::GlobalHash && z.inlj_css) return Plan::InljCss;  // R fits the L2: its sort is cheap, S needs none
    if (z.smj) return Plan::Smj;
    if (z.inlj_css) return Plan::InljCss;
    return base;
  }
  // Where R would be sorted or partitioned beyond the L2 and nothing matches: binary searches that
  // find nothing and expand nothing, the keys outside R's range all taking one cached path (H100,
  // 2^24, match 0: inlj_bs 1.22 ms, inlj_css 1.32, smj 1.62, global_hash 2.80). A table in the L2
  // already reads both sides once.
  const bool sorts = base == Plan::Smj || base == Plan::Hj || base == Plan::InljCss || base == Plan::Phj;
  if (g.no_match && sorts && beyond_l2(z) && z.inlj_bs) return Plan::InljBs;
  // Both sides large and S skewed or in order: sort R only, S's searches stay cached.
  if ((g.hot_probe || g.sorted_probe) && (base == Plan::Smj || base == Plan::Hj) && z.inlj_css) return Plan::InljCss;
  // phj sorts S by hash, so S in key order gains it nothing; INLJ's searches then stream through
  // R's index. A hot S key costs phj nothing extra (zipf 1.5 at 2^24: phj 1.24 ms, inlj_bs 1.32,
  // inlj_css 1.42).
  if (g.sorted_probe && base == Plan::Phj && z.inlj_css) return Plan::InljCss;
  return base;
}

LP_HD Plan decide(const Sizes& z, const profile::Profile& r, const profile::Profile& s, double match) {
  return needs_look(z) ? choose(z, signals(r, s, match)) : by_size(z);
}

// Every plan decide() can answer for these sizes (the graph captures only these, and auto's scratch
// is their largest): choose() over every combination of the signals.
LP_HD bool possible(const Sizes& z, Plan q) {
  if (!needs_look(z)) return q == by_size(z);
  for (unsigned bits = 0; bits < 16; ++bits) {
    Signals g;
    g.hot_build = bits & 1u;
    g.no_match = bits & 2u;
    g.hot_probe = bits & 4u;
    g.sorted_probe = bits & 8u;
    if (choose(z, g) == q) return true;
  }
  return false;
}

// The table as the profile pass calls it on the device: first = R's keys, second = S's.
struct Rule {
  Sizes sizes;
  LP_HD unsigned operator()(const profile::Profile& first, const profile::Profile& second, double match) const {
    return unsigned(decide(sizes, first, second, match));
  }
};

}  // namespace lp::join::auto_rule
