// The shared input profile `auto` decides from (beyond the documents): what one sampled look at a
// column of labels or keys tells, in numbers every study's decision table reads the same way.
// Plain C++ and __host__ __device__: the device pass (input_profile.cuh) and the CPU twin the tests
// compare it with (profile_column_host) share the sample geometry and the arithmetic below.
//
// The sample: up to kWindows windows of kWindow consecutive elements, spread evenly over the column
// (the first at 0, the last ending at n); a column of at most kWindows * kWindow elements is read
// whole. 2 K elements: enough for shares of a percent (20 samples) and the thresholds the tables use,
// few enough that one block reads, counts and decides in a few microseconds (every part of the pass
// is a chain of dependent warp operations or shared-memory atomics; halving the sample from 4 K took
// the H100's pass from about 7.5 to 5 us). Neighbours inside a window tell sortedness and runs; the windows' first elements tell
// whether the column ascends as a whole; the sample's label counts tell the heaviest label's share
// and, through the frequencies of frequencies, an estimate of the distinct labels.
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "hd.hpp"

namespace lp::profile {

constexpr int kWindow = 32;                    // one warp's consecutive elements
constexpr int kWindows = 64;                   // windows of a sampled column
constexpr int kSample = kWindow * kWindows;    // elements a profile reads at most (2 K)

// Windows a column of n elements is read in: all of it (the last window cut short) up to kSample
// elements, kWindows spread windows beyond.
LP_HD int windows_for(std::int64_t n) {
  if (n <= 0) return 0;
  if (n <= kSample) return int((n + kWindow - 1) / kWindow);
  return kWindows;
}
// First element of window w of `windows`.
LP_HD std::int64_t window_start(std::int64_t n, int w, int windows) {
  if (n <= kSample) return std::int64_t(w) * kWindow;
  return windows > 1 ? std::int64_t(w) * (n - kWindow) / (windows - 1) : 0;
}
LP_HD bool whole_column(std::int64_t n) { return n <= kSample; }

// The sample's labels are counted in a sketch, not a keyed table: kBuckets counters, each run of
// equal labels in a window adding one to the counter its label's hash names (one shared-memory
// atomic a run; a keyed table's compare-and-swap probing cost the H100 several microseconds more).
// Runs, not inputs: what piles up on one bucket at once is the runs that name it (a warp's run is one
// update wherever a kernel aggregates), and a window inside one long run would otherwise count 32
// times for one label the sample met once. A counter stands for the labels that share it: the
// heaviest counter overstates the heaviest label by what collides with it, and the distinct labels
// come from the occupied counters (linear counting). A join's build side also sets kBloomHashes bits
// per sampled key in a Bloom filter of 2^17 bits that the probe side's keys are looked up in: 5e-7
// false positives at 2 K keys, since the match estimate scales the hits by |R| / sample (a sampled
// build side), and at a few thousand to one a false hit or two would read as a full match. Both fit
// a block's static shared memory.
constexpr int kBucketBits = 12, kBuckets = 1 << kBucketBits;
constexpr int kBloomBits = 17, kBloomWords = (1 << kBloomBits) / 32, kBloomHashes = 6;

LP_HD std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}
LP_HD unsigned bucket_of(std::uint64_t key) { return unsigned(mix(key) >> (64 - kBucketBits)); }
LP_HD unsigned bloom_bit(std::uint64_t key, int k) {  // three 17-bit hashes from each of two mixes
  const std::uint64_t h = mix(key + (k < 3 ? 0x9e3779b97f4a7c15ull : 0x632be59bd9b4e019ull));
  return unsigned(h >> ((k % 3) * kBloomBits)) & ((1u << kBloomBits) - 1);
}
LP_HD bool bloom_holds(const std::uint32_t* words, std::uint64_t key) {
  for (int k = 0; k < kBloomHashes; ++k)
    if (!((words[bloom_bit(key, k) / 32] >> (bloom_bit(key, k) % 32)) & 1u)) return false;
  return true;
}

// What the pass counts over the sample (the device with shared-memory atomics, the host twin with
// loops); finish() turns it into a Profile.
struct Counts {
  std::uint32_t sampled = 0;      // elements read
  std::uint32_t pairs = 0;        // neighbour pairs inside windows
  std::uint32_t ascending = 0;    // pairs with next >= previous
  std::uint32_t equal = 0;        // pairs with next == previous
  std::uint32_t windows = 0;
  std::uint32_t windows_ascending = 0;  // consecutive windows whose first elements do not decrease
  std::uint32_t runs = 0;         // runs of equal labels inside windows (what the sketch counted)
  std::uint32_t occupied = 0;     // sketch counters holding a label
  std::uint32_t heaviest = 0;     // the fullest counter
  std::uint64_t min = ~std::uint64_t(0), max = 0;  // of the sample
  std::uint32_t probe_hits = 0;   // joins: sampled keys of the second column the first's filter holds
  std::uint32_t probe_sampled = 0;
};

// The profile of one column of n elements over a domain of m labels (m = 0: no stated domain, e.g.
// join keys). Estimates from the sample (exact, but for the sketch's collisions, where `whole` says
// the column was read whole).
struct Profile {
  double n = 0;
  double m = 0;
  double sample = 0;          // elements read
  double sorted = 1;          // fraction of neighbour pairs that do not decrease (1: ascending, ~0.5: random)
  double run_mean = 1;        // mean length of runs of equal labels (1 / fraction of pairs that differ)
  double sorted_global = 1;   // fraction of consecutive windows whose first labels do not decrease
  double warp_runs = 1;       // mean runs of equal labels among 32 consecutive ones (1: a warp updates one bucket)
  double distinct = 1;        // estimate of the distinct labels of the whole column (capped at n and m)
  double heavy = 1;           // the heaviest label's share of the runs (1: one label everywhere; zipf: of the inputs)
  double span = 1;            // (max - min + 1) / m of the sample (range against m; m = 0: the span itself)
  double min = 0, max = 0;
  bool whole = true;          // the sample is the column
};

// The labels D of a uniform distribution whose `samples` draws show `seen` distinct on average
// (seen = D (1 - e^(-samples/D))), at most `cap`: Newton's method in single precision from the
// birthday estimate s^2 / 2 (s - seen), a few dozen instructions on the profile's one thread
// (double-precision exp in a loop there cost the H100 microseconds).
LP_HD double labels_behind(double seen, double samples, double cap) {
  // Linear counting's own noise is about 1% of the sample: within 3% of it, no repeat is certain, and
  // the labels read as "as many as there can be" (at least tens of thousands).
  if (seen >= 0.97 * samples) return cap;
  const float s = float(samples), target = float(seen);
  float d = fmaxf(target, s * s / (2 * (s - target)));
  for (int i = 0; i < 6; ++i) {  // f(D) = D (1 - e^(-s/D)) - seen rises with D and flattens: from above or below, it converges
    const float e = expf(-s / d);
    const float f = d * (1 - e) - target, slope = 1 - e * (1 + s / d);
    if (slope <= 1e-6f) break;
    d = fmaxf(target, d - f / slope);
  }
  return d < cap ? double(d) : cap;
}

LP_HD Profile finish(const Counts& c, std::int64_t n, std::uint64_t m) {
  Profile p;
  p.n = double(n);
  p.m = double(m);
  p.sample = double(c.sampled);
  p.whole = whole_column(n);
  if (c.sampled == 0) return p;
  if (c.pairs > 0) {
    p.sorted = double(c.ascending) / c.pairs;
    const std::uint32_t differ = c.pairs - c.equal;
    p.run_mean = differ == 0 ? double(n) : double(c.pairs) / differ;
    if (p.run_mean > double(n)) p.run_mean = double(n);
  }
  p.sorted_global = c.windows > 1 ? double(c.windows_ascending) / (c.windows - 1) : 1.0;
  // A window's runs: one plus its neighbour pairs that differ.
  p.warp_runs = c.windows > 0 ? double(c.windows + c.pairs - c.equal) / c.windows : 1.0;
  // The sample's distinct labels by linear counting over the occupied counters; beyond the sample,
  // the labels that many uniform draws would show (labels_behind): a sample without repeats reads as
  // "as many as there can be". Skew makes repeats, so skewed labels read as fewer than are present:
  // the tables use the estimate to find few labels, and a plan that needs few checks the count
  // itself (multiscan's relabel).
  const double occupied = c.occupied < kBuckets ? c.occupied : kBuckets - 0.5;
  double d = -double(kBuckets) * double(logf(float(1 - occupied / kBuckets)));
  if (!p.whole) d = labels_behind(d, double(c.runs), double(n));
  if (d > double(n)) d = double(n);
  if (m > 0 && d > double(m)) d = double(m);
  p.distinct = d < 1 ? 1 : d;
  // Two runs on one counter are as likely a collision of the sketch as one label met twice.
  p.heavy = double(c.heaviest > 2 ? c.heaviest : 1) / (c.runs > 0 ? c.runs : 1);
  if (p.heavy > 1) p.heavy = 1;
  p.min = double(c.min);
  p.max = double(c.max);
  const double range = double(c.max - c.min) + 1;
  p.span = m > 0 ? range / double(m) : range;
  return p;
}

// What the device pass leaves in memory: both columns' profiles, the match estimate (joins) and the
// plan the decision table chose.
struct Slot {
  Profile first, second;
  double match = 0;
  unsigned plan = 0;
  unsigned columns = 0;
};

// Joins: the match estimate, the fraction of the probe side's keys that the build side holds. With
// the build side read whole the hits are exact membership; sampled, a key of a build side of distinct
// keys is in its sample with probability sample / n, so the hits are scaled by n / sample (capped at 1).
LP_HD double match_estimate(const Counts& probe, const Profile& build) {
  if (probe.probe_sampled == 0) return 0;
  double f = double(probe.probe_hits) / probe.probe_sampled;
  if (!build.whole && build.sample > 0) f *= build.n / build.sample;
  return f > 1 ? 1 : f;
}

// A key as the profile counts it: an unsigned word that orders as the keys do. Signed integers have
// their sign bit flipped (int64 join keys below zero still ascend); floats their IEEE bits, all of
// them flipped where the sign is set and the sign alone where not (radix sort's mapping).
template <class K>
LP_HD std::uint64_t key_of(K x) {
  if constexpr (std::is_floating_point_v<K>) {
    using U = std::conditional_t<sizeof(K) == 8, std::uint64_t, std::uint32_t>;
    U bits;
    memcpy(&bits, &x, sizeof bits);
    const U sign = U(1) << (sizeof(K) * 8 - 1);
    return std::uint64_t(bits & sign ? ~bits : bits | sign);
  } else if constexpr (std::is_signed_v<K>) {
    using U = std::make_unsigned_t<K>;
    return std::uint64_t(U(x) ^ (U(1) << (sizeof(K) * 8 - 1)));
  } else {
    return std::uint64_t(x);
  }
}

// The host twin of the device pass: the same sample, counted with loops. The GPU tests require the
// device's counts to equal these exactly; the CPU tests check finish() against known answers.
template <class K>
Counts count_column_host(const K* a, std::int64_t n) {
  Counts c;
  const int windows = windows_for(n);
  c.windows = std::uint32_t(windows);
  std::vector<std::uint32_t> sketch(kBuckets, 0);
  std::uint64_t prev_first = 0;
  for (int w = 0; w < windows; ++w) {
    const std::int64_t start = window_start(n, w, windows);
    const std::int64_t end = start + kWindow < n ? start + kWindow : n;
    for (std::int64_t i = start; i < end; ++i) {
      const std::uint64_t x = key_of(a[i]);
      ++c.sampled;
      if (i == start || key_of(a[i - 1]) != x) ++sketch[bucket_of(x)], ++c.runs;
      if (x < c.min) c.min = x;
      if (x > c.max) c.max = x;
      if (i + 1 < end) {
        const std::uint64_t y = key_of(a[i + 1]);
        ++c.pairs;
        c.ascending += y >= x;
        c.equal += y == x;
      }
    }
    const std::uint64_t first = key_of(a[start]);
    if (w > 0 && first >= prev_first) ++c.windows_ascending;
    prev_first = first;
  }
  for (std::uint32_t k : sketch) {
    c.occupied += k > 0;
    if (k > c.heaviest) c.heaviest = k;
  }
  return c;
}

// The probe counts of a join's second column against the first's Bloom filter (host twin of the pass).
template <class K>
void probe_column_host(Counts& second, const K* first, std::int64_t n_first, const K* probe, std::int64_t n_probe) {
  std::vector<std::uint32_t> bloom(kBloomWords, 0);
  auto each = [](const K* a, std::int64_t n, auto&& f) {
    const int windows = windows_for(n);
    for (int w = 0; w < windows; ++w)
      for (std::int64_t i = window_start(n, w, windows), e = i + kWindow < n ? i + kWindow : n; i < e; ++i) f(key_of(a[i]));
  };
  each(first, n_first, [&](std::uint64_t x) {
    for (int k = 0; k < kBloomHashes; ++k) bloom[bloom_bit(x, k) / 32] |= 1u << (bloom_bit(x, k) % 32);
  });
  each(probe, n_probe, [&](std::uint64_t x) {
    ++second.probe_sampled;
    second.probe_hits += bloom_holds(bloom.data(), x);
  });
}

}  // namespace lp::profile
