// The multiscan's `auto` decision table (beyond the thesis): from m and what runs at this n, and
// where that does not settle it the input profile the device computes (kernels/common/input_profile.hpp),
// to the variant that runs. Plain C++, __host__ __device__: the profile pass evaluates it on the
// device, the CPU tests at every boundary. Thresholds from the H100 runs (results/h100/multiscan*)
// and the fitting sweep (configs/regret/fit/multiscan.json).
#pragma once
#include <cstdint>

#include "../common/hd.hpp"
#include "../common/input_profile.hpp"

namespace lp::multiscan::auto_rule {

enum class Plan : unsigned { RegisterScan, SinglePass, Partitioned, SortShared, SortGlobal, Relabel, Cub, PerthreadScan, ScanByKey, CheckedScanByKey, ReduceThenScan, Count };
inline const char* name(Plan p) {
  constexpr const char* kNames[] = {"register_scan", "single_pass", "partitioned", "sort_shared", "sort_global", "relabel", "cub_sort_scan_by_key", "perthread_scan", "cub_scan_by_key", "checked_scan_by_key", "reduce_then_scan"};
  return unsigned(p) < unsigned(Plan::Count) ? kNames[unsigned(p)] : "?";
}

// What the host knows: the sizes and which plans run here (their own support predicates).
// Laid out without padding: its bytes are part of the plan graph's key (plan_graph.cuh).
struct Sizes {
  std::int64_t n = 0;
  double sort_shared_bytes = 0;  // sort_shared's running bucket sets: its blocks x m x value bytes
  std::uint32_t m = 0;
  std::uint32_t value_bytes = 4;
  bool register_scan = false;
  bool single_pass = false;
  bool partitioned = false;
  bool sort_shared = false;
  bool sort_global = false;  // n within its int counts
  bool relabel = false;
  bool cub = false;          // CUB's sort + scan-by-key, and its scan-by-key alone (n within its int counts)
  bool perthread_scan = false;
  bool reduce_then_scan = false;
  bool unused[7] = {};  // spelled out: the key's bytes are all set
};
static_assert(sizeof(Sizes) == 8 + 8 + 4 + 4 + 16, "Sizes has no padding");

// register_scan only at m = 1 (4-byte values): its tiles fold m-vectors (H100, n = 2^26 int32: 0.44 ms against
// single_pass's 0.47 at m = 1, 0.62 against 0.46-0.55 at m = 4).
constexpr std::uint32_t kRegisterScanMaxM = 1;
// perthread_scan (a column of buckets a thread in shared memory, its work an input independent of
// m) up to its limit of 64 labels (32 with 8-byte values), fitted on the H200 probe
// (configs/multiscan/probe_perthread_scan.json, results/h200/multiscan/probe_perthread_scan.json.gz:
// n = 2^12..2^26, uniform, zipf, runs and sorted labels). With 4-byte values: from 3 labels at any
// n (n = 2^26 uniform m = 4..64: 0.44-0.66 ms against single_pass's 0.49-0.74; 2^23: 1.09-1.34x
// ahead; 2^12-2^20: 1.0-1.8x ahead of both others), from 2 labels over 2^20 inputs or more (2^26:
// 0.39 against register_scan's 0.44; below 2^20 register_scan is 1.03-1.08x ahead); register_scan
// keeps one label (1.08-1.17x ahead). With 8-byte values: below 2^21 inputs at every m it takes
// (2^20 int64: 0.032-0.037 ms against single_pass's 0.034-0.040 and register_scan's 0.035-0.072; one
// label 1.23x ahead of register_scan), single_pass from 2^21 at one label and from 9. In between,
// since the look-back reads eight windows of flags a round trip on perthread_scan's short tiles
// (look_back_windows, single_pass.cuh), refitted on the H200 probe
// (configs/multiscan/probe_int64_small_m.json, results/h200/multiscan/probes/int64_small_m.json:
// n = 2^20..2^26, m = 1..32, uniform int64): perthread_scan at 2 labels at every n (1.02x ahead of
// single_pass at 2^26, 1.06-1.19x at 2^22-2^25), at 3-4 below 2^25 (2^22-2^24: 1.01-1.09x ahead;
// 2^25: single_pass 1.04x ahead) and at 5-8 below 2^24 (2^22-2^23: level to 1.02x ahead; 2^24:
// single_pass 1.02x ahead).
constexpr std::uint32_t kPerthreadMinM4 = 3;
constexpr std::int64_t kPerthreadM2MinN = std::int64_t(1) << 20;
constexpr std::int64_t kSmallM8SinglePassN = std::int64_t(1) << 21;
constexpr std::int64_t kPerthreadM4MaxN8 = std::int64_t(1) << 25;  // 8-byte values, m = 3..4: perthread_scan below
constexpr std::int64_t kPerthreadM8MaxN8 = std::int64_t(1) << 24;  // 8-byte values, m = 5..8: perthread_scan below
// reduce_then_scan (perthread_scan's tiles in two passes over the inputs, no look-back) where the
// look-back's wait costs more than a second read, fitted on the H200 probe
// (configs/multiscan/probe_reduce_then_scan.json, results/h200/multiscan/probes/reduce_then_scan.json.gz:
// n = 2^16..2^26, m = 1..64, uniform, zipf, runs and sorted labels, int32 and int64 add). 4-byte
// values from 4 labels over 2^21 inputs or more: 0.75-0.95x the best of the others at m = 4..64
// from 2^22 (2^26 uniform: 0.405 ms at m = 4 against perthread_scan's 0.435, 0.415 at 8 against
// single_pass's 0.55, 0.446 at 16 against 0.584); at 2^20 0.88-0.92x at m = 8, 1.01-1.05x at 4 and
// 32; one and two labels 1.01-1.2x behind at every n. 8-byte values from 2 labels over 2^20 inputs
// or more: 0.72-0.95x up to 8 labels at 2^20-2^26, 0.89-0.95x at 9-16 below 2^25 (1.04x at 2^26),
// 1.19-1.42x at 32 from 2^22; one label stays with CUB's scan-by-key. Below 2^20 inputs 1.14-1.76x
// behind (two launches more, and tiles that the look-back does not keep waiting).
constexpr std::uint32_t kRtsMinM4 = 4, kRtsMinM8 = 2, kRtsMaxM8 = 16, kRtsWideM8 = 8;
constexpr std::int64_t kRtsMinN4 = std::int64_t(1) << 21, kRtsMinN8 = std::int64_t(1) << 20, kRtsWideMaxN8 = std::int64_t(1) << 25;
LP_HD bool reduce_then_scan_region(const Sizes& s) {
  if (!s.reduce_then_scan) return false;
  if (s.value_bytes == 8) return s.m >= kRtsMinM8 && s.n >= kRtsMinN8 && (s.m <= kRtsWideM8 || (s.m <= kRtsMaxM8 && s.n < kRtsWideMaxN8));
  return s.m >= kRtsMinM4 && s.n >= kRtsMinN4;
}
// Labels that arrive one to a warp (sorted, long runs, one label) where perthread_scan takes them:
// single_pass's warps then scan a bucket with one shuffle scan and no match.any (n = 2^26 sorted,
// m = 4..64: 0.41-0.44 ms against perthread_scan's 0.44-0.66, 1.07-1.5x), while perthread_scan's
// columns cost the same on any labels. Looked at from 2^25 inputs, where the look's 11-19 us are at
// most 5% of perthread_scan's time (at 2^22 a third of it).
constexpr std::int64_t kWarpUniformLookMinN = std::int64_t(1) << 25;
constexpr std::uint32_t kWarpUniformMinM = 4;
constexpr double kWarpUniformRuns = 1.25;
// Over few inputs register_scan's tiles win at small m too, where single_pass's look-back set-up is
// the whole time (regret fitting draw, n < 2^17, m = 2..8: 6.8-11.9 us against 14-21).
constexpr std::int64_t kRegisterSmallN = std::int64_t(1) << 17;
constexpr std::uint32_t kRegisterSmallMaxM = 8;
// Labels from a domain much larger than the inputs: partitioned's passes cost O(m) and the sort
// O(n) (n = 11 923 over m = 4 M: sort_global 52 us, partitioned 609; n = 106 over 2 M: 17 against
// 174); partitioned wins from about 4-16 inputs a label (n / m = 15: 102 us against 143).
constexpr double kPartitionedMinPerLabel = 4;
// single_pass up to 2048 on every distribution, partitioned above wherever it runs (its partitions'
// scan needs m' <= 4096): at m = 4096 partitioned 2.1 ms against single_pass's 2.9 and sort_shared's
// 2.2-2.9; at 2048 single_pass 1.5 against partitioned's 2.1.
constexpr std::uint32_t kPartitionedAboveM = 2048;
// ... and with 8-byte values up to this many labels: beyond, CUB's sort + scan-by-key, whose sort
// moves 4-byte indices where partitioned's passes move the 8-byte values with their labels. The
// regret draws' points from 2^17 labels with n >= 2^20 (results/h100/regret/fit/,
// results/h200/regret/fit/fifth_rules/): 769 K labels, 124 M int64 inputs in runs of 4, partitioned
// 3.25x CUB's time (21.0 ms against 6.5); 381 K, int64, 0.78x. With 4-byte values partitioned stays
// ahead beyond it (default sweep, H200, uniform int32, n = 2^26: 2^20 labels 4.1 ms against CUB's
// 7.3, 2^22 labels 6.4 against 7.3; 611 K labels in runs of 2, 0.82x), and from 810 K labels the
// draws' points hold at most 17 inputs a label: CUB's region below 16, and sorted labels (1.9 M with
// 16.6 a label), which the look sends to CUB.
constexpr std::uint32_t kPartitionedMaxM8 = 640 * 1024;
// Where partitioned does not run, sort_shared's per-block bucket sets up to 2^16, sort_global beyond.
constexpr std::uint32_t kSortSharedMaxM = 1u << 16;
// Below this many inputs the look costs more than it saves: inside auto's graph it adds 11-16 us on
// the H100 (regret fitting draw), where a multiscan of 2^22 inputs takes 60 us and more.
constexpr std::int64_t kLookMinN = std::int64_t(1) << 22;
// The look from m = 256, where single_pass's m-vectors cost most and the sorts pay for every label
// bit; labels in runs or with few present take relabel (its count then picks the tier, or falls back
// to the plan by sizes beyond 1024 present).
// (From 256 up to kPartitionedAboveM the relabel lost to single_pass on sorted labels in the fitting
// draw, 2.2-2.7x: single_pass reads labels in runs at full speed, so relabel starts above it.)
constexpr std::uint32_t kLookFromM = kPartitionedAboveM + 1;
constexpr double kRelabelDistinct = 1024, kRunsWarpRuns = 2.0;
// Where partitioned does not run: labels that do not repeat keep single_pass up to 4096 (uniform
// m = 4096: 3.04 ms against sort_shared's 3.2), labels that repeat (a hot label) take sort_shared up
// to 2^18 (zipf 2^18: 6.3 ms against sort_global's 7.1).
constexpr std::uint32_t kSinglePassSpreadMaxM = 4096, kSortSharedHotMaxM = 1u << 18;
constexpr double kHotShare = 0.01;

// Many labels that repeat little (under kCubMaxPerLabel inputs a label, m from 2^17): CUB's sort of
// the labels with their indices and its scan-by-key through the permutation move 4-byte indices where
// sort_global sorts index-value pairs, and partitioned pays O(m) a pass (judged regret draw:
// n = 118 M over 8.7 M labels, 7.5 ms against sort_global's 13.2; n = 13 M over 1.3 M, 1.5 against
// partitioned's 2.7; fitting draw, n = 1.8 M over 1.8 M: 0.17 against 0.19 and 0.43). At n / m = 32
// partitioned is ahead again (0.26 against 0.28), and below 2^18 inputs CUB's several launches lose
// a few microseconds to sort_global (n = 81 K: 66 us against 63).
constexpr std::uint32_t kCubMinM = 1u << 17;
constexpr double kCubMaxPerLabel = 16;
constexpr std::int64_t kCubMinN = std::int64_t(1) << 18;

// Over few inputs: CUB's sort of the labels with 4-byte indices stays in one tile up to about 4 600
// inputs, where sort_global's index-value pairs (8 bytes with 4-byte values, 16 with 8-byte ones)
// leave theirs from about 2 200 and 1 500 inputs (regret draws, m > 2048: int64 values, n = 1 512 to
// 3 062, 17.6-23.2 us against sort_global's 34-47; int32 values, n = 3 728 to 4 634, 20-25 us against
// 46-53, while sort_global's one tile wins to 2 168 inputs, 16 us against 18; from 5 163 inputs both
// take several passes and CUB is 1-8 us behind). With 8-byte values CUB is level or ahead from 3
// inputs up (18-20 us against 18-22).
constexpr std::int64_t kCubSmallMaxN = 4608;
constexpr std::int64_t kCubSmallMinN4 = 2560;  // with 4-byte values
// Over a few thousand to tens of thousands of inputs, sort_shared's tiles beat the sort passes while
// its blocks' bucket sets stay small (regret draws, sets x m x value bytes <= 2.4 MB: n = 6 194 over
// 201 K labels 33 us against sort_global's 51; 22 408 over 57 K, 29 against 41; 25 065 over 2 326, 27
// against partitioned's 52; 16 072 int64 over 16 072, 39 against 46; 41 759 over 37 K, 34 against 41;
// beyond, 3.8-5.9 MB, 52-59 us against 46-51; below 2 048 inputs sort_global's one tile wins).
constexpr std::int64_t kSortSharedSmallMinN = 4096, kSortSharedSmallMaxN = 65536;
constexpr double kSortSharedSmallBytes = 3.0e6;

LP_HD bool cub_region(const Sizes& s) {
  if (s.cub && s.m > kPartitionedAboveM && s.n <= kCubSmallMaxN && (s.value_bytes == 8 || s.n > kCubSmallMinN4)) return true;
  // 8-byte values beyond kPartitionedMaxM8 labels: partitioned's passes fall behind at any n per label.
  if (s.cub && s.value_bytes == 8 && s.m > kPartitionedMaxM8) return true;
  return s.cub && s.m >= kCubMinM && s.n >= kCubMinN && double(s.n) < kCubMaxPerLabel * double(s.m);
}

LP_HD bool sort_shared_small(const Sizes& s) {
  return s.sort_shared && s.m > kPartitionedAboveM && s.n >= kSortSharedSmallMinN && s.n <= kSortSharedSmallMaxN &&
         s.sort_shared_bytes <= kSortSharedSmallBytes;
}

LP_HD bool sparse_labels(const Sizes& s) {
  return s.m > kPartitionedAboveM && double(s.n) < kPartitionedMinPerLabel * double(s.m) && s.sort_global;
}

LP_HD bool perthread_region(const Sizes& s) {
  if (!s.perthread_scan) return false;
  if (s.value_bytes == 8)
    return s.n < kSmallM8SinglePassN || s.m == 2 || (s.m >= 3 && s.m <= 4 && s.n < kPerthreadM4MaxN8) ||
           (s.m >= 5 && s.m <= 8 && s.n < kPerthreadM8MaxN8);
  return s.m >= kPerthreadMinM4 || (s.m == 2 && s.n >= kPerthreadM2MinN);
}

// One label of 8-byte values: CUB's scan-by-key over the labels as they come (one run), from
// kScanByKeyMinN inputs (scan_by_key.cuh). H200 (configs/multiscan/probe_scan_by_key.json, int64
// add, both modes; results/h200/multiscan/probes/scan_by_key.json with the threshold at 2^21,
// scan_by_key_below.json with it at 2^12): 0.51-0.72x the time of the best of single_pass,
// perthread_scan and register_scan from 2^20 (2^26: 0.44 ms against 0.82), 0.71-0.85x below. Not
// below 2^20: affine maps (uint32x2) at 89 K and 189 K inputs took 1.08-1.09x register_scan's time
// there (results/h200/regret/recheck_one_label/, the judging draw's 8-byte points under 2^21; at
// 1.7-1.9 M 0.68-0.82x). With 4-byte values register_scan keeps one label (auto 0.96-1.07x of the
// best of ours; the library's call 1.10-3.9x behind up to 2^24, 0.99-1.05x at 2^25-2^26).
constexpr std::int64_t kScanByKeyMinN = std::int64_t(1) << 20;
LP_HD bool scan_by_key_region(const Sizes& s) { return s.cub && s.m == 1 && s.value_bytes == 8 && s.n >= kScanByKeyMinN; }

LP_HD Plan by_size(const Sizes& s) {
  if (scan_by_key_region(s)) return Plan::ScanByKey;
  if (reduce_then_scan_region(s)) return Plan::ReduceThenScan;
  if (perthread_region(s)) return Plan::PerthreadScan;
  // 8-byte values over many inputs: single_pass at one label where CUB's int counts do not reach
  // (n = 2^23 int64: 0.140 ms against register_scan's 0.196; 2^26: 0.91 against 1.37).
  if (s.value_bytes == 8 && s.m <= kRegisterScanMaxM && s.n >= kSmallM8SinglePassN && s.single_pass) return Plan::SinglePass;
  // Two labels of 4-byte values below kPerthreadM2MinN inputs (or wherever perthread_scan does not run).
  const bool two4 = s.m == 2 && s.value_bytes == 4;
  if (s.register_scan && (s.m <= kRegisterScanMaxM || two4 || (s.n < kRegisterSmallN && s.m <= kRegisterSmallMaxM))) return Plan::RegisterScan;
  if (cub_region(s)) return Plan::Cub;
  if (sort_shared_small(s)) return Plan::SortShared;
  if (sparse_labels(s)) return Plan::SortGlobal;
  if (s.m <= kPartitionedAboveM && s.single_pass) return Plan::SinglePass;
  if (s.m > kPartitionedAboveM && s.partitioned) return Plan::Partitioned;
  if (s.m <= kSortSharedMaxM && s.sort_shared) return Plan::SortShared;
  return Plan::SortGlobal;
}

LP_HD bool may_relabel(const Sizes& s) { return s.m >= kLookFromM && s.relabel && s.sort_global && !sparse_labels(s); }
// Labels from a domain much larger than the inputs that are nevertheless few (one label, a handful):
// relabel's count scans them in one small tier where the sorts pay for every label bit (H200,
// results/h200/regret/fit/fifth_rules/: one label over m = 25.6 M, 21.6 M inputs, relabel 0.26 ms
// against CUB's 0.66; 2.4 M inputs, 0.064 against 0.10, below the look).
LP_HD bool may_relabel_sparse(const Sizes& s) { return s.m >= kLookFromM && s.relabel && sparse_labels(s); }
LP_HD bool may_spread(const Sizes& s) { return s.m <= kSinglePassSpreadMaxM && by_size(s) == Plan::SortShared && s.single_pass; }
LP_HD bool may_hot(const Sizes& s) {
  return s.m >= kLookFromM && s.m <= kSortSharedHotMaxM && by_size(s) == Plan::SortGlobal && s.sort_shared;
}

LP_HD bool may_warp_uniform(const Sizes& s) {
  const Plan b = by_size(s);
  return s.n >= kWarpUniformLookMinN && s.m >= kWarpUniformMinM && s.single_pass && (b == Plan::PerthreadScan || b == Plan::ReduceThenScan);
}

// Labels the sample finds sorted: the checked scan-by-key (scan_by_key.cuh) proves the order in one
// pass (a 4-byte read an input) and scans them as they come with CUB's scan-by-key, one run a label.
// H200 (configs/multiscan/probe_checked_scan_by_key.json, results/h200/multiscan/probes/checked_scan_by_key.json,
// sorted labels, n = 2^22..2^26): beyond 2048 labels 0.22-0.40x the time of the best of ours (CUB's
// sort + scan-by-key, which sorted them again; n = 2^26 int32 at 2^17 labels 0.40 ms against 1.76);
// up to 2048, against single_pass and perthread_scan, 0.69-0.93x with 8-byte values from 2 labels,
// 0.76-0.87x with 4-byte values at 256, 0.35-0.60x at 1024-2048, 0.90-0.98x at 4-64 over 2^26
// inputs, level at 2 (1.01-1.12x). Beyond 2048 labels the look runs anyway; up to 2048 it is taken
// for this alone where it costs little beside the plan by sizes (the look with its switch adds 11-16
// us to auto's time on sorted labels beyond 2048, and 11-20 us on uniform labels where it finds
// nothing, results/h200/multiscan/probes/checked_scan_by_key_auto.json: from 2^25 inputs, from 2^24
// at 1024 labels and more, 1.01-1.07x the best there) and where it already runs (labels one to a warp).
// The sample also takes nearly sorted labels for sorted (one in 1024 swapped: 99.6-99.8% of
// neighbours ascending, and a distinct count of 700-830 where 16 K-1 M labels are present, which
// sent them to relabel's count and its fallback at 1.4-2.0x the best): the check finds the fall and
// its switch runs checked_fallback (the sort + scan-by-key beyond 2048 labels, 1.05-1.08x the best
// there, the plan by sizes up to it), and so sorted labels are looked for before the count.
constexpr std::int64_t kCheckedLookMinN = std::int64_t(1) << 25;
constexpr std::int64_t kCheckedWideLookMinN = std::int64_t(1) << 24;
constexpr std::uint32_t kCheckedWideM = 1024;
constexpr std::uint32_t kCheckedMinM4 = 256, kCheckedMinM8 = 2;
LP_HD bool may_checked_small(const Sizes& s) {
  if (!s.cub || s.m > kPartitionedAboveM) return false;
  const Plan b = by_size(s);
  if (b != Plan::SinglePass && b != Plan::PerthreadScan && b != Plan::ReduceThenScan) return false;
  const std::uint32_t min_m = s.value_bytes == 8 ? kCheckedMinM8 : kCheckedMinM4;
  const std::int64_t min_n = s.m >= kCheckedWideM ? kCheckedWideLookMinN : kCheckedLookMinN;
  return (s.m >= min_m && s.n >= min_n) || may_warp_uniform(s);
}
LP_HD bool needs_look(const Sizes& s) {
  return s.n >= kLookMinN && (may_relabel(s) || may_relabel_sparse(s) || may_spread(s) || may_hot(s) || may_warp_uniform(s) || may_checked_small(s));
}

// Where relabel would take labels that arrive sorted or in runs but many are present (beyond
// kRelabelDistinct its count falls back to partitioned's passes), CUB's sort + scan-by-key wins (for
// sorted labels the checked scan-by-key now, with the sort + scan-by-key behind its check): its
// radix passes over ordered labels move whole tiles to one bucket (judging draw, seed 7003, sorted
// labels, int64 values: n = 64 M over 2 574 labels 1.61 ms against partitioned's 2.28 and auto's
// relabel 2.44; 68 M over 27 K, 1.77 against 2.48; 6 M over 9.9 K, 0.21 against 0.27). Runs of
// unsorted labels only from kCubMinM labels (fitting draw, equal runs: 4.9 M over 1 M labels, 0.24
// against relabel's 0.30; 6.2 M over 194 K, 0.28 against 0.36 and partitioned's 0.26; 2.3 M over
// 47 K, relabel's 0.077 against 0.090).
constexpr double kSortedShare = 0.99;
LP_HD bool may_cub_ordered(const Sizes& s) { return may_relabel(s) && s.cub; }
LP_HD bool sorted_labels(const profile::Profile& p) { return p.sorted >= kSortedShare && p.sorted_global >= kSortedShare; }

LP_HD bool may_checked(const Sizes& s) { return may_cub_ordered(s) || may_checked_small(s); }
LP_HD Plan checked_fallback(const Sizes& s) {
  if (s.m > kPartitionedAboveM) return Plan::Cub;  // s.cub holds wherever may_checked does
  return may_warp_uniform(s) ? Plan::SinglePass : by_size(s);
}

LP_HD Plan decide(const Sizes& s, const profile::Profile& p) {
  if (!needs_look(s)) return by_size(s);
  if (may_checked(s) && sorted_labels(p)) return Plan::CheckedScanByKey;
  if (may_warp_uniform(s)) return p.warp_runs <= kWarpUniformRuns ? Plan::SinglePass : by_size(s);
  if ((may_relabel(s) || may_relabel_sparse(s)) && p.distinct <= kRelabelDistinct) return Plan::Relabel;
  if (may_cub_ordered(s) && p.warp_runs <= kRunsWarpRuns && s.m >= kCubMinM) return Plan::Cub;
  if (may_relabel(s) && p.warp_runs <= kRunsWarpRuns) return Plan::Relabel;
  const bool hot = p.heavy >= kHotShare;
  if (may_hot(s) && hot) return Plan::SortShared;
  if (may_spread(s) && !hot) return Plan::SinglePass;
  return by_size(s);
}

LP_HD bool possible(const Sizes& s, Plan q) {
  if (q == by_size(s)) return true;
  if (!needs_look(s)) return false;
  return (q == Plan::Relabel && (may_relabel(s) || may_relabel_sparse(s))) || (q == Plan::Cub && may_cub_ordered(s)) ||
         (q == Plan::CheckedScanByKey && may_checked(s)) || (q == Plan::SortShared && may_hot(s)) ||
         (q == Plan::SinglePass && (may_spread(s) || may_warp_uniform(s)));
}

struct Rule {
  Sizes sizes;
  LP_HD unsigned operator()(const profile::Profile& first, const profile::Profile&, double) const { return unsigned(decide(sizes, first)); }
};

}  // namespace lp::multiscan::auto_rule
