// The join's `auto` decision table (beyond the paper; kernels/join/auto_rule.hpp) as host functions:
// by_size, needs_look, the profile's signals and decide just below and just above every threshold,
// decide answering only plans possible() allows (and only plans that run) over many random sizes and
// profiles, and the signals the host twin of the profile pass (count_column_host,
// probe_column_host) reads off the study's own relations: no match, a hot S key, S in order.
#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "apps/join/relations.hpp"
#include "check.hpp"
#include "kernels/common/input_profile.hpp"
#include "kernels/join/auto_rule.hpp"

namespace {

namespace ar = lp::join::auto_rule;
namespace pf = lp::profile;
using ar::Plan;

constexpr double kL2 = 50.0 * (1 << 20);

const char* show(Plan p) { return ar::name(p); }

// Sizes where every plan but phj runs: the table beneath phj's rule (test_phj adds it).
ar::Sizes all_run(std::int64_t nr, std::int64_t ns, int key_bytes = 4) {
  ar::Sizes z;
  z.nr = nr;
  z.ns = ns;
  z.key_bytes = std::uint16_t(key_bytes);
  z.l2_bytes = kL2;
  z.nlj = z.inlj_css = z.inlj_bs = z.smj = z.hj = z.global_hash = true;
  return z;
}

// A column's profile with nothing to say: random order, no hot key, the sides' ranges overlapping.
pf::Profile plain(std::int64_t n) {
  pf::Profile p;
  p.n = double(n);
  p.whole = pf::whole_column(n);
  p.sample = double(std::min<std::int64_t>(n, pf::kSample));
  p.sorted = p.sorted_global = 0.5;
  p.heavy = 1.0 / p.sample;
  p.min = 0;
  p.max = double(2 * n);
  return p;
}

// The largest |R| whose table fits the L2 (2 |R| slots of 8 or 16 bytes).
std::int64_t l2_rows(int key_bytes) { return std::int64_t(kL2 / (2.0 * (key_bytes == 4 ? 8 : 16))); }

void test_names() {
  const std::vector<std::string> want = {"nlj", "inlj_css", "inlj_bs", "smj", "hj", "global_hash", "phj"};
  for (unsigned i = 0; i < unsigned(Plan::Count); ++i) CHECK_MSG(want[i] == ar::name(Plan(i)), i);
  CHECK(std::string(ar::name(Plan::Count)) == "?");
}

void test_by_size() {
  // A band predicate: only the nested loop, whatever the sizes.
  ar::Sizes z = all_run(1 << 20, 1 << 20);
  z.band = 1;
  CHECK(ar::by_size(z) == Plan::Nlj);
  // |S| tiny: the nested loop over one tile of S, at any |R|, further with int64 keys.
  CHECK(ar::nlj_max_s(4) == ar::kNljMaxS32 && ar::nlj_max_s(8) == ar::kNljMaxS64 && ar::kNljMaxS32 < ar::kNljMaxS64);
  for (int kb : {4, 8})
    for (std::int64_t nr : {std::int64_t(1), std::int64_t(1) << 20, std::int64_t(1) << 30}) {
      CHECK_MSG(ar::by_size(all_run(nr, ar::nlj_max_s(kb), kb)) == Plan::Nlj, nr);
      CHECK_MSG(ar::by_size(all_run(nr, ar::nlj_max_s(kb) + 1, kb)) != Plan::Nlj, nr);
      ar::Sizes no_nlj = all_run(nr, 1, kb);
      no_nlj.nlj = false;
      CHECK_MSG(ar::by_size(no_nlj) != Plan::Nlj, nr);
    }
  // |R| tiny: its table is a few cached lines, global_hash at any |S| (int32: 256 rows, int64: 128);
  // beyond, with S dominating, the binary searches' INLJ (the CSS tree's without it).
  for (int kb : {4, 8}) {
    const std::int64_t tiny = std::int64_t(ar::kTinyTableBytes / (2.0 * (kb == 4 ? 8 : 16)));
    CHECK_MSG(ar::by_size(all_run(tiny, std::int64_t(1) << 30, kb)) == Plan::GlobalHash, kb);
    CHECK_MSG(ar::by_size(all_run(tiny + 1, std::int64_t(1) << 30, kb)) == Plan::InljBs, kb);
    ar::Sizes no_bs = all_run(tiny + 1, std::int64_t(1) << 30, kb);
    no_bs.inlj_bs = false;
    CHECK_MSG(ar::by_size(no_bs) == Plan::InljCss, kb);
    // ... but over S below kIndexMinS, R's cached table still.
    CHECK_MSG(ar::by_size(all_run(tiny + 1, ar::kIndexMinS, kb)) == Plan::InljBs, kb);
    CHECK_MSG(ar::by_size(all_run(tiny + 1, ar::kIndexMinS - 1, kb)) == Plan::GlobalHash, kb);
    ar::Sizes no_hash = all_run(tiny + 1, ar::kIndexMinS - 1, kb);
    no_hash.global_hash = false;
    CHECK_MSG(ar::by_size(no_hash) == Plan::InljBs, kb);
  }
  // S dominating R (R's table in L2): global_hash up to 64 |R|, INLJ beyond while the table is at
  // most kIndexMaxTableBytes (int32: 2^16 rows), global_hash again above.
  const std::int64_t r16 = std::int64_t(1) << 16;
  CHECK(ar::by_size(all_run(r16, std::int64_t(ar::kSDominates) * r16)) == Plan::GlobalHash);
  CHECK(ar::by_size(all_run(r16, std::int64_t(ar::kSDominates) * r16 + 1)) == Plan::InljBs);
  CHECK(ar::by_size(all_run(r16 + 1, std::int64_t(ar::kSDominates) * (r16 + 1) + 1)) == Plan::GlobalHash);
  // R's table at the L2's size, then one row beyond: global_hash, then SMJ (int32) or HJ (int64).
  for (int kb : {4, 8}) {
    const std::int64_t n = l2_rows(kb);
    CHECK_MSG(ar::by_size(all_run(n, n, kb)) == Plan::GlobalHash, kb);
    CHECK_MSG(ar::by_size(all_run(n + 1, n + 1, kb)) == (kb == 4 ? Plan::Smj : Plan::Hj), kb);
    ar::Sizes no_hj = all_run(n + 1, n + 1, kb);
    no_hj.hj = false;
    CHECK_MSG(ar::by_size(no_hj) == Plan::Smj, kb);
  }
  // R dominating S beyond the L2: INLJ (R sorted alone) from |R| = kRDominates |S|, both key sizes.
  const std::int64_t big = std::int64_t(1) << 26;
  const std::int64_t ns_at = big / std::int64_t(ar::kRDominates);
  CHECK(ar::by_size(all_run(big, ns_at)) == Plan::InljCss);
  CHECK(ar::by_size(all_run(big, ns_at + 1)) == Plan::Smj);
  CHECK(ar::by_size(all_run(big, ns_at, 8)) == Plan::InljCss);
  CHECK(ar::by_size(all_run(big, ns_at + 1, 8)) == Plan::Hj);
  // int64, S under 1/256 of R: HJ (R partitioned, S too small to matter) rather than INLJ's 64-bit sort.
  const std::int64_t tiny_s = big / std::int64_t(ar::kTinyProbeRatio);
  CHECK(ar::by_size(all_run(big, tiny_s, 8)) == Plan::Hj);
  CHECK(ar::by_size(all_run(big, tiny_s + 1, 8)) == Plan::InljCss);
  CHECK(ar::by_size(all_run(big, tiny_s)) == Plan::InljCss);  // int32: the CSS tree's INLJ still
  // int64, R's table beyond the L2 but its keys within half of it, S at least kSOutgrows |R|: inlj_bs.
  const std::int64_t keys_half_l2 = std::int64_t(kL2 / 2 / 8);
  CHECK(ar::by_size(all_run(keys_half_l2, std::int64_t(ar::kSOutgrows) * keys_half_l2, 8)) == Plan::InljBs);
  CHECK(ar::by_size(all_run(keys_half_l2, std::int64_t(ar::kSOutgrows) * keys_half_l2 - 1, 8)) == Plan::Hj);
  CHECK(ar::by_size(all_run(keys_half_l2 + 1, std::int64_t(ar::kSOutgrows) * (keys_half_l2 + 1), 8)) == Plan::Hj);
  CHECK(ar::by_size(all_run(2 * keys_half_l2, std::int64_t(ar::kSOutgrows) * 2 * keys_half_l2)) == Plan::Smj);  // int32 beyond the L2
  // ... but not where R's table fits the L2 (global_hash there).
  CHECK(ar::by_size(all_run(1 << 20, 1 << 10)) == Plan::GlobalHash);
  // Fallbacks: with one plan left it is the answer; with none, nlj (whose reason auto then reports).
  for (unsigned i = 0; i < unsigned(Plan::Count); ++i) {
    ar::Sizes one = all_run(big, big);
    one.nlj = one.inlj_css = one.inlj_bs = one.smj = one.hj = one.global_hash = false;
    switch (Plan(i)) {
      case Plan::Nlj: one.nlj = true; break;
      case Plan::InljCss: one.inlj_css = true; break;
      case Plan::InljBs: one.inlj_bs = true; break;
      case Plan::Smj: one.smj = true; break;
      case Plan::Hj: one.hj = true; break;
      case Plan::Phj: one.phj = true; break;
      default: one.global_hash = true; break;
    }
    CHECK_MSG(ar::by_size(one) == Plan(i), show(Plan(i)));
  }
  ar::Sizes none = all_run(big, big);
  none.nlj = none.inlj_css = none.inlj_bs = none.smj = none.hj = none.global_hash = false;
  CHECK(ar::by_size(none) == Plan::Nlj);
}

void test_needs_look() {
  const std::int64_t t = ar::kLookMinSide;
  CHECK(ar::needs_look(all_run(t, t)));
  CHECK(!ar::needs_look(all_run(t - 1, t)));
  CHECK(!ar::needs_look(all_run(t, t - 1)));
  CHECK(ar::needs_look(all_run(std::int64_t(1) << 30, t)));
  ar::Sizes band = all_run(t, t);
  band.band = 3;
  CHECK(!ar::needs_look(band));
  // The index region looks from kIndexLookMinS S tuples, where a hot S turns INLJ to global_hash.
  const std::int64_t r_idx = std::int64_t(ar::kTinyTableBytes / 16.0) + 1;
  CHECK(ar::by_size(all_run(r_idx, ar::kIndexLookMinS)) == Plan::InljBs);
  CHECK(ar::needs_look(all_run(r_idx, ar::kIndexLookMinS)));
  CHECK(!ar::needs_look(all_run(r_idx, ar::kIndexLookMinS - 1)));
  ar::Sizes idx_no_hash = all_run(r_idx, ar::kIndexLookMinS);
  idx_no_hash.global_hash = false;
  CHECK(!ar::needs_look(idx_no_hash));
  {
    const ar::Sizes z = all_run(r_idx, ar::kIndexLookMinS);
    pf::Profile s_hot = plain(z.ns);
    s_hot.heavy = ar::kHotProbeShare;
    pf::Profile s_cold = plain(z.ns);
    s_cold.heavy = ar::kHotProbeShare * 0.99;
    CHECK(ar::decide(z, plain(z.nr), s_hot, 0.5) == Plan::GlobalHash);
    CHECK(ar::decide(z, plain(z.nr), s_hot, 0.0) == Plan::GlobalHash);
    CHECK(ar::decide(z, plain(z.nr), s_cold, 0.5) == Plan::InljBs);
    pf::Profile r_hot = plain(z.nr);
    r_hot.heavy = 1;
    CHECK(ar::decide(z, r_hot, s_cold, 0.0) == Plan::InljBs);  // R's hot key does not move an index join
    CHECK(ar::possible(z, Plan::GlobalHash) && ar::possible(z, Plan::InljBs) && !ar::possible(z, Plan::Smj));
  }
  // Below it decide() is by_size() whatever the profile says.
  pf::Profile hot = plain(t - 1);
  hot.heavy = 1;
  const ar::Sizes small = all_run(t - 1, t - 1);
  CHECK(ar::decide(small, hot, hot, 0.0) == ar::by_size(small));
}

void test_signals() {
  const std::int64_t n = std::int64_t(1) << 24;
  const pf::Profile r = plain(n), s = plain(n);
  CHECK(!ar::signals(r, s, 1.0).hot_build && !ar::signals(r, s, 1.0).no_match && !ar::signals(r, s, 1.0).hot_probe &&
        !ar::signals(r, s, 1.0).sorted_probe);
  // R's hot key.
  pf::Profile rh = r;
  rh.heavy = ar::kHotBuildShare;
  CHECK(ar::signals(rh, s, 1.0).hot_build);
  rh.heavy = ar::kHotBuildShare * 0.999;
  CHECK(!ar::signals(rh, s, 1.0).hot_build);
  // S's hot key.
  pf::Profile sh = s;
  sh.heavy = ar::kHotProbeShare;
  CHECK(ar::signals(r, sh, 1.0).hot_probe);
  sh.heavy = ar::kHotProbeShare * 0.999;
  CHECK(!ar::signals(r, sh, 1.0).hot_probe);
  // S in order: both its neighbours and its windows.
  pf::Profile ss = s;
  ss.sorted = ss.sorted_global = ar::kSortedProbe;
  CHECK(ar::signals(r, ss, 1.0).sorted_probe);
  ss.sorted = ar::kSortedProbe * 0.999;
  CHECK(!ar::signals(r, ss, 1.0).sorted_probe);
  ss.sorted = 1;
  ss.sorted_global = ar::kSortedProbe * 0.999;  // sorted runs in random order
  CHECK(!ar::signals(r, ss, 1.0).sorted_probe);
  // No match, resolved by the hits a full match would give: R read whole (every sampled S key's
  // answer is exact) ...
  const pf::Profile r_whole = plain(pf::kSample);
  CHECK(ar::expected_hits(r_whole, s) == s.sample);
  CHECK(ar::signals(r_whole, s, ar::kNoMatch).no_match);
  CHECK(!ar::signals(r_whole, s, ar::kNoMatch * 1.001).no_match);
  // ... or sampled, at kMinExpectedHits: sample^2 / |R| distinct keys hit (8 K samples of each, no
  // hot key: |R| = 2^22) ...
  const pf::Profile r_at = plain(std::int64_t(double(pf::kSample) * pf::kSample / ar::kMinExpectedHits));
  CHECK(ar::expected_hits(r_at, s) >= ar::kMinExpectedHits * 0.999);
  CHECK(ar::signals(r_at, s, 0.0).no_match);
  const pf::Profile r_beyond = plain(r_at.n * 1.01 + 1);
  CHECK(ar::expected_hits(r_beyond, s) < ar::kMinExpectedHits);
  CHECK(!ar::signals(r_beyond, s, 0.0).no_match);  // unresolved, the ranges meet
  // ... but not where a hot S key could miss R's sample with all its samples at once.
  pf::Profile s_hot = s;
  s_hot.heavy = 4.0 / s.sample;
  CHECK(ar::expected_hits(r_at, s_hot) < ar::kMinExpectedHits);
  CHECK(!ar::signals(r_at, s_hot, 0.0).no_match);
  // ... or by the sampled ranges lying apart (S all above R; S all below R; touching ends).
  pf::Profile above = s, below = s;
  above.min = r_beyond.max + 1;
  above.max = above.min + 100;
  below.max = r_beyond.min - 1;
  below.min = below.max - 100;
  CHECK(ar::signals(r_beyond, above, 0.0).no_match);
  CHECK(ar::signals(r_beyond, below, 0.0).no_match);
  above.min = r_beyond.max;
  CHECK(ar::signals(r_beyond, above, 0.0).no_match);
  above.min = r_beyond.max - 1;
  CHECK(!ar::signals(r_beyond, above, 0.0).no_match);
  above.min = r_beyond.max + 1;
  CHECK(!ar::signals(r_beyond, above, ar::kNoMatch * 1.001).no_match);  // apart, but the estimate saw hits
}

// decide() in each region with each signal set alone.
void test_decide() {
  const std::int64_t big = std::int64_t(1) << 24;
  auto profile_with = [](std::int64_t n, double heavy, double sorted) {
    pf::Profile p = plain(n);
    p.heavy = heavy;
    p.sorted = p.sorted_global = sorted;
    return p;
  };
  const pf::Profile r = plain(big), s = plain(big);
  const pf::Profile r_hot = profile_with(big, 0.5, 0.5), s_hot = profile_with(big, 0.5, 0.5), s_sorted = profile_with(big, 0.0001, 1.0);
  pf::Profile s_apart = s;
  s_apart.min = r.max + 1;
  s_apart.max = r.max + 1000;
  // Both large, int32: SMJ by size; no match: inlj_bs; a hot or sorted S: inlj_css; a hot R: SMJ stays.
  const ar::Sizes d32 = all_run(big, big);
  CHECK(ar::decide(d32, r, s, 1.0) == Plan::Smj);
  CHECK(ar::decide(d32, r, s_apart, 0.0) == Plan::InljBs);
  CHECK(ar::decide(d32, r, s_hot, 1.0) == Plan::InljCss);
  CHECK(ar::decide(d32, r, s_sorted, 1.0) == Plan::InljCss);
  CHECK(ar::decide(d32, r_hot, s, 1.0) == Plan::Smj);
  // int64: HJ by size; a hot R key leaves the hash tables for SMJ.
  const ar::Sizes d64 = all_run(big, big, 8);
  CHECK(ar::decide(d64, r, s, 1.0) == Plan::Hj);
  CHECK(ar::decide(d64, r_hot, s, 1.0) == Plan::Smj);
  CHECK(ar::decide(d64, r, s_hot, 1.0) == Plan::InljCss);
  CHECK(ar::decide(d64, r, s_apart, 0.0) == Plan::InljBs);
  // R's table in the L2 (a larger one, so that the look's sizes have it): global_hash whatever S
  // says; a hot R key: INLJ.
  const std::int64_t mid = ar::kLookMinSide;
  ar::Sizes a = all_run(mid, mid);
  a.l2_bytes = 2 * ar::table_bytes(a);
  CHECK(ar::needs_look(a) && !ar::beyond_l2(a));
  CHECK(ar::decide(a, plain(mid), plain(mid), 1.0) == Plan::GlobalHash);
  CHECK(ar::decide(a, plain(mid), profile_with(mid, 0.5, 1.0), 0.0) == Plan::GlobalHash);
  CHECK(ar::decide(a, profile_with(mid, 0.5, 0.5), plain(mid), 1.0) == Plan::InljCss);
  ar::Sizes a_no_inlj = a;
  a_no_inlj.inlj_css = false;
  CHECK(ar::decide(a_no_inlj, profile_with(mid, 0.5, 0.5), plain(mid), 1.0) == Plan::Smj);
  // R dominating S beyond the L2 (INLJ by size): no match takes the binary search.
  const ar::Sizes c = all_run(std::int64_t(8) * ar::kLookMinSide, ar::kLookMinSide);
  CHECK(ar::needs_look(c));
  CHECK(ar::decide(c, plain(c.nr), plain(c.ns), 1.0) == Plan::InljCss);
  pf::Profile c_apart = plain(c.ns);
  c_apart.min = double(4 * c.nr);
  c_apart.max = double(5 * c.nr);
  CHECK(ar::decide(c, plain(c.nr), c_apart, 0.0) == Plan::InljBs);
  ar::Sizes c_no_bs = c;
  c_no_bs.inlj_bs = false;
  CHECK(ar::decide(c_no_bs, plain(c.nr), c_apart, 0.0) == Plan::InljCss);
  // Through the functor the profile pass calls.
  CHECK(ar::Rule{d32}(r, s_apart, 0.0) == unsigned(Plan::InljBs));
}

// phj's region (kPhjMinTableBytes, kPhjMinTuples): before global_hash and the sorts, after the
// band, the nested loop, tiny tables and the index region; a hot R key or S in order leave it, a
// hot S key does not, nothing matching takes the binary searches.
void test_phj() {
  auto with_phj = [](std::int64_t nr, std::int64_t ns, int kb = 4) {
    ar::Sizes z = all_run(nr, ns, kb);
    z.phj = true;
    return z;
  };
  for (int kb : {4, 8}) {
    const std::int64_t rows = std::int64_t(ar::kPhjMinTableBytes / (2.0 * (kb == 4 ? 8 : 16)));  // the smallest R of phj's tables
    const std::int64_t at = std::int64_t(ar::kPhjMinTuples) - rows;                                  // the S that reaches kPhjMinTuples
    CHECK_MSG(ar::by_size(with_phj(rows, at, kb)) == Plan::Phj, kb);
    CHECK_MSG(ar::by_size(with_phj(rows, at - 1, kb)) == Plan::GlobalHash, kb);
    CHECK_MSG(ar::by_size(with_phj(rows - 1, std::int64_t(1) << 26, kb)) == Plan::GlobalHash, kb);
    CHECK_MSG(ar::by_size(with_phj(rows, std::int64_t(1) << 26, kb)) == Plan::Phj, kb);
    // Just beyond the L2 (int64: with fewer tuples than kPhjMinTuples): phj; the rules beneath
    // take SMJ (int32) or HJ (int64).
    const std::int64_t n = l2_rows(kb) + 1;
    CHECK_MSG(ar::beyond_l2(with_phj(n, n, kb)) && (kb == 4 || double(2 * n) < ar::kPhjMinTuples), kb);
    CHECK_MSG(ar::by_size(with_phj(n, n, kb)) == Plan::Phj, kb);
    CHECK_MSG(ar::by_size(all_run(n, n, kb)) == (kb == 4 ? Plan::Smj : Plan::Hj), kb);
    // R dominating S, both large: phj, where the table beneath sorts R alone.
    CHECK_MSG(ar::by_size(with_phj(std::int64_t(1) << 26, std::int64_t(1) << 20, kb)) == Plan::Phj, kb);
    // Before it: the band, a tiny S, the index region (a table of 1 MiB or less under 64 |R| S).
    ar::Sizes band = with_phj(std::int64_t(1) << 24, std::int64_t(1) << 24, kb);
    band.band = 1;
    CHECK_MSG(ar::by_size(band) == Plan::Nlj, kb);
    CHECK_MSG(ar::by_size(with_phj(std::int64_t(1) << 26, ar::nlj_max_s(kb), kb)) == Plan::Nlj, kb);
    const std::int64_t idx = std::int64_t(ar::kIndexMaxTableBytes / (2.0 * (kb == 4 ? 8 : 16)));
    CHECK_MSG(ar::by_size(with_phj(idx, std::int64_t(1) << 28, kb)) == Plan::InljBs, kb);
  }
  // decide() on phj's base, both sides large.
  const std::int64_t big = std::int64_t(1) << 24;
  pf::Profile r_hot = plain(big), s_hot = plain(big), s_sorted = plain(big), s_apart = plain(big);
  r_hot.heavy = 0.5;
  s_hot.heavy = 0.5;
  s_sorted.sorted = s_sorted.sorted_global = 1.0;
  s_apart.min = plain(big).max + 1;
  s_apart.max = s_apart.min + 1000;
  for (int kb : {4, 8}) {
    const ar::Sizes z = with_phj(big, big, kb);
    CHECK(ar::needs_look(z) && ar::by_size(z) == Plan::Phj);
    CHECK_MSG(ar::decide(z, plain(big), plain(big), 1.0) == Plan::Phj, kb);
    CHECK_MSG(ar::decide(z, plain(big), s_hot, 1.0) == Plan::Phj, kb);
    CHECK_MSG(ar::decide(z, plain(big), s_sorted, 1.0) == Plan::InljCss, kb);
    CHECK_MSG(ar::decide(z, r_hot, plain(big), 1.0) == Plan::Smj, kb);
    CHECK_MSG(ar::decide(z, plain(big), s_apart, 0.0) == Plan::InljBs, kb);
    ar::Sizes no_smj = z;
    no_smj.smj = false;
    CHECK_MSG(ar::decide(no_smj, r_hot, plain(big), 1.0) == Plan::InljCss, kb);
    CHECK_MSG(ar::possible(z, Plan::Phj) && ar::possible(z, Plan::Smj) && !ar::possible(z, Plan::GlobalHash), kb);
  }
}

// decide() answers only what possible() allows, and only plans that run (where any does);
// possible() allows by_size()'s plan always, and only it below the look.
void test_random() {
  harness::Rng g(2024);
  int looked = 0;
  for (int i = 0; i < 200000; ++i) {
    ar::Sizes z;
    z.nr = std::int64_t(1) << g.below(31);
    z.nr += std::int64_t(g.below(std::uint64_t(z.nr)));
    z.ns = std::int64_t(1) << g.below(31);
    z.ns += std::int64_t(g.below(std::uint64_t(z.ns)));
    z.band = g.below(8) == 0 ? 1 + g.below(100) : 0;
    z.key_bytes = g.below(2) ? 8 : 4;
    z.l2_bytes = double(std::uint64_t(1) << (20 + g.below(8)));
    z.nlj = g.below(8) != 0;
    z.inlj_css = g.below(8) != 0;
    z.inlj_bs = g.below(8) != 0;
    z.smj = g.below(8) != 0;
    z.hj = g.below(8) != 0;
    z.global_hash = g.below(8) != 0;
    z.phj = g.below(8) != 0;
    if (z.band > 0) z.inlj_css = z.inlj_bs = z.smj = z.hj = z.global_hash = z.phj = false;  // the equi-joins refuse a band (equi_only)
    auto random_profile = [&](std::int64_t n) {
      pf::Profile p = plain(n);
      p.heavy = g.below(4) == 0 ? g.unit() : g.unit() * 0.01;
      p.sorted = g.below(4) == 0 ? 0.9 + 0.1 * g.unit() : g.unit();
      p.sorted_global = g.below(4) == 0 ? 0.9 + 0.1 * g.unit() : g.unit();
      p.min = double(g.below(1000));
      p.max = p.min + double(g.below(1000));
      return p;
    };
    const pf::Profile r = random_profile(z.nr), s = random_profile(z.ns);
    const double match = g.below(3) == 0 ? 0.0 : g.unit();
    const Plan p = ar::decide(z, r, s, match);
    const bool any = z.nlj || z.inlj_css || z.inlj_bs || z.smj || z.hj || z.global_hash || z.phj;
    CHECK_MSG(ar::possible(z, p), show(p) << " at nr=" << z.nr << " ns=" << z.ns);
    CHECK_MSG(ar::possible(z, ar::by_size(z)), "nr=" << z.nr << " ns=" << z.ns);
    CHECK_MSG(!any || ar::runs(z, p), show(p) << " does not run at nr=" << z.nr << " ns=" << z.ns);
    if (ar::needs_look(z)) {
      ++looked;
    } else {
      for (unsigned q = 0; q < unsigned(Plan::Count); ++q) CHECK(ar::possible(z, Plan(q)) == (Plan(q) == ar::by_size(z)));
    }
  }
  CHECK(looked > 1000);
}

// The host twin of the profile pass on the study's relations: what the device reads off them.
template <class K>
ar::Signals look_at(const lp::join_study::Relations<K>& rel, ar::Sizes* z = nullptr, Plan* plan = nullptr) {
  const std::int64_t nr = std::int64_t(rel.r.size()), ns = std::int64_t(rel.s.size());
  pf::Counts cr = pf::count_column_host(rel.r.data(), nr), cs = pf::count_column_host(rel.s.data(), ns);
  pf::probe_column_host(cs, rel.r.data(), nr, rel.s.data(), ns);
  const pf::Profile pr = pf::finish(cr, nr, 0), ps = pf::finish(cs, ns, 0);
  const double match = pf::match_estimate(cs, pr);
  if (z && plan) *plan = ar::decide(*z, pr, ps, match);
  return ar::signals(pr, ps, match);
}

template <class K>
void test_generator(bool phj) {
  const std::int64_t n = ar::kLookMinSide;
  const char* type = sizeof(K) == 8 ? "int64" : "int32";
  using lp::join_study::make_relations;
  // Sizes where the look decides and R's table is beyond this (small) L2: the sorts' region.
  ar::Sizes z = all_run(n, n, int(sizeof(K)));
  z.l2_bytes = 4.0 * (1 << 20);
  z.phj = phj;
  CHECK(ar::by_size(z) == Plan::Phj || !phj);
  CHECK(ar::needs_look(z) && ar::beyond_l2(z));
  Plan plan = Plan::Count;
  const Plan base = ar::by_size(z);
  // Unique keys, every S key in R: nothing to say.
  ar::Signals g = look_at(make_relations<K>(n, n, "unique", 1.0, 1.0, 11), &z, &plan);
  CHECK_MSG(!g.hot_build && !g.no_match && !g.hot_probe && !g.sorted_probe, type);
  CHECK_MSG(plan == base, type << " " << show(plan));
  // No S key in R (S's keys lie above R's): no match.
  g = look_at(make_relations<K>(n, n, "unique", 1.0, 0.0, 12), &z, &plan);
  CHECK_MSG(g.no_match && !g.hot_probe, type);
  CHECK_MSG(plan == Plan::InljBs, type << " " << show(plan));
  // Half of S matching: not "no match".
  g = look_at(make_relations<K>(n, n, "unique", 1.0, 0.5, 13));
  CHECK_MSG(!g.no_match, type);
  // zipf 1.5 (the heaviest key about a third of S): a hot S key; zipf 1 and 0.5: not.
  g = look_at(make_relations<K>(n, n, "zipf", 1.5, 1.0, 14), &z, &plan);
  CHECK_MSG(g.hot_probe && !g.hot_build && !g.no_match, type);
  CHECK_MSG(plan == (phj ? Plan::Phj : Plan::InljCss), type << " " << show(plan));  // a hot S costs phj nothing
  CHECK_MSG(!look_at(make_relations<K>(n, n, "zipf", 1.0, 1.0, 15)).hot_probe, type);
  CHECK_MSG(!look_at(make_relations<K>(n, n, "zipf", 0.5, 1.0, 16)).hot_probe, type);
  // Uniform keys (about one R tuple per key): no hot R key.
  g = look_at(make_relations<K>(n, n, "uniform", 1.0, 1.0, 17));
  CHECK_MSG(!g.hot_build && !g.hot_probe && !g.no_match, type);
  // A few R keys (uniform over [0, 3)): hot.
  CHECK_MSG(look_at(make_relations<K>(3, n, "uniform", 1.0, 1.0, 18)).hot_build, type);
  // S sorted: in order.
  auto rel = make_relations<K>(n, n, "unique", 1.0, 1.0, 19);
  std::sort(rel.s.begin(), rel.s.end());
  g = look_at(rel, &z, &plan);
  CHECK_MSG(g.sorted_probe && !g.no_match, type);
  CHECK_MSG(plan == Plan::InljCss, type << " " << show(plan));
}

}  // namespace

int main() {
  test_names();
  test_by_size();
  test_needs_look();
  test_signals();
  test_decide();
  test_random();
  test_phj();
  for (bool phj : {false, true}) {
    test_generator<std::int32_t>(phj);
    test_generator<std::int64_t>(phj);
  }
  return test_summary("test_auto_rule_join");
}
