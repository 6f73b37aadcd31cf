// The patched study's `auto` decision table (beyond the documents): from what the host knows (the
// column's size and type, its patch count, which plans can run) and, where that does not settle it,
// the input profile (kernels/common/input_profile.hpp) of the layout's own metadata on the device:
// the lane_offsets column. Plain C++, __host__ __device__: the profile pass evaluates it on the
// device, the CPU tests at every boundary. The clustered regimes are read off the H100 default sweep
// (results/h100/patched/, n = 2^26, every plan's kernel measured at every point); the sizes where
// the look runs and the plans below them off the regret sweep's fitting draw
// (results/h100/regret/fit/patched.json.gz).
//
// What the metadata tells. lane_offsets is the exclusive prefix of the patch counts per lane
// (chunks * lanes + 1 entries, fastlanes.hpp), so two equal neighbours are a lane without patches:
// the profile's fraction of neighbour pairs that differ, 1 / run_mean, is the fraction of lanes
// holding a patch, and with the patch count it gives the patches per patched lane, how clustered
// the patches are. The count itself is host metadata: the indices and values children are arrays
// whose length the layout records (Vortex keeps every array's length in its tree); the profile's max,
// the offsets' last entry, is the same number on the device.
//
// Why clustering decides. Patches packed into a few chunks hold up the blocks that decode those
// chunks in any fused kernel, while a plain decode and thrust::scatter (one thread per patch, over
// the plain exception list) stay balanced: on clustered patches at low rates the peer wins by 1-9%
// (u8, u16, u32) and at every measured rate for u64. Spread patches make the peer's scatter random
// writes, and fusing wins (1.15-1.95x at rates >= 1%).
#pragma once
#include <cstdint>

#include "../common/hd.hpp"
#include "../common/input_profile.hpp"
#include "fastlanes.hpp"

namespace lp::patched::auto_rule {

// The plans, named after the variants they run (DecodeUnpatched: the FastLanes decode kernel with no
// patching, the first pass of every two-pass variant).
enum class Plan : unsigned { DecodeUnpatched, Fused, FusedWarpApply, DecodeLaneApply, DecodeChunkApply, DecodeThrustScatter, Count };
inline const char* name(Plan p) {
  constexpr const char* kNames[] = {"decode_unpatched",   "fused",           "fused_warp_apply",
                                    "decode_lane_apply",  "decode_chunk_apply", "decode_thrust_scatter"};
  return unsigned(p) < unsigned(Plan::Count) ? kNames[unsigned(p)] : "?";
}

// What the host knows before any look. No padding: the plan graph's key is made of these bytes.
struct Sizes {
  std::int64_t n = 0;
  std::int64_t count = 0;        // patches (the indices and values children's length)
  std::int64_t lanes = 0;        // lane slots, chunks * lanes per chunk (lane_offsets holds one more)
  std::uint32_t type_bytes = 4;  // 1, 2, 4 or 8
  std::int32_t dense = 0;        // the `dense` knob (0: kDefaultDense)
  bool plain = false;            // the plain exception list (global positions, values) is on the device: the peer plan runs
  bool alp = false;              // a float column, ALP-encoded (alp_decode.cuh): its patches are its exceptions
  bool unused[6] = {};
};
static_assert(sizeof(Sizes) == 40, "Sizes has no padding");

// Patches per patched lane, times the lanes of a chunk, above which the patches count as clustered:
// a quarter chunk, above uniform patching at 10% (about 102-186 depending on the type) and below
// whole patched chunks (1024).
constexpr int kDefaultDense = 256;
// Below this many decoded bytes the look costs more than its answer can save: on the H100 the look
// inside auto's graph (the profile pass and the switch) adds 15-16 us (regret fitting draw), and a
// decode of 256 MiB takes 140-280 us, of 64 MiB 35-70.
constexpr std::int64_t kLookMinBytes = std::int64_t(1) << 28;
// Below the look, clustering unknown: fused, whose lane cursors stay within 1.3 us of the best plan
// at every type and rate of the fitting draw there, where the warp's apply lost 2.1-2.5x (10-12 us)
// on clustered u8 and u16 patches; for u64 decode + thrust::scatter from this many values (fused
// 1.6-2.1x behind it on clustered u64 at 2^12-2^20, the peer at most 1.29x behind fused on spread).
constexpr std::int64_t kPeerU64MinN = std::int64_t(1) << 12;
// From 64 MiB of decoded u8 or u16 values, below the look: the warp's cooperative apply, which the
// default sweep (2^26 values, results/h100/patched/patched.json and results/h200/patched/default.json)
// finds 1.2-1.6x ahead of fused over spread patches at every rate (u8 at 10%: 0.075 ms against 0.117
// on the H100) and within 1.1x of the best over clustered ones up to 5% (1.22x behind fused for
// clustered u16 at 10%: 0.132 against 0.108), where the fitting draw's smaller columns saw it lose
// 10-12 us to fused.
constexpr std::int64_t kWarpMinBytes = std::int64_t(1) << 26;
// At this patch rate and above (most values patched) the peer's one thread per patch over the plain
// list beats every fused plan, clustered or not (fitting draw: u64 at rate 1, 32 M values, 0.33 ms
// against fused's 1.61; u16 at 0.98 clustered, 0.39 against 0.73).
constexpr double kPeerAllRate = 0.5;
// Clustered patches: the patch rate below which decode + thrust::scatter beats the best of ours, per
// type, where the two lines cross between the measured rates (0.01%, 0.1%, 1%, 5%, 10%): u8 against
// fused_warp_apply (1.10x slower at 1%, 0.96x at 5%), u16 against fused (1.05x at 5%, 0.96x at 10%),
// u32 against fused (1.01x at 1%, 0.98x at 5%); u64: fused is 1.02-1.08x slower at every measured
// rate and both grow linearly with the rate, the peer's slope the lower, so no crossover below 1.
constexpr double kPeerMaxRateU8 = 0.035, kPeerMaxRateU16 = 0.07, kPeerMaxRateU32 = 0.02, kPeerMaxRateU64 = 1.0;
// Clustered u16 without the peer: the warp's apply below this rate (92-97 against fused's 102-104 us
// at 0.01-1%), fused's lane cursors above (106 against 114 at 5%).
constexpr double kU16ClusteredWarpMaxRate = 0.03;

LP_HD double patch_rate(const Sizes& s) { return s.n > 0 ? double(s.count) / double(s.n) : 0.0; }
LP_HD double dense_threshold(const Sizes& s) { return s.dense > 0 ? double(s.dense) : double(kDefaultDense); }
LP_HD double peer_max_rate(std::uint32_t type_bytes) {
  return type_bytes == 1 ? kPeerMaxRateU8 : type_bytes == 2 ? kPeerMaxRateU16 : type_bytes == 4 ? kPeerMaxRateU32 : kPeerMaxRateU64;
}

// The plan from the sizes alone: below the look's bytes as stated there (fused, the peer for u64,
// the warp's apply for u8 and u16 from kWarpMinBytes); above it, for patches spread
// over the column, the warp's cooperative apply for the narrow types (4 or 2 lanes per thread make per-lane cursors cost more: 0.91-0.93 of the read
// ceiling for u16 where fused holds 0.65-0.75), G-ALP's lane cursors for u32 and u64.
LP_HD bool large(const Sizes& s) { return double(s.n) * double(s.type_bytes) >= double(kLookMinBytes); }

// Float columns (ALP): the exceptions are the values that do not round-trip, so their rate is the
// data's, and the decode multiplies every value back, which the lane cursors' set-up chain (offsets,
// then index and value) slows by 10-20% on top (H200, n = 2^26, configs/patched/alp.json before this rule: results/h200/patched/probes/alp_fitting.json): below
// kAlpPeerMaxRate the plain decode + thrust::scatter is the fastest or within 1% of it at every
// column (f32 integers at 0.04%: 144 us against fused's 174; f64 uniform doubles under ALP-RD at
// 0.39%: 390 against the warp's apply's 421; f64 coordinates at 0.76%: 254 against 252). From it
// float32 takes the warp's apply up to kAlpF32WarpMaxRate (f32 coordinates 1.1%: 253 against 266;
// prices 11%: 177 against 272; specials 12.5%: 187 against 277) and fused's cursors beyond (the
// random walk at 22%: 211 against 243 and 305); float64 fused (specials at 1.45%: 239 against 262
// and 268). No look: what it would tell (clustering) did not change the answer at any column, and it
// costs 15-20 us.
constexpr double kAlpPeerMaxRate = 0.01, kAlpF32WarpMaxRate = 0.15;
LP_HD Plan alp_plan(const Sizes& s) {
  if (s.count == 0) return Plan::DecodeUnpatched;
  const double rate = patch_rate(s);
  if (s.plain && (rate < kAlpPeerMaxRate || rate >= kPeerAllRate)) return Plan::DecodeThrustScatter;
  if (s.type_bytes == 4 && rate < kAlpF32WarpMaxRate) return Plan::FusedWarpApply;
  return Plan::Fused;
}

LP_HD Plan by_size(const Sizes& s) {
  if (s.alp) return alp_plan(s);
  if (s.count == 0) return Plan::DecodeUnpatched;
  if (s.plain && patch_rate(s) >= kPeerAllRate) return Plan::DecodeThrustScatter;
  if (!large(s)) {
    if (s.plain && s.type_bytes == 8 && s.n >= kPeerU64MinN) return Plan::DecodeThrustScatter;
    return s.type_bytes <= 2 && double(s.n) * double(s.type_bytes) >= double(kWarpMinBytes) ? Plan::FusedWarpApply : Plan::Fused;
  }
  return s.type_bytes <= 2 ? Plan::FusedWarpApply : Plan::Fused;
}

// The plan for clustered patches.
LP_HD Plan clustered_plan(const Sizes& s) {
  if (s.count == 0) return Plan::DecodeUnpatched;
  const double rate = patch_rate(s);
  if (s.plain && rate >= kPeerAllRate) return Plan::DecodeThrustScatter;
  if (s.plain && rate < peer_max_rate(s.type_bytes)) return Plan::DecodeThrustScatter;
  if (s.type_bytes == 1) return Plan::FusedWarpApply;
  if (s.type_bytes == 2) return rate < kU16ClusteredWarpMaxRate ? Plan::FusedWarpApply : Plan::Fused;
  return Plan::Fused;
}

// A look where the column is large enough and the answer depends on clustering.
LP_HD bool needs_look(const Sizes& s) {
  return !s.alp && s.count > 0 && s.lanes > 0 && large(s) && clustered_plan(s) != by_size(s);
}

// The patches per patched lane, times the lanes of a chunk (count * run_mean / chunks): the lane-level
// form of "patches per patched chunk", equal to it where whole chunks are patched; patches piled on
// fewer lanes make it larger, which is the imbalance that matters. Spread patches give 1024 * rate /
// (fraction of lanes patched): at most 1024 / W at low rates (128 for u8, 16 for u64), 102-180 at
// 10%; whole patched chunks give 1024. The sample sees a patched chunk as a window of differing pairs
// at once, so where under about 1% of the chunks are patched it meets none of them (read as clustered:
// right), one (right for every type, narrowly for u8) or now and then two (read as spread: the plan
// for spread patches, up to 9% slower there).
LP_HD double lane_density(const Sizes& s, const profile::Profile& offsets) {
  const double lanes_per_chunk = double(kChunk) / (8.0 * double(s.type_bytes));
  const double run = offsets.run_mean > 1 ? offsets.run_mean : 1.0;  // lanes per patched lane
  const double patched_lanes = double(s.lanes) / run;
  return patched_lanes > 0 ? double(s.count) / patched_lanes * lanes_per_chunk : 0.0;
}

LP_HD bool clustered(const Sizes& s, const profile::Profile& offsets) { return lane_density(s, offsets) > dense_threshold(s); }

LP_HD Plan decide(const Sizes& s, const profile::Profile& offsets) {
  if (!needs_look(s)) return by_size(s);
  return clustered(s, offsets) ? clustered_plan(s) : by_size(s);
}

// Every plan decide() can answer for these sizes (the graph captures only these). The two-pass
// lane and chunk applies are plans (named, runnable) that no region takes: neither was the fastest
// at any point of the sweep.
LP_HD bool possible(const Sizes& s, Plan q) { return q == by_size(s) || (needs_look(s) && q == clustered_plan(s)); }

// The table as the profile pass calls it on the device: the first column is lane_offsets.
struct Rule {
  Sizes sizes;
  LP_HD unsigned operator()(const profile::Profile& offsets, const profile::Profile&, double) const { return unsigned(decide(sizes, offsets)); }
};

}  // namespace lp::patched::auto_rule
