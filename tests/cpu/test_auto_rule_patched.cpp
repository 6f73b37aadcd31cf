// The patched study's `auto` decision table (kernels/patched/auto_rule.hpp, beyond the documents) as
// the host functions it is: every region boundary just below and above its threshold, decide()
// answering only what possible() allows over many random inputs, and the profile of real
// lane_offsets columns (the host twin of the device pass) telling clustered patches from spread ones.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "auto_rule_checks.hpp"
#include "check.hpp"
#include "kernels/patched/auto_rule.hpp"

namespace ar = lp::patched::auto_rule;
using ar::Plan;
using lp::profile::Profile;

namespace {

const std::uint32_t kTypes[] = {1, 2, 4, 8};

std::int64_t lanes_per_chunk(std::uint32_t bytes) { return lp::patched::kChunk / (8 * std::int64_t(bytes)); }

// A column of n values of `bytes` bytes with `count` patches, the peer's plain list present.
ar::Sizes sizes(std::int64_t n, std::uint32_t bytes, std::int64_t count, bool plain = true, int dense = 0) {
  ar::Sizes s{};
  s.n = n;
  s.count = count;
  s.lanes = lp::patched::chunks_of(n) * lanes_per_chunk(bytes);
  s.type_bytes = bytes;
  s.dense = dense;
  s.plain = plain;
  return s;
}

// The smallest column for which the look's size condition holds.
std::int64_t look_n(std::uint32_t bytes) { return ar::kLookMinBytes / std::int64_t(bytes); }

// A profile of lane_offsets whose lane density (count * run_mean / chunks) is `density`.
Profile offsets_with_density(const ar::Sizes& s, double density) {
  Profile p;
  p.n = double(s.lanes + 1);
  const double chunks = double(s.lanes) / double(lanes_per_chunk(s.type_bytes));
  p.run_mean = density * chunks / double(s.count);
  p.sorted = 1;
  p.max = double(s.count);
  p.span = double(s.count) + 1;
  return p;
}
Profile clustered_offsets(const ar::Sizes& s) { return offsets_with_density(s, 1024); }
Profile spread_offsets(const ar::Sizes& s) { return offsets_with_density(s, 16); }

void names() {
  check_plan_names<Plan>([](Plan p) { return ar::name(p); });
  // The record's plan names are the variants' (scripts/plot_regret.py compares them with the best variant's).
  CHECK(std::string(ar::name(Plan::DecodeThrustScatter)) == "decode_thrust_scatter");
  CHECK(std::string(ar::name(Plan::FusedWarpApply)) == "fused_warp_apply");
}

void by_size() {
  for (std::uint32_t b : kTypes) {
    CHECK(ar::by_size(sizes(1 << 20, b, 0)) == Plan::DecodeUnpatched);
    // Below the look: fused, or the peer for u64 from kPeerU64MinN values; above it, spread patches' plans.
    CHECK(ar::by_size(sizes(1 << 20, b, 1)) == (b == 8 ? Plan::DecodeThrustScatter : Plan::Fused));
    CHECK(ar::by_size(sizes(1 << 20, b, 1, false)) == Plan::Fused);
    CHECK(ar::by_size(sizes(ar::kPeerU64MinN - 1, b, 1)) == Plan::Fused);
    CHECK(ar::by_size(sizes(ar::kPeerU64MinN, b, 1)) == (b == 8 ? Plan::DecodeThrustScatter : Plan::Fused));
    CHECK(ar::by_size(sizes(look_n(b), b, 1)) == (b <= 2 ? Plan::FusedWarpApply : Plan::Fused));
    // u8 and u16 below the look: the warp's apply from kWarpMinBytes.
    const std::int64_t warp_n = ar::kWarpMinBytes / std::int64_t(b);
    CHECK(ar::by_size(sizes(warp_n - 1, b, 1)) == (b == 8 ? Plan::DecodeThrustScatter : Plan::Fused));
    CHECK(ar::by_size(sizes(warp_n, b, 1)) == (b <= 2 ? Plan::FusedWarpApply : b == 8 ? Plan::DecodeThrustScatter : Plan::Fused));
    CHECK(!ar::needs_look(sizes(warp_n, b, 1)));
    // Most values patched: the peer at any size, clustered or not, so no look.
    for (std::int64_t n : {std::int64_t(1000), 4 * look_n(b)}) {
      const std::int64_t half = n / 2;
      CHECK(ar::by_size(sizes(n, b, half - 1)) != Plan::DecodeThrustScatter || b == 8);
      CHECK(ar::by_size(sizes(n, b, half)) == Plan::DecodeThrustScatter && !ar::needs_look(sizes(n, b, half)));
      CHECK(ar::by_size(sizes(n, b, half, false)) != Plan::DecodeThrustScatter);
    }
    CHECK(!ar::needs_look(sizes(look_n(b) * 4, b, 0)));  // no patches: nothing to look for
  }
}

// The look's size boundary, where clustering would change the answer (clustered, 0.1%: the peer).
void look_boundary() {
  for (std::uint32_t b : kTypes) {
    const std::int64_t n = look_n(b);
    const ar::Sizes below = sizes(n - 1, b, (n - 1) / 1000), at = sizes(n, b, n / 1000);
    CHECK_MSG(!ar::needs_look(below), "type " << b << " just below the look's bytes");
    CHECK_MSG(ar::needs_look(at), "type " << b << " at the look's bytes");
    CHECK(ar::decide(below, clustered_offsets(below)) == ar::by_size(below));
    CHECK(ar::decide(at, clustered_offsets(at)) == Plan::DecodeThrustScatter);
    CHECK(ar::decide(at, spread_offsets(at)) == ar::by_size(at));
    ar::Sizes no_lanes = at;
    no_lanes.lanes = 0;
    CHECK(!ar::needs_look(no_lanes));
  }
}

// Clustered patches: the peer below its rate per type, the best of ours above; where the two agree
// with the spread plan no look is taken.
void peer_rates() {
  for (std::uint32_t b : kTypes) {
    const std::int64_t n = 4 * look_n(b);
    // (u64's rate never crosses; from kPeerAllRate the peer is the plan by size.)
    const double max_rate = std::min(ar::peer_max_rate(b), ar::kPeerAllRate);
    const std::int64_t under = std::int64_t(std::floor(max_rate * double(n))) - 1;
    const ar::Sizes s = sizes(n, b, under);
    CHECK_MSG(ar::patch_rate(s) < max_rate, "type " << b);
    CHECK(ar::needs_look(s));
    CHECK_MSG(ar::decide(s, clustered_offsets(s)) == Plan::DecodeThrustScatter, "type " << b << " just below the peer's rate");
    // (The lane density is at least 1024 * rate: every lane patched. u64's rate here is nearly 1.)
    if (ar::patch_rate(s) * lp::patched::kChunk < 16) CHECK(ar::decide(s, spread_offsets(s)) == ar::by_size(s));
    // Without the plain list the peer never runs.
    const ar::Sizes own = sizes(n, b, under, false);
    CHECK(ar::decide(own, clustered_offsets(own)) != Plan::DecodeThrustScatter);
    if (ar::peer_max_rate(b) >= 1) {
      // u64: no crossover; a column of patches only takes the peer by its rate alone.
      const ar::Sizes all = sizes(n, b, n);
      CHECK(ar::clustered_plan(all) == Plan::DecodeThrustScatter && ar::by_size(all) == Plan::DecodeThrustScatter && !ar::needs_look(all));
      continue;
    }
    const std::int64_t over = std::int64_t(std::ceil(max_rate * double(n)));
    const ar::Sizes t = sizes(n, b, over);
    CHECK(ar::patch_rate(t) >= max_rate);
    const Plan ours = ar::clustered_plan(t);
    CHECK_MSG(ours != Plan::DecodeThrustScatter, "type " << b << " at the peer's rate");
    if (b == 1) CHECK(ours == Plan::FusedWarpApply && !ar::needs_look(t));
    if (b == 2) CHECK(ours == Plan::Fused && ar::needs_look(t) && ar::decide(t, clustered_offsets(t)) == Plan::Fused);
    if (b == 4) CHECK(ours == Plan::Fused && !ar::needs_look(t));
  }
}

// Clustered u16 without the peer: the warp's apply below kU16ClusteredWarpMaxRate, lane cursors from it.
void u16_own_plans() {
  const std::int64_t n = 4 * look_n(2);
  const std::int64_t at = std::int64_t(std::ceil(ar::kU16ClusteredWarpMaxRate * double(n)));
  const ar::Sizes below = sizes(n, 2, at - 1, false), above = sizes(n, 2, at, false);
  CHECK(!ar::needs_look(below));  // the warp's apply either way
  CHECK(ar::decide(below, clustered_offsets(below)) == Plan::FusedWarpApply);
  CHECK(ar::needs_look(above));
  CHECK(ar::decide(above, clustered_offsets(above)) == Plan::Fused);
  CHECK(ar::decide(above, spread_offsets(above)) == Plan::FusedWarpApply);
  // u8, u32 and u64 without the peer: one plan whatever the clustering, so no look.
  for (std::uint32_t b : {1u, 4u, 8u}) CHECK(!ar::needs_look(sizes(4 * look_n(b), b, 4 * look_n(b) / 100, false)));
}

// The clustering threshold: lane density just below and above `dense` (the default and set).
void dense_boundary() {
  for (std::uint32_t b : kTypes)
    for (int dense : {0, 64, 1000, 2048}) {
      const ar::Sizes s = sizes(4 * look_n(b), b, 4 * look_n(b) / 1000, true, dense);
      const double t = dense > 0 ? dense : ar::kDefaultDense;
      CHECK(ar::dense_threshold(s) == t);
      const Profile lo = offsets_with_density(s, t * (1 - 1e-9)), hi = offsets_with_density(s, t * (1 + 1e-9));
      CHECK_MSG(!ar::clustered(s, lo) && ar::clustered(s, hi), "type " << b << " dense " << dense << ": " << ar::lane_density(s, lo));
      CHECK(ar::decide(s, lo) == ar::by_size(s));
      CHECK(ar::decide(s, hi) == Plan::DecodeThrustScatter);
      CHECK(ar::Rule{s}(hi, Profile{}, 0) == unsigned(Plan::DecodeThrustScatter));
    }
}

// Any sizes, any profile: decide() within possible(), which holds by_size(); no look, one plan.
void random_inputs() {
  std::mt19937_64 rng(7);
  auto real = [&](double lo, double hi) { return std::uniform_real_distribution<double>(lo, hi)(rng); };
  for (int i = 0; i < 200000; ++i) {
    const std::uint32_t b = kTypes[rng() % 4];
    const std::int64_t n = std::int64_t(std::exp2(real(0, 31)));
    const std::int64_t count = rng() % 4 == 0 ? 0 : std::int64_t(double(n) * std::exp2(real(-20, 0)));
    const ar::Sizes s = sizes(n, b, std::min(count, n), rng() % 2 == 0, rng() % 3 == 0 ? int(rng() % 2049) : 0);
    Profile p;
    p.run_mean = rng() % 10 == 0 ? 1.0 : std::exp2(real(0, 24));
    p.sorted = 1;
    const Plan q = ar::decide(s, p);
    CHECK_MSG(ar::possible(s, q), "n " << s.n << " type " << b << " count " << s.count << " plan " << ar::name(q));
    CHECK(ar::possible(s, ar::by_size(s)));
    if (!ar::needs_look(s)) CHECK(q == ar::by_size(s));
    if (s.count == 0) CHECK(q == Plan::DecodeUnpatched);
    else CHECK(q != Plan::DecodeUnpatched);
    if (!s.plain) CHECK(q != Plan::DecodeThrustScatter);
    int plans = 0;
    for (unsigned k = 0; k < unsigned(Plan::Count); ++k) plans += ar::possible(s, Plan(k));
    CHECK(plans == (ar::needs_look(s) ? 2 : 1));
  }
}

// lane_offsets as the layout builds them: the exclusive prefix of each lane's patch count, for
// patches spread uniformly (each of a lane's W rows a patch with probability `rate`) or clustered
// (whole chunks in random order, the last partly, as the study's generator places them).
std::vector<std::uint32_t> offsets_of(std::int64_t n, std::uint32_t bytes, double rate, bool clustered, std::uint64_t seed,
                                      std::int64_t& count) {
  const std::int64_t chunks = lp::patched::chunks_of(n), lpc = lanes_per_chunk(bytes), rows = 8 * std::int64_t(bytes);
  std::vector<std::uint32_t> per_lane(static_cast<std::size_t>(chunks * lpc), 0);
  std::mt19937_64 rng(seed);
  count = 0;
  if (clustered) {
    std::int64_t todo = std::llround(rate * double(n));
    std::vector<std::int64_t> order(static_cast<std::size_t>(chunks));
    for (std::int64_t c = 0; c < chunks; ++c) order[std::size_t(c)] = c;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<int> pos(lp::patched::kChunk);
    for (std::size_t i = 0; i < order.size() && todo > 0; ++i) {
      const int take = int(std::min<std::int64_t>(todo, lp::patched::kChunk));
      for (int q = 0; q < lp::patched::kChunk; ++q) pos[std::size_t(q)] = q;
      std::shuffle(pos.begin(), pos.end(), rng);
      for (int q = 0; q < take; ++q) ++per_lane[std::size_t(order[i] * lpc + pos[std::size_t(q)] % lpc)];
      todo -= take;
      count += take;
    }
  } else {
    std::binomial_distribution<int> draws(int(rows), rate);
    for (auto& k : per_lane) count += (k = std::uint32_t(draws(rng)));
  }
  std::vector<std::uint32_t> off(per_lane.size() + 1, 0);
  for (std::size_t l = 0; l < per_lane.size(); ++l) off[l + 1] = off[l] + per_lane[l];
  return off;
}

void real_offsets() {
  const std::int64_t n = std::int64_t(1) << 24;
  std::uint64_t seed = 1;
  for (std::uint32_t b : kTypes) {
    for (double rate : {1e-4, 1e-3, 0.01, 0.05, 0.1, 0.5})
      for (bool clustered : {false, true}) {
        // Clustered below 1%: a few patched chunks, which the sample's 256 windows meet zero, one or
        // two times (auto_rule.hpp's lane_density says what that does); uniform above 10% patches
        // nearly every lane, and what "clustered" means there is the knob's business.
        if (clustered ? rate < 0.01 : rate > 0.1) continue;
        std::int64_t count = 0;
        const std::vector<std::uint32_t> off = offsets_of(n, b, rate, clustered, ++seed, count);
        const std::int64_t entries = std::int64_t(off.size());
        const Profile p = lp::profile::finish(lp::profile::count_column_host(off.data(), entries), entries, 0);
        ar::Sizes s = sizes(n, b, count);
        // The profile's max is the offsets' last entry: the patch count, on the device too.
        CHECK_MSG(p.max == double(count) && p.min == 0, "type " << b << " rate " << rate);
        CHECK_MSG(ar::clustered(s, p) == clustered, "type " << b << " rate " << rate << (clustered ? " clustered" : " uniform")
                                                            << ": lane density " << ar::lane_density(s, p));
        if (ar::needs_look(s)) CHECK(ar::decide(s, p) == (clustered ? ar::clustered_plan(s) : ar::by_size(s)));
      }
  }
}

// Float columns (ALP): by the exception rate at every size, never a look; each boundary just below
// and above; the peer only where its plain list is on the device.
void alp_columns() {
  for (std::uint32_t b : {4u, 8u})
    for (std::int64_t n : {std::int64_t(1000), std::int64_t(1) << 20, look_n(b), std::int64_t(1) << 28}) {
      auto at = [&](double rate, bool plain = true) {
        ar::Sizes s = sizes(n, b, std::llround(rate * double(n)), plain);
        s.alp = true;
        CHECK_MSG(!ar::needs_look(s), "alp never looks: n " << n << " rate " << rate);
        return ar::by_size(s);
      };
      const Plan above_peer = b == 4 ? Plan::FusedWarpApply : Plan::Fused;
      CHECK(at(0) == Plan::DecodeUnpatched);
      if (n >= 1000000) {  // rates resolvable at this n
        CHECK_MSG(at(ar::kAlpPeerMaxRate * 0.98) == Plan::DecodeThrustScatter, "n " << n);
        CHECK_MSG(at(ar::kAlpPeerMaxRate * 1.02) == above_peer, "n " << n);
        CHECK_MSG(at(ar::kAlpPeerMaxRate * 0.5, false) == above_peer, "no plain list: n " << n);
        CHECK(at(ar::kAlpF32WarpMaxRate * 0.98) == above_peer);
        CHECK(at(ar::kAlpF32WarpMaxRate * 1.02) == Plan::Fused);
        CHECK(at(ar::kPeerAllRate) == Plan::DecodeThrustScatter);
      }
    }
}

}  // namespace

int main() {
  alp_columns();
  names();
  by_size();
  look_boundary();
  peer_rates();
  u16_own_plans();
  dense_boundary();
  random_inputs();
  real_offsets();
  return test_summary("test_auto_rule_patched");
}
