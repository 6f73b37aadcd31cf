// Every sorted-search kernel mode against the CPU references: many random sizes (not multiples of
// tiles or vector widths), every key type, duplicate-heavy and distinct keys, adversarial layouts,
// several seeds. Then `auto` where it looks at both columns on the device (|A| + |B| around the
// size where it starts to): needles below, above, inside and wider than the haystack, duplicates,
// tiny and huge ratios, every key type, each answer checked against the CPU and the plan against the
// table's on the host profile (kernels/sortedsearch/auto_rule.hpp); and the study's auto_* variants
// through its own points in two orders. Exit 77 (CTest: skipped) without a GPU; LP_GPU_TEST_SMALL (the
// racecheck run) stops before the look-sized cases.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include "apps/harness/device_buffer.hpp"
#include "apps/sortedsearch/sortedsearch_study.hpp"
#include "check.hpp"
#include "check_variant.hpp"
#include "gpu_test.hpp"
#include "sorted_inputs.hpp"
#include "cpu_reference/sortedsearch/cpu_sorted_search.hpp"
#include "kernels/sortedsearch/auto_sorted_search.cuh"
#include "kernels/sortedsearch/binary_search.cuh"
#include "kernels/sortedsearch/mergepath_sorted_search.cuh"
#include "kernels/sortedsearch/windowed_sorted_search.cuh"

namespace lp::sortedsearch_study {
const char* const kDefaultConfig = "{}";
}

namespace ss = lp::sortedsearch;
namespace ar = lp::sortedsearch::auto_rule;
using harness::DeviceBuffer;
using ss::Bounds;
using ss::Output;
using u32 = std::uint32_t;

// Small tiles too, so that modest sizes cross many tile boundaries.
using SmallMP = ss::MergePathTuning<32, 7>;
using SmallWin = ss::WindowedShape<32, 64, 4>;

static std::string where;

template <class T>
static void expect_equal(const std::vector<T>& want, const std::vector<T>& got, const std::string& what) {
  CHECK_MSG(want.size() == got.size(), where << " " << what << " size");
  for (size_t i = 0; i < want.size() && i < got.size(); ++i)
    if (!(want[i] == got[i])) {
      CHECK_MSG(false, where << " " << what << "[" << i << "] expected " << want[i] << " got " << got[i]);
      return;
    }
  CHECK(true);
}

template <class Tuning, class T>
static void check_mergepath(const std::vector<T>& a, const std::vector<T>& b, DeviceBuffer<T>& da, DeviceBuffer<T>& db) {
  const int na = int(a.size()), nb = int(b.size());
  DeviceBuffer<u32> oa(na + 1), ob(nb + 1), lower_in(na + 1);
  DeviceBuffer<unsigned long long> counts(2);
  DeviceBuffer<char> scratch(ss::mergepath_scratch_bytes<Tuning>(na, nb));
  std::vector<u32> ref_a(na), ref_b(nb);
  auto got_a = [&] { auto v = oa.download(); v.resize(na); return v; };
  auto got_b = [&] { auto v = ob.download(); v.resize(nb); return v; };

  oa.poison();
  ss::mergepath_sorted_search<Tuning, Bounds::Lower, Output::Index, Output::None>(da.get(), na, db.get(), nb, oa.get(), nullptr, scratch.get(), nullptr, nullptr);
  lp::cpu::sorted_search<Bounds::Lower>(a.data(), na, b.data(), nb, ref_a.data());
  expect_equal(ref_a, got_a(), "mergepath lower");
  std::vector<u32> lower = ref_a;

  oa.poison();
  ss::mergepath_sorted_search<Tuning, Bounds::Upper, Output::Index, Output::None>(da.get(), na, db.get(), nb, oa.get(), nullptr, scratch.get(), nullptr, nullptr);
  lp::cpu::sorted_search<Bounds::Upper>(a.data(), na, b.data(), nb, ref_a.data());
  expect_equal(ref_a, got_a(), "mergepath upper");

  for (Bounds bounds : {Bounds::Lower, Bounds::Upper}) {
    oa.poison();
    ob.poison();
    std::pair<std::int64_t, std::int64_t> want;
    if (bounds == Bounds::Lower) {
      ss::mergepath_sorted_search<Tuning, Bounds::Lower, Output::IndexMatch, Output::IndexMatch>(da.get(), na, db.get(), nb, oa.get(), ob.get(), scratch.get(), counts.get(), nullptr);
      want = lp::cpu::sorted_search_both<Bounds::Lower>(a.data(), na, b.data(), nb, ref_a.data(), ref_b.data(), true);
    } else {
      ss::mergepath_sorted_search<Tuning, Bounds::Upper, Output::IndexMatch, Output::IndexMatch>(da.get(), na, db.get(), nb, oa.get(), ob.get(), scratch.get(), counts.get(), nullptr);
      want = lp::cpu::sorted_search_both<Bounds::Upper>(a.data(), na, b.data(), nb, ref_a.data(), ref_b.data(), true);
    }
    const char* tag = bounds == Bounds::Lower ? "complete(lower)" : "complete(upper)";
    expect_equal(ref_a, got_a(), std::string(tag) + " A");
    expect_equal(ref_b, got_b(), std::string(tag) + " B");
    auto c = counts.download();
    CHECK_MSG(c[0] == (unsigned long long)want.first && c[1] == (unsigned long long)want.second, where << " " << tag << " counts");
  }

  // Match-only on both sides, and index-only on B (the B output alone).
  oa.poison();
  ob.poison();
  ss::mergepath_sorted_search<Tuning, Bounds::Lower, Output::Match, Output::Match>(da.get(), na, db.get(), nb, oa.get(), ob.get(), scratch.get(), counts.get(), nullptr);
  lp::cpu::sorted_search_both<Bounds::Lower>(a.data(), na, b.data(), nb, ref_a.data(), ref_b.data(), true);
  for (auto& v : ref_a) v >>= 31;
  for (auto& v : ref_b) v >>= 31;
  expect_equal(ref_a, got_a(), "match A");
  expect_equal(ref_b, got_b(), "match B");

  ob.poison();
  ss::mergepath_sorted_search<Tuning, Bounds::Upper, Output::None, Output::Index>(da.get(), na, db.get(), nb, nullptr, ob.get(), scratch.get(), nullptr, nullptr);
  lp::cpu::sorted_search_both<Bounds::Upper>(a.data(), na, b.data(), nb, nullptr, ref_b.data(), false);
  expect_equal(ref_b, got_b(), "index B (lower bound of B into A)");

  oa.poison();
  lower_in.upload(lower);
  ss::mergepath_sorted_search<Tuning, Bounds::Upper, Output::Index, Output::None>(da.get(), na, db.get(), nb, oa.get(), nullptr, scratch.get(), nullptr, nullptr, lower_in.get());
  lp::cpu::sorted_equality_count(a.data(), na, b.data(), nb, ref_a.data());
  expect_equal(ref_a, got_a(), "equality count");
  LP_CUDA(cudaDeviceSynchronize());
}

// The windowed search at three switch ratios (never: windows at every ratio; the default; 1/4:
// sparse inputs go to binary search), both bounds, and the windowed complete search with its
// counts; the tile's needles per thread as the ratio picks them and at every size the launcher
// can pick (large tiles at a high ratio overflow the window: the in-kernel global search).
template <class Shape, class T>
static void check_windowed(const std::vector<T>& a, const std::vector<T>& b, DeviceBuffer<T>& da, DeviceBuffer<T>& db) {
  const int na = int(a.size()), nb = int(b.size());
  DeviceBuffer<u32> oa(na + 1), ob(nb + 1);
  DeviceBuffer<unsigned long long> counts(2);
  DeviceBuffer<char> scratch(ss::windowed_scratch_bytes<Shape>(na));
  std::vector<u32> ref_lower(na), ref_upper(na), ref(na), ref_b(nb);
  lp::cpu::sorted_search<Bounds::Lower>(a.data(), na, b.data(), nb, ref_lower.data());
  lp::cpu::sorted_search<Bounds::Upper>(a.data(), na, b.data(), nb, ref_upper.data());
  const auto want = lp::cpu::sorted_search_both<Bounds::Lower>(a.data(), na, b.data(), nb, ref.data(), ref_b.data(), true);
  auto got = [](DeviceBuffer<u32>& buf, int n) { auto v = buf.download(); v.resize(n); return v; };
  struct Run {
    double ratio;
    int vt;
  };
  std::vector<Run> runs = {{ss::kBinarySwitchRatio<T>, 0}, {0.25, 0}};
  for (int vt : {0, 9, 5, 3, 2, 1, ss::kHalfTile}) runs.push_back({ss::kNeverSwitch, vt});
  for (const Run& r : runs) {
    const std::string at = " (switch " + std::to_string(r.ratio) + ", vt " + std::to_string(r.vt) + ")";
    oa.poison();
    ss::windowed_sorted_search<Shape, Bounds::Lower>(da.get(), na, db.get(), nb, oa.get(), scratch.get(), nullptr, r.ratio, ss::Less{}, r.vt);
    expect_equal(ref_lower, got(oa, na), "windowed lower" + at);
    oa.poison();
    ss::windowed_sorted_search<Shape, Bounds::Upper>(da.get(), na, db.get(), nb, oa.get(), scratch.get(), nullptr, r.ratio, ss::Less{}, r.vt);
    expect_equal(ref_upper, got(oa, na), "windowed upper" + at);
    if (r.ratio != ss::kNeverSwitch) continue;
    oa.poison();
    ob.poison();
    counts.poison();
    ss::windowed_complete_search<Shape>(da.get(), na, db.get(), nb, oa.get(), ob.get(), scratch.get(), counts.get(), nullptr, ss::Less{}, r.vt);
    expect_equal(ref, got(oa, na), "windowed complete A" + at);
    expect_equal(ref_b, got(ob, nb), "windowed complete B" + at);
    auto c = counts.download();
    CHECK_MSG(c[0] == (unsigned long long)want.first && c[1] == (unsigned long long)want.second,
              where << " windowed complete counts" << at << " " << c[0] << "/" << c[1] << " want " << want.first << "/" << want.second);
  }
}

template <class T>
static void check_binary(const std::vector<T>& a, const std::vector<T>& b, DeviceBuffer<T>& da, DeviceBuffer<T>& db, std::mt19937_64& rng) {
  const int na = int(a.size()), nb = int(b.size());
  std::vector<T> shuffled = a;
  std::shuffle(shuffled.begin(), shuffled.end(), rng);
  DeviceBuffer<T> ds;
  ds.upload(shuffled);
  DeviceBuffer<u32> oa(na + 1);
  std::vector<u32> ref(na);
  oa.poison();
  ss::binary_search<Bounds::Lower>(ds.get(), na, db.get(), nb, oa.get(), nullptr);
  lp::cpu::binary_search<Bounds::Lower>(shuffled.data(), na, b.data(), nb, ref.data());
  auto got = oa.download();
  got.resize(na);
  expect_equal(ref, got, "binary search lower (unsorted needles)");
  oa.poison();
  ss::binary_search<Bounds::Upper>(da.get(), na, db.get(), nb, oa.get(), nullptr);
  lp::cpu::binary_search<Bounds::Upper>(a.data(), na, b.data(), nb, ref.data());
  got = oa.download();
  got.resize(na);
  expect_equal(ref, got, "binary search upper");
}


template <class T>
static void check_all(const std::vector<T>& a, const std::vector<T>& b, std::mt19937_64& rng, const std::string& what) {
  where = what + " |A|=" + std::to_string(a.size()) + " |B|=" + std::to_string(b.size());
  DeviceBuffer<T> da, db;
  da.upload(a);
  db.upload(b);
  check_mergepath<SmallMP>(a, b, da, db);
  check_mergepath<ss::DefaultMergePathTuning<T>>(a, b, da, db);
  check_windowed<SmallWin>(a, b, da, db);
  check_windowed<ss::DefaultWindowedShape<T>>(a, b, da, db);
  check_binary(a, b, da, db, rng);
  // auto (below the look's size: its plan by sizes) and the several-GPU search's plan by sizes with
  // an index offset, both bounds.
  using MP = ss::DefaultMergePathTuning<T>;
  using WIN = ss::DefaultWindowedShape<T>;
  const int na = int(a.size()), nb = int(b.size());
  DeviceBuffer<u32> oa(na + 1);
  const std::size_t bytes = ss::auto_search_scratch_bytes<MP, WIN, T>(na, nb);
  DeviceBuffer<char> scratch(std::max(bytes, ss::auto_search_by_size_scratch_bytes<MP, WIN, T>(na, nb)));
  std::vector<u32> ref(na);
  const std::string plan = ar::name(by_size(ss::auto_sizes<WIN, T>(na, nb, true)));
  for (Bounds bounds : {Bounds::Lower, Bounds::Upper}) {
    for (std::uint32_t base : {0u, 1000u}) {
      oa.poison();
      if (bounds == Bounds::Lower) {
        if (base == 0) ss::auto_sorted_search<MP, WIN, Bounds::Lower>(da.get(), na, db.get(), nb, oa.get(), scratch.get(), bytes, nullptr);
        else ss::auto_sorted_search_by_size<MP, WIN, Bounds::Lower>(da.get(), na, db.get(), nb, oa.get(), scratch.get(), nullptr, base);
        lp::cpu::sorted_search<Bounds::Lower>(a.data(), na, b.data(), nb, ref.data());
      } else {
        if (base == 0) ss::auto_sorted_search<MP, WIN, Bounds::Upper>(da.get(), na, db.get(), nb, oa.get(), scratch.get(), bytes, nullptr);
        else ss::auto_sorted_search_by_size<MP, WIN, Bounds::Upper>(da.get(), na, db.get(), nb, oa.get(), scratch.get(), nullptr, base);
        lp::cpu::sorted_search<Bounds::Upper>(a.data(), na, b.data(), nb, ref.data());
      }
      for (auto& v : ref) v += base;
      auto got = oa.download();
      got.resize(na);
      expect_equal(ref, got, std::string("auto ") + (bounds == Bounds::Lower ? "lower" : "upper") + " (" + plan + ", base " + std::to_string(base) + ")");
    }
  }
}

// Sorted keys of type T without a sort: n keys over [lo, hi], each `copies` times, the k-th distinct
// one at lo + (hi - lo) (k + u) / keys for a uniform u in [0, 1) (ascending whatever u draws).
template <class T>
static std::vector<T> spread_keys(std::int64_t n, double lo, double hi, int copies, std::mt19937_64& rng) {
  std::vector<T> v(static_cast<std::size_t>(n));
  const double keys = double((n + copies - 1) / copies);
  std::uniform_real_distribution<double> u(0, 1);
  for (std::int64_t i = 0; i < n; i += copies) {
    const T x = T(std::floor(lo + (hi - lo) * (double(i / copies) + u(rng)) / keys));
    for (int c = 0; c < copies && i + c < n; ++c) v[static_cast<std::size_t>(i + c)] = x;
  }
  return v;
}

// auto on columns large enough to look: both bounds against the CPU, and the plan the device's
// profile chose (read from its slot at the end of the scratch) equal to the table's answer on the
// host twin's profile of the same columns (the device's counts equal the twin's), and to `want`
// where the case names one.
template <class T>
static void check_auto_profiled(const std::vector<T>& a, const std::vector<T>& b, const char* want, const std::string& what) {
  using MP = ss::DefaultMergePathTuning<T>;
  using WIN = ss::DefaultWindowedShape<T>;
  where = what + " |A|=" + std::to_string(a.size()) + " |B|=" + std::to_string(b.size());
  const int na = int(a.size()), nb = int(b.size());
  const ar::Sizes z = ss::auto_sizes<WIN, T>(na, nb, true);
  using lp::profile::count_column_host;
  using lp::profile::finish;
  const ar::Plan host = ar::decide(z, finish(count_column_host(b.data(), nb), nb, 0), finish(count_column_host(a.data(), na), na, 0));
  DeviceBuffer<T> da, db;
  da.upload(a);
  db.upload(b);
  DeviceBuffer<u32> oa(na + 1);
  const std::size_t bytes = ss::auto_search_scratch_bytes<MP, WIN, T>(na, nb);
  DeviceBuffer<char> scratch(bytes);
  std::vector<u32> ref(na);
  for (Bounds bounds : {Bounds::Lower, Bounds::Upper}) {
    oa.poison();
    if (bounds == Bounds::Lower) {
      ss::auto_sorted_search<MP, WIN, Bounds::Lower>(da.get(), na, db.get(), nb, oa.get(), scratch.get(), bytes, nullptr);
      lp::cpu::sorted_search<Bounds::Lower>(a.data(), na, b.data(), nb, ref.data());
    } else {
      ss::auto_sorted_search<MP, WIN, Bounds::Upper>(da.get(), na, db.get(), nb, oa.get(), scratch.get(), bytes, nullptr);
      lp::cpu::sorted_search<Bounds::Upper>(a.data(), na, b.data(), nb, ref.data());
    }
    const cudaError_t e = cudaDeviceSynchronize();
    CHECK_MSG(e == cudaSuccess, where << ": " << cudaGetErrorString(e));
    auto got = oa.download();
    got.resize(na);
    expect_equal(ref, got, std::string("auto ") + (bounds == Bounds::Lower ? "lower" : "upper") + " (" + ar::name(host) + ")");
    ar::Plan ran = ar::by_size(z);
    if (ar::needs_look(z)) {
      lp::profile::Slot slot;
      LP_CUDA(cudaMemcpy(&slot, lp::profile::slot_in(scratch.get(), bytes), sizeof slot, cudaMemcpyDeviceToHost));
      ran = ar::Plan(slot.plan);
      CHECK_MSG(slot.columns == 2, where << ": the profile read " << slot.columns << " columns");
    }
    CHECK_MSG(ran == host, where << ": the device ran " << ar::name(ran) << ", the host twin says " << ar::name(host));
    if (want) CHECK_MSG(std::string(ar::name(ran)) == want, where << ": ran " << ar::name(ran) << ", the case is for " << want);
  }
  std::printf("  auto %s: %s%s\n", where.c_str(), ar::name(host), ar::needs_look(z) ? " (looked)" : "");
}

// The cases, for key type T at |A| + |B| = `keys` (the look's threshold: kLookMinBytes of keys): each
// layout where the profile moves the plan, and the sizes one key below.
template <class T>
static void auto_profiled_cases(std::int64_t keys, bool quick, std::mt19937_64& rng, const char* type) {
  const bool four = sizeof(T) == 4;
  auto split = [&](double r) { return std::int64_t(double(keys) / (1 + r)); };  // |A| at |B| / |A| = r
  auto run = [&](double r, double a_lo, double a_hi, double b_lo, double b_hi, int b_copies, const char* want, const std::string& what) {
    const std::int64_t na = split(r), nb = keys - na;
    check_auto_profiled(spread_keys<T>(na, a_lo, a_hi, 1, rng), spread_keys<T>(nb, b_lo, b_hi, b_copies, rng), want, std::string(type) + " " + what);
  };
  // The haystack's keys over [0, 2^25] (4-byte keys: 32 of its widths either side still fit int32)
  // or twice the keys (8-byte): nearly distinct at these sizes. Floating-point keys: the ranges' order-
  // preserving words do not spread as the values do (0 and the small values take half the words,
  // and float keys above 2^24 round to duplicates), so that the table's reading of a layout by ratio
  // is not the one its case names: there the device's plan is checked against the host twin's only.
  const double big = sizeof(T) == 4 ? double(std::int64_t(1) << 25) : 2.0 * double(keys);
  const bool exact = std::is_integral_v<T>;
  // A merge-path ratio (4-byte: 0.4; 8-byte: 0.5): disjoint needles take the windowed search.
  const double mr = four ? 0.4 : 0.5;
  run(mr, -2 * big, -big, 0, big, 1, "windowed", "needles below the haystack");
  run(mr, 2 * big, 3 * big, 0, big, 1, "windowed", "needles above the haystack");
  run(mr, 0, big, 0, big, 1, exact ? "mergepath" : nullptr, "interleaved at the merge path's ratio");
  if (quick) return;
  // Only integer keys spread their order-preserving words as they spread (the table's reading of a range).
  if (std::is_integral_v<T>) {
    run(64, big / 2, big / 2 + big / 64, 0, big, 1, "windowed", "needles inside 1/64 of the haystack's range at 64");
    run(1, -32 * big, 32 * big, 0, big, 1, "binary_search", "needles spread 64 times wider than the haystack");
    if (four) run(1, 0, 30 * big, 0, big, 1, "thrust", "needles spread 30 times wider than the haystack");
    run(four ? 0.7 : 1.5, 0, big, 0, big, 8, "mergepath", "a duplicate-heavy haystack near the windowed search's low");
    if (!four) run(12, 0, big, 0, big, 8, "thrust", "a duplicate-heavy haystack at 12");
  }
  run(1.0 / 64, 0, big, 0, big, 1, exact ? "mergepath" : nullptr, "interleaved at 1/64");
  run(64, 0, big, 0, big, 1, exact ? "binary_search" : nullptr, "interleaved at 64");
  // 4-byte keys: the merge path up to the windowed search's low (4); 8-byte: the windowed search from 1.
  run(1.2, 0, big, 0, big, 1, four ? "mergepath" : "windowed", "interleaved at 1.2");
  // One key under the look: the plan by sizes, whatever the layout.
  const std::int64_t na = split(mr), nb = keys - 1 - na;
  check_auto_profiled(spread_keys<T>(na, -2 * big, -big, 1, rng), spread_keys<T>(nb, 0, big, 1, rng), "mergepath",
                      std::string(type) + " needles below the haystack, one key under the look");
}

// The study's auto_* variants through its own points (generator, poisoned outputs, validation), in
// two orders: every type and key kind at tiny, middling and huge ratios, and around the look's size.
static void study_autos(bool quick) {
  auto study = lp::sortedsearch_study::make_study();
  std::vector<TestCase> cases;
  auto add = [&](std::int64_t a, std::int64_t b, const std::string& type, const std::string& keys, std::uint64_t seed) {
    harness::Params p = default_params(*study);
    p["a_size"] = a;
    p["b_size"] = b;
    p["type"] = type;
    p["keys"] = keys;
    cases.push_back({p, seed, type + " " + keys + " |A|=" + std::to_string(a) + " |B|=" + std::to_string(b)});
  };
  std::uint64_t seed = 100;
  // At the look's size (kLookMinBytes of keys) and one key below.
  const std::int64_t half4 = std::int64_t(ar::kLookMinBytes) / 8, eighth8 = std::int64_t(ar::kLookMinBytes) / 32;
  for (const std::string keys : {"distinct", "dups"}) {
    add(half4, half4, "int32", keys, ++seed);
    add(half4, half4 - 1, "int32", keys, ++seed);
    if (quick) continue;
    add(eighth8, 3 * eighth8, "double", keys, ++seed);
    add(eighth8 * 7, eighth8, "int64", keys, ++seed);
  }
  for (const std::string type : {"int32", "int64", "float", "double"})
    for (const std::string keys : {"distinct", "dups"})
      for (std::int64_t a : {std::int64_t(1), std::int64_t(3001), std::int64_t(200003)})
        for (double r : {1.0 / 64, 0.3, 1.0, 17.0, 64.0}) add(a, std::max<std::int64_t>(0, std::int64_t(r * double(a))), type, keys, ++seed);
  add(0, 5000, "int32", "distinct", ++seed);
  add(5000, 0, "int64", "dups", ++seed);
  if (quick) cases.resize(std::min<std::size_t>(cases.size(), 40));
  run_cases_in_two_orders(*study, cases, {"auto_lower", "auto_upper", "auto_complete"});
}

template <class T>
static void random_cases(std::uint64_t seed, int trials, size_t max_n, const char* name) {
  std::mt19937_64 rng(seed);
  for (int t = 0; t < trials; ++t) {
    size_t na = rng() % max_n, nb = rng() % max_n;
    if (t % 5 == 0) na /= 50;  // |A| << |B|: the windowed search's fallback path
    if (t % 5 == 1) nb /= 50;
    std::int64_t range = t % 2 ? std::int64_t(std::max(na, nb) / 4 + 1) : (std::int64_t(1) << 40);
    if (std::is_same_v<T, float> || std::is_same_v<T, std::int32_t>) range = std::min<std::int64_t>(range, 1 << 22);
    check_all(sorted_random<T>(rng, na, 0, range), sorted_random<T>(rng, nb, 0, range), rng, std::string(name) + " seed " + std::to_string(seed));
  }
}

// The kernels are generic over the comparator: arrays sorted in descending order under
// "greater" must give the same bounds as the CPU references under the same comparator.
struct Greater {
  template <class T>
  LP_HD bool operator()(const T& a, const T& b) const { return a > b; }
};

static void check_comparator(std::mt19937_64& rng) {
  for (int trial = 0; trial < 6; ++trial) {
    size_t na = rng() % 9000, nb = rng() % 9000;
    if (trial == 4) na /= 100;  // |A| << |B|: the windowed search's binary-search path
    auto a = sorted_random<int>(rng, na, 0, 3000), b = sorted_random<int>(rng, nb, 0, 3000);
    std::reverse(a.begin(), a.end());
    std::reverse(b.begin(), b.end());
    where = "comparator greater |A|=" + std::to_string(na) + " |B|=" + std::to_string(nb);
    DeviceBuffer<int> da, db;
    da.upload(a);
    db.upload(b);
    const int n_a = int(na), n_b = int(nb);
    DeviceBuffer<u32> oa(na + 1), ob(nb + 1);
    DeviceBuffer<unsigned long long> counts(2);
    DeviceBuffer<char> scratch(std::max(ss::mergepath_scratch_bytes<SmallMP>(na, nb), ss::windowed_scratch_bytes<SmallWin>(na)));
    std::vector<u32> ref_a(na), ref_b(nb);
    auto got = [](DeviceBuffer<u32>& buf, size_t n) { auto v = buf.download(); v.resize(n); return v; };

    oa.poison();
    ob.poison();
    ss::mergepath_sorted_search<SmallMP, Bounds::Lower, Output::IndexMatch, Output::IndexMatch>(da.get(), n_a, db.get(), n_b, oa.get(), ob.get(), scratch.get(), counts.get(), nullptr, nullptr, Greater{});
    auto want = lp::cpu::sorted_search_both<Bounds::Lower>(a.data(), n_a, b.data(), n_b, ref_a.data(), ref_b.data(), true, Greater{});
    expect_equal(ref_a, got(oa, na), "complete A");
    expect_equal(ref_b, got(ob, nb), "complete B");
    auto c = counts.download();
    CHECK_MSG(c[0] == (unsigned long long)want.first && c[1] == (unsigned long long)want.second, where << " counts");

    oa.poison();
    ss::windowed_sorted_search<SmallWin, Bounds::Upper>(da.get(), n_a, db.get(), n_b, oa.get(), scratch.get(), nullptr, ss::kBinarySwitchRatio<int>, Greater{});
    lp::cpu::binary_search<Bounds::Upper>(a.data(), n_a, b.data(), n_b, ref_a.data(), Greater{});
    expect_equal(ref_a, got(oa, na), "windowed upper");

    oa.poison();
    ob.poison();
    ss::windowed_complete_search<SmallWin>(da.get(), n_a, db.get(), n_b, oa.get(), ob.get(), scratch.get(), counts.get(), nullptr, Greater{});
    want = lp::cpu::sorted_search_both<Bounds::Lower>(a.data(), n_a, b.data(), n_b, ref_a.data(), ref_b.data(), true, Greater{});
    expect_equal(ref_a, got(oa, na), "windowed complete A");
    expect_equal(ref_b, got(ob, nb), "windowed complete B");
    c = counts.download();
    CHECK_MSG(c[0] == (unsigned long long)want.first && c[1] == (unsigned long long)want.second, where << " windowed complete counts");

    oa.poison();
    ss::binary_search<Bounds::Lower>(da.get(), n_a, db.get(), n_b, oa.get(), nullptr, Greater{});
    lp::cpu::binary_search<Bounds::Lower>(a.data(), n_a, b.data(), n_b, ref_a.data(), Greater{});
    expect_equal(ref_a, got(oa, na), "binary search lower");
  }
}

int main() {
  if (no_gpu("gpu_sortedsearch")) return kSkipped;
  const bool quick = quick_mode();
  const int scale = quick ? 4 : 1;
  for (std::uint64_t seed : {11ull, 12ull, 13ull}) {
    random_cases<std::int32_t>(seed, 40 / scale, 20000, "int32");
    random_cases<std::int64_t>(seed, 10 / scale, 20000, "int64");
    random_cases<float>(seed, 10 / scale, 20000, "float");
    random_cases<double>(seed, 10 / scale, 20000, "double");
  }
  // Larger sizes, not multiples of any tile.
  random_cases<std::int32_t>(5, quick ? 1 : 4, quick ? 300001 : 3000001, "int32 large");
  std::mt19937_64 rng(99);
  std::vector<int> none, few = {3, 3, 9}, equal(10007, 5), equal2(4099, 5), below(5000), above(5000);
  for (int i = 0; i < 5000; ++i) below[i] = i - 6000, above[i] = i + 6000;
  std::vector<int> mid = sorted_random<int>(rng, 7777, 0, 5999);
  check_all(none, none, rng, "empty/empty");
  check_all(none, mid, rng, "empty A");
  check_all(mid, none, rng, "empty B");
  check_all(few, mid, rng, "tiny A");
  check_all(equal, equal2, rng, "all equal");
  check_all(equal, mid, rng, "equal vs mid");
  check_all(below, mid, rng, "A below B");
  check_all(above, mid, rng, "A above B");
  check_all(mid, below, rng, "B below A");
  // Runs of equal keys longer than a tile, straddling tile boundaries.
  std::vector<int> runs_a, runs_b;
  for (int k = 0; k < 60000; ++k) runs_a.push_back(k / 2500), runs_b.push_back(k / 7001);
  check_all(runs_a, runs_b, rng, "long runs");
  // |A| + |B| exactly four of the default merge-path tiles of each key size, and one key over.
  for (const int nv : {ss::DefaultMergePathTuning<std::int32_t>::nv, ss::DefaultMergePathTuning<std::int64_t>::nv})
    for (const int extra : {0, 1}) {
      std::vector<int> ta = sorted_random<int>(rng, 3 * nv / 2, 0, 4 * nv), tb = sorted_random<int>(rng, 4 * nv - 3 * nv / 2 + extra, 0, 4 * nv);
      check_all(ta, tb, rng, "four merge-path tiles");
      std::vector<std::int64_t> ta8(ta.begin(), ta.end()), tb8(tb.begin(), tb.end());
      check_all(ta8, tb8, rng, "four merge-path tiles (int64)");
    }
  // A haystack packed into a narrow key range: the tiles of A that cover it see a window far
  // larger than shared memory (the windowed search's in-kernel fallback), the others see none.
  std::vector<int> spread = sorted_random<int>(rng, 60000, 0, 60000), packed = sorted_random<int>(rng, 60000, 30000, 30100);
  check_all(spread, packed, rng, "clustered haystack");
  std::vector<double> spread_d(spread.begin(), spread.end()), packed_d(packed.begin(), packed.end());
  check_all(spread_d, packed_d, rng, "clustered haystack (double)");
  // |B| / |A| across the sweep's ratios and one below, at and above every switch point: auto's
  // windowed threshold and binary-search switch for each key size, and each ratio at which the
  // windowed launcher changes its needles per thread.
  const double sw = ss::kBinarySwitchRatio<int>;
  std::vector<double> ratios = {1.0 / 64, 1.0 / 3, 1.0, 3.0, 12.0, 48.0, 64.0};
  auto around = [&](double r) {
    for (double f : {0.97, 1.0, 1.03}) ratios.push_back(r * f);
  };
  for (double r : {ar::kMergePathLow4, ar::kWindowedLow4, ar::kWindowedLow8, sw, ss::kBinarySwitchRatio<std::int64_t>, ar::kThrustMax4}) around(r);
  using Shape = ss::DefaultWindowedShape<int>;
  for (int vt : ss::kWindowedVts)
    if (vt != ss::kHalfTile) around(double(Shape::window) / (double(ss::windowed_tile_needles<Shape>(vt)) * ss::kSpanSlack));
  for (double r : ratios) {
    const size_t na = quick ? 3001 : 20011, nb = size_t(r * double(na));
    check_all(sorted_random<int>(rng, na, 0, 1 << 24), sorted_random<int>(rng, nb, 0, 1 << 24), rng, "ratio " + std::to_string(r));
    check_all(sorted_random<std::int64_t>(rng, na, 0, std::int64_t(nb / 8 + 1)), sorted_random<std::int64_t>(rng, nb, 0, std::int64_t(nb / 8 + 1)), rng,
              "ratio " + std::to_string(r) + " dups int64");
  }
  // Exactly at the switch: |B| = ratio * |A| stays on the windows, one more key goes to binary search.
  for (int extra : {0, 1}) {
    const size_t na = 1000, nb = size_t(sw * double(na)) + size_t(extra);
    check_all(sorted_random<int>(rng, na, 0, 1 << 20), sorted_random<int>(rng, nb, 0, 1 << 20), rng, "at switch +" + std::to_string(extra));
  }
  check_comparator(rng);
  LP_CUDA(cudaDeviceSynchronize());
  // auto where it looks, at the threshold of each key size.
  const std::int64_t look4 = std::int64_t(ar::kLookMinBytes) / 4, look8 = std::int64_t(ar::kLookMinBytes) / 8;
  if (small_mode()) return test_summary("gpu_sortedsearch");
  auto_profiled_cases<std::int32_t>(look4, quick, rng, "int32");
  auto_profiled_cases<float>(look4, quick, rng, "float");
  if (!quick) {
    auto_profiled_cases<std::int64_t>(look8, quick, rng, "int64");
    auto_profiled_cases<double>(look8, quick, rng, "double");
  }
  study_autos(quick);
  return test_summary("gpu_sortedsearch");
}
