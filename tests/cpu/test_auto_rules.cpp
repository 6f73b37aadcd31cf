// The shared input profile's arithmetic (kernels/common/input_profile.hpp) on inputs with known
// answers, and the decision tables of the label-driven studies' `auto` (multireduce, multiscan,
// histogram, scatter, decimal) as pure host functions: at every region boundary, and answering only
// plans their graph holds (possible()) for many random sizes and profiles. Plain C++: runs in CI.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "check.hpp"
#include "kernels/common/input_profile.hpp"
#include "kernels/decimal/auto_rule.hpp"
#include "kernels/histogram/auto_rule.hpp"
#include "kernels/multireduce/auto_rule.hpp"
#include "kernels/multiscan/auto_rule.hpp"
#include "kernels/scatter/auto_rule.hpp"

namespace pf = lp::profile;

namespace {

pf::Profile profile_of(const std::vector<std::uint32_t>& v, std::uint64_t m) {
  return pf::finish(pf::count_column_host(v.data(), std::int64_t(v.size())), std::int64_t(v.size()), m);
}

bool near(double got, double want, double rel) { return std::fabs(got - want) <= rel * std::fabs(want); }

// The sample's geometry: whole columns up to 8 K elements, spread windows beyond, the last ending at n.
void test_geometry() {
  CHECK(pf::windows_for(0) == 0);
  CHECK(pf::windows_for(1) == 1);
  CHECK(pf::windows_for(33) == 2);
  CHECK(pf::windows_for(pf::kSample) == pf::kWindows);
  CHECK(pf::windows_for(pf::kSample + 1) == pf::kWindows);
  for (std::int64_t n : {std::int64_t(pf::kSample + 1), std::int64_t(1) << 20, (std::int64_t(1) << 27) + 5}) {
    CHECK(pf::window_start(n, 0, pf::kWindows) == 0);
    CHECK(pf::window_start(n, pf::kWindows - 1, pf::kWindows) == n - pf::kWindow);
    for (int w = 1; w < pf::kWindows; ++w) CHECK(pf::window_start(n, w, pf::kWindows) >= pf::window_start(n, w - 1, pf::kWindows) + pf::kWindow);
  }
}

// Inputs whose profile is known: every field within its stated tolerance.
void test_known_inputs() {
  const std::int64_t n = (std::int64_t(1) << 22) + 3;
  const std::uint32_t m = 1u << 20;
  {  // one label everywhere
    const pf::Profile p = profile_of(harness::labels(n, m, "degenerate", 1.0, 1), m);
    CHECK(p.heavy == 1.0 && p.warp_runs == 1.0 && p.sorted == 1.0);
    CHECK_MSG(near(p.distinct, 1.0, 0.01), "degenerate distinct " << p.distinct);
    CHECK(p.run_mean == double(n));
    CHECK(p.span == 1.0 / m);
  }
  {  // sorted uniform labels: neighbours ascend, the windows ascend, the range is m
    const pf::Profile p = profile_of(harness::labels(n, m, "sorted", 1.0, 2), m);
    CHECK(p.sorted == 1.0 && p.sorted_global == 1.0);
    CHECK_MSG(near(p.run_mean, double(n) / m, 0.25), "sorted run_mean " << p.run_mean);  // n/m = 4 equal labels a run
    CHECK(p.span > 0.99);
  }
  {  // uniform labels: half the neighbours ascend, no hot label, most of m present
    const pf::Profile p = profile_of(harness::labels(n, m, "uniform", 1.0, 3), m);
    CHECK_MSG(near(p.sorted, 0.5, 0.05), "uniform sorted " << p.sorted);
    CHECK(p.heavy < 0.002);
    CHECK_MSG(p.warp_runs > 31.0, "uniform warp_runs " << p.warp_runs);
    const double present = m * (1 - std::exp(-double(n) / m));  // expected distinct labels
    CHECK_MSG(p.distinct > present / 2 && p.distinct <= m, "uniform distinct " << p.distinct << " vs " << present);
  }
  for (std::uint32_t present : {10u, 500u, 1000u, 3000u}) {  // uniform over few labels: counted, not extrapolated past them
    const pf::Profile p = profile_of(harness::labels(n, present, "uniform", 1.0, 8), 1u << 20);
    CHECK_MSG(near(p.distinct, present, 0.15), present << " labels: distinct " << p.distinct);
  }
  for (double z : {1.0, 2.0, 3.0}) {  // zipf: the top label's share of the runs of equal labels, counted over the whole column
    const auto l = harness::labels(n, m, "zipf", z, 4);
    std::int64_t runs = 0, top_runs = 0;
    std::vector<std::uint32_t> count(m, 0);
    for (std::int64_t i = 0; i < n; ++i) ++count[l[std::size_t(i)]];
    const std::uint32_t top = std::uint32_t(std::max_element(count.begin(), count.end()) - count.begin());
    for (std::int64_t i = 0; i < n; ++i)
      if (i == 0 || l[std::size_t(i)] != l[std::size_t(i - 1)]) ++runs, top_runs += l[std::size_t(i)] == top;
    const pf::Profile p = profile_of(l, m);
    CHECK_MSG(std::fabs(p.heavy - double(top_runs) / runs) < 0.04, "zipf " << z << " heavy " << p.heavy << " vs " << double(top_runs) / runs);
  }
  for (double len : {2.0, 16.0, 256.0}) {  // runs of one label, mean length len
    const pf::Profile p = profile_of(harness::labels(n, m, "equal_runs", 1.0, 5, len), m);
    CHECK_MSG(near(p.run_mean, len, 0.2) || (len > 32 && p.run_mean > 32), "equal_runs " << len << ": run_mean " << p.run_mean);
    CHECK_MSG(p.warp_runs <= 32.0 / len + 1.5, "equal_runs " << len << ": warp_runs " << p.warp_runs);
  }
  {  // runs of consecutive labels: neighbours ascend inside a run, every pair differs
    const pf::Profile p = profile_of(harness::labels(n, m, "runs", 1.0, 6, 64), m);
    CHECK_MSG(p.sorted > 0.95, "runs sorted " << p.sorted);
    CHECK(p.run_mean < 1.01);
    CHECK_MSG(p.sorted_global < 0.7, "runs sorted_global " << p.sorted_global);
  }
  {  // nearly sorted (one in 1024 swapped): the sample takes it for sorted, which is why the
     // multiscan's checked scan-by-key proves the order before it scans
    namespace msr = lp::multiscan::auto_rule;
    const auto l = harness::labels(n, m, "nearly_sorted", 1.0, 9);
    const pf::Profile p = profile_of(l, m);
    CHECK_MSG(msr::sorted_labels(p), "nearly_sorted sorted " << p.sorted << " sorted_global " << p.sorted_global);
    CHECK(!std::is_sorted(l.begin(), l.end()));
  }
  {  // a permutation: every label once; the estimate is capped at n = m
    const std::int64_t k = std::int64_t(1) << 20;
    const pf::Profile p = profile_of(harness::labels(k, std::uint32_t(k), "permutation", 1.0, 7), std::uint64_t(k));
    CHECK(p.distinct == double(k));
    CHECK_MSG(p.heavy <= 8.0 / pf::kSample, "permutation heavy " << p.heavy);  // a sketch counter's collisions
  }
  {  // a column read whole: exact counts
    std::vector<std::uint32_t> v = {5, 5, 5, 1, 2, 2, 9};
    const pf::Profile p = profile_of(v, 10);
    CHECK(p.whole && p.sample == 7);
    CHECK_MSG(near(p.distinct, 4.0, 0.01), "distinct " << p.distinct);
    CHECK(p.heavy == 1.0 / 4);  // four runs (5 5 5, 1, 2 2, 9), none on a label twice
    CHECK(p.min == 1 && p.max == 9 && near(p.span, 0.9, 1e-12));
    CHECK(near(p.sorted, 5.0 / 6, 1e-12));  // 5>=5, 5>=5, 1<5, 2>=1, 2>=2, 9>=2
    CHECK(near(p.run_mean, 6.0 / 3, 1e-12));  // 3 of the 6 pairs equal
  }
}

// Signed and float keys count in their own order; the join's probe finds what the build side holds.
void test_keys_and_probe() {
  CHECK(pf::key_of(std::int32_t(-1)) < pf::key_of(std::int32_t(0)));
  CHECK(pf::key_of(std::int64_t(-(std::int64_t(1) << 40))) < pf::key_of(std::int64_t(3)));
  CHECK(pf::key_of(-2.5) < pf::key_of(-1.0) && pf::key_of(-1.0) < pf::key_of(0.0) && pf::key_of(0.0) < pf::key_of(1.5f * 1.0));
  CHECK(pf::key_of(-2.0f) < pf::key_of(3.0f));
  std::vector<std::int32_t> r(1000), s(500);
  for (int i = 0; i < 1000; ++i) r[i] = i * 2;
  for (int i = 0; i < 500; ++i) s[i] = i;  // the even half is in r
  pf::Counts cs = pf::count_column_host(s.data(), 500);
  pf::probe_column_host(cs, r.data(), 1000, s.data(), 500);
  const pf::Profile pr = pf::finish(pf::count_column_host(r.data(), 1000), 1000, 0);
  CHECK(cs.probe_sampled == 500 && cs.probe_hits == 250);
  CHECK(pf::match_estimate(cs, pr) == 0.5);
}

// A neutral profile (uniform, spread labels) and the extremes each table separates.
pf::Profile spread() {
  pf::Profile p;
  p.sorted = 0.5, p.run_mean = 1, p.warp_runs = 32, p.heavy = 1e-4, p.distinct = 1e6, p.sorted_global = 0.5;
  return p;
}

void test_multireduce_rule() {
  namespace ar = lp::multireduce::auto_rule;
  using P = ar::Plan;
  ar::Sizes s;
  s.n = ar::kLookMinN, s.m = 1u << 23, s.cluster = true, s.cluster_one_pass = false;
  CHECK(ar::needs_look(s));
  s.n = ar::kLookMinN - 1;
  CHECK(!ar::needs_look(s) && ar::by_size(s) == P::GlobalAggregated);
  s.n = ar::kLookMinN;
  s.shared = true, s.m = 1024;
  CHECK(!ar::needs_look(s) && ar::by_size(s) == P::Shared);
  // Shared sets from kSharedMinPerBucket inputs a bucket; a look from kSharedLookMinM buckets, where
  // ordered or one-label inputs take the aggregated atomics.
  s.m = std::uint32_t(double(s.n) / ar::kSharedMinPerBucket);
  CHECK(ar::by_size(s) == P::Shared && ar::needs_look(s));
  CHECK(ar::decide(s, spread()) == P::Shared);
  {
    pf::Profile q = spread();
    q.sorted = 1;
    CHECK(ar::decide(s, q) == P::GlobalAggregated);
    q = spread(), q.heavy = 1;
    CHECK(ar::decide(s, q) == P::GlobalAggregated);
    // A hot label where the update is a compare-and-swap loop: 64-bit integers to the cluster, floats
    // from kHotCasFloatShare to the partition pass; native atomics keep shared memory.
    q = spread(), q.heavy = ar::kHotShare;
    CHECK(ar::decide(s, q) == P::Shared);
    s.native_shared_atomic = false, s.integral = true, s.value_bytes = 8;
    CHECK(ar::decide(s, q) == P::Cluster && ar::possible(s, P::Cluster));
    s.cluster = false;
    CHECK(ar::decide(s, q) == P::Shared && !ar::possible(s, P::Cluster));
    s.cluster = true, s.integral = false, s.value_bytes = 4;
    CHECK(ar::decide(s, q) == P::Shared);
    q.heavy = ar::kHotCasFloatShare;
    CHECK(ar::decide(s, q) == P::Partitioned && ar::possible(s, P::Partitioned));
    s.int_counts = false;
    CHECK(ar::decide(s, q) == P::Shared);
    s.int_counts = true;
    q.heavy = ar::kHotShare / 2, s.integral = true, s.value_bytes = 8;
    CHECK(ar::decide(s, q) == P::Shared);
    s.native_shared_atomic = true, s.integral = true, s.value_bytes = 4;
  }
  s.m += 1;
  CHECK(ar::by_size(s) == P::GlobalAggregated);
  s.m = ar::kSharedLookMinM - 1;
  CHECK(ar::by_size(s) == P::Shared && !ar::needs_look(s));
  s.n = ar::kLookMinN - 1, s.m = 1000;
  CHECK(ar::by_size(s) == P::Shared && !ar::needs_look(s));
  s.n = 15999;
  CHECK(ar::by_size(s) == P::GlobalAggregated);
  s.n = ar::kLookMinN, s.m = 1u << 23;
  s.shared = false;
  // int64 sums over 2..16 buckets: perbank, at the edges and not beyond.
  ar::Sizes pb = s;
  pb.value_bytes = 8, pb.perbank = true, pb.shared = true;
  for (std::uint32_t m : {1u, 2u, 16u, 17u}) {
    pb.m = m;
    CHECK((ar::by_size(pb) == P::PerBank) == (m >= ar::kPerBankMinM && m <= ar::kPerBankMaxM));
  }
  // float32 sums (a compare-and-swap loop in shared memory) from 2 buckets wherever perbank runs,
  // beyond 16 buckets from 16 inputs a bucket; no look; not float64, not int32 (a native shared
  // atomic), not float32 min.
  ar::Sizes fb = pb;
  fb.integral = false, fb.value_bytes = 4, fb.native_shared_atomic = false;
  for (std::uint32_t m : {1u, 2u, 16u, 17u, 255u, 256u, 1536u}) {
    fb.m = m;
    CHECK((ar::by_size(fb) == P::PerBank) == (m >= ar::kPerBankMinM));
    CHECK(!ar::needs_look(fb));
    fb.n = std::int64_t(ar::kSharedMinPerBucket * m) - 1;
    CHECK((ar::by_size(fb) == P::PerBank) == (m >= ar::kPerBankMinM && m <= ar::kPerBankMaxM));
    fb.n = pb.n;
  }
  fb.m = 1536, fb.perbank = false;
  CHECK(ar::by_size(fb) == P::Shared);  // its sets do not fit
  fb.perbank = true;
  fb.m = 8;
  fb.value_bytes = 8;
  CHECK(ar::by_size(fb) == P::Shared);
  fb.value_bytes = 4, fb.add = false;
  CHECK(ar::by_size(fb) == P::Shared);
  fb.add = true, fb.integral = true, fb.native_shared_atomic = true;
  CHECK(ar::by_size(fb) == P::Shared);
  pf::Profile p = spread();
  CHECK(ar::decide(s, p) == P::Partitioned);  // 2^23 int32 buckets: beyond half the (50 MB) L2
  s.m = 1u << 20;
  CHECK(ar::decide(s, p) == P::GlobalAggregated);  // within it
  p.heavy = ar::kHotShare;
  CHECK(ar::decide(s, p) == P::Partitioned);
  p.heavy = ar::kHotShare * 0.99;
  CHECK(ar::decide(s, p) == P::GlobalAggregated);
  p = spread(), p.sorted = ar::kOrderedSorted, s.m = 1u << 23;
  CHECK(ar::decide(s, p) == P::GlobalAggregated);
  p.sorted = ar::kOrderedSorted - 0.01;
  CHECK(ar::decide(s, p) == P::GlobalAggregated);  // mostly ascending, no hot label
  p.sorted = ar::kAscendingSorted;
  CHECK(ar::decide(s, p) == P::GlobalAggregated);
  p.heavy = ar::kHotShare;
  CHECK(ar::decide(s, p) == P::Partitioned);  // a hot label first
  p.heavy = spread().heavy, p.sorted = ar::kAscendingSorted - 0.01;
  CHECK(ar::decide(s, p) == P::Partitioned);
  p = spread(), p.warp_runs = ar::kOrderedWarpRuns;
  CHECK(ar::decide(s, p) == P::GlobalAggregated);
  // One label everywhere: the cluster while one pass of it holds the buckets.
  p = spread(), p.heavy = 1, s.m = ar::kClusterOneLabelMaxM, s.cluster_one_pass = true;
  CHECK(ar::decide(s, p) == P::Cluster);
  s.m = ar::kClusterOneLabelMaxM + 1;
  CHECK(ar::decide(s, p) != P::Cluster);
  // Non-commutative operators never look.
  ar::Sizes nc = s;
  nc.commutative = false, nc.warp_ordered = true, nc.m = 4096;
  CHECK(!ar::needs_look(nc) && ar::by_size(nc) == P::WarpOrdered);
  nc.m = 4097;
  CHECK(ar::by_size(nc) == P::Sort);  // sort_shared_transposed does not run (no partial-set bytes)
  // sort_shared_transposed from two tiles while its partial sets stay within kSortSharedMaxBytes or
  // the inputs' bytes.
  nc.n = ar::kSortSharedMinN, nc.value_bytes = 8, nc.sort_shared_bytes = ar::kSortSharedMaxBytes;
  CHECK(!ar::needs_look(nc) && ar::by_size(nc) == P::SortShared);
  nc.n = ar::kSortSharedMinN - 1;
  CHECK(ar::by_size(nc) == P::Sort);
  nc.n = std::int64_t(1) << 20, nc.sort_shared_bytes = ar::kSortSharedMaxBytes + 1;  // over 12 MiB of inputs
  CHECK(ar::by_size(nc) == P::Sort);
  nc.n = std::int64_t(ar::kSortSharedMaxBytes / 12) + 1;  // the sets within the inputs' bytes
  CHECK(ar::by_size(nc) == P::SortShared);
  nc.m = 4096;
  CHECK(ar::by_size(nc) == P::WarpOrdered);
  ar::Sizes cm = nc;
  cm.commutative = true, cm.m = 1u << 20;
  CHECK(ar::by_size(cm) != P::SortShared);  // commutative operators have their own plans
  CHECK(std::string(ar::name(P::SortShared)) == "sort_shared_transposed");
}

void test_multiscan_rule() {
  namespace ar = lp::multiscan::auto_rule;
  using P = ar::Plan;
  ar::Sizes s;
  s.n = ar::kLookMinN, s.register_scan = s.single_pass = s.sort_shared = s.sort_global = s.relabel = true;
  s.m = 1;
  CHECK(ar::by_size(s) == P::RegisterScan && !ar::needs_look(s));
  s.m = ar::kPartitionedAboveM;
  CHECK(ar::by_size(s) == P::SinglePass);
  s.m = ar::kPartitionedAboveM + 1, s.partitioned = true;
  CHECK(ar::by_size(s) == P::Partitioned);
  s.partitioned = false;
  CHECK(ar::by_size(s) == P::SortShared);
  s.m = ar::kSortSharedMaxM + 1;
  CHECK(ar::by_size(s) == P::SortGlobal);
  // Relabel from m = 256 where few labels are present or they come in runs.
  s.m = ar::kLookFromM;
  CHECK(ar::needs_look(s));
  pf::Profile p = spread();
  p.distinct = ar::kRelabelDistinct;
  CHECK(ar::decide(s, p) == P::Relabel);
  p.distinct = ar::kRelabelDistinct + 1;
  CHECK(ar::decide(s, p) == P::SinglePass);
  p.warp_runs = ar::kRunsWarpRuns;
  CHECK(ar::decide(s, p) == P::Relabel);
  // Sorted labels: the checked scan-by-key where CUB runs, before the count (nearly sorted labels
  // fool the distinct estimate), with CUB's sort + scan-by-key behind its check; runs of labels
  // CUB's sort + scan-by-key only from kCubMinM.
  s.cub = true;
  CHECK(ar::decide(s, p) == P::Relabel);
  p.sorted = p.sorted_global = ar::kSortedShare;
  CHECK(ar::decide(s, p) == P::CheckedScanByKey && ar::possible(s, P::CheckedScanByKey) && ar::checked_fallback(s) == P::Cub);
  p.sorted_global = ar::kSortedShare - 0.01;
  CHECK(ar::decide(s, p) == P::Relabel);
  p.distinct = ar::kRelabelDistinct;
  p.sorted_global = ar::kSortedShare;
  CHECK(ar::decide(s, p) == P::CheckedScanByKey);
  p.sorted = ar::kSortedShare - 0.01;
  CHECK(ar::decide(s, p) == P::Relabel);
  p.sorted = ar::kSortedShare;
  p = spread(), p.warp_runs = ar::kRunsWarpRuns, p.distinct = ar::kRelabelDistinct + 1;
  s.m = ar::kCubMinM;
  CHECK(ar::decide(s, p) == P::Cub);
  s.m = ar::kCubMinM - 1;
  CHECK(ar::decide(s, p) == P::Relabel);
  s.cub = false;
  p.sorted = p.sorted_global = 1.0;
  CHECK(ar::decide(s, p) == P::Relabel && !ar::possible(s, P::Cub) && !ar::possible(s, P::CheckedScanByKey));
  s.m = ar::kLookFromM;
  p = spread();
  s.m = ar::kLookFromM - 1;
  CHECK(!ar::needs_look(s));
  // Hot labels past 2^16 (no partitioned): sort_shared up to 2^18.
  s.m = ar::kSortSharedHotMaxM;
  p = spread(), p.heavy = ar::kHotShare;
  CHECK(ar::decide(s, p) == P::SortShared);
  p.heavy = ar::kHotShare / 2;
  CHECK(ar::decide(s, p) == P::SortGlobal);
  s.m = ar::kSortSharedHotMaxM + 1, p.heavy = 1e-1;
  CHECK(ar::decide(s, p) == P::SortGlobal);
  s.n = ar::kLookMinN - 1, s.m = 1u << 20;
  CHECK(!ar::needs_look(s));
  // A label domain beyond kPartitionedMinPerLabel labels an input: the sort, no look.
  s.partitioned = true, s.n = ar::kLookMinN, s.m = std::uint32_t(double(s.n) / ar::kPartitionedMinPerLabel);
  CHECK(ar::by_size(s) == P::Partitioned);
  s.m += 1;
  CHECK(ar::by_size(s) == P::SortGlobal && ar::needs_look(s));  // the look for few labels only (may_relabel_sparse)
  s.relabel = false;
  CHECK(!ar::needs_look(s));
  s.relabel = true;
  s.n = 100, s.m = ar::kPartitionedAboveM + 1;
  CHECK(ar::by_size(s) == P::SortGlobal);
  s.m = ar::kPartitionedAboveM;
  CHECK(ar::by_size(s) == P::SinglePass);
  // Few inputs: register_scan up to m = 8.
  s.n = ar::kRegisterSmallN - 1, s.m = ar::kRegisterSmallMaxM;
  CHECK(ar::by_size(s) == P::RegisterScan);
  s.m += 1;
  CHECK(ar::by_size(s) == P::SinglePass);
  s.n = ar::kRegisterSmallN, s.m = ar::kRegisterSmallMaxM;
  CHECK(ar::by_size(s) == P::SinglePass);
  // perthread_scan: 4-byte values from 3 labels at any n and from 2 over kPerthreadM2MinN inputs
  // (register_scan below, and at one label); 8-byte values below kSmallM8SinglePassN inputs, and from
  // there at 2 labels, at 3-4 below kPerthreadM4MaxN8 and at 5-8 below kPerthreadM8MaxN8, single_pass
  // elsewhere (one label: CUB's scan-by-key); from kWarpUniformLookMinN inputs and 4 labels the look sends labels
  // one to a warp to single_pass.
  {
    ar::Sizes q;
    q.register_scan = q.single_pass = q.partitioned = q.sort_shared = q.sort_global = q.relabel = q.cub = q.perthread_scan = true;
    q.n = 4096, q.m = 1;
    CHECK(ar::by_size(q) == P::RegisterScan);
    q.m = 2;
    CHECK(ar::by_size(q) == P::RegisterScan);
    q.n = ar::kPerthreadM2MinN - 1;
    CHECK(ar::by_size(q) == P::RegisterScan);
    q.n = ar::kPerthreadM2MinN;
    CHECK(ar::by_size(q) == P::PerthreadScan);
    q.n = 4096, q.m = ar::kPerthreadMinM4;
    CHECK(ar::by_size(q) == P::PerthreadScan && !ar::needs_look(q));
    q.m = 64, q.n = std::int64_t(1) << 30;
    CHECK(ar::by_size(q) == P::PerthreadScan && ar::needs_look(q));
    q.perthread_scan = false;  // beyond its limit (65 labels) or a tuning it does not take
    CHECK(ar::by_size(q) == P::SinglePass && !ar::needs_look(q));
    q.perthread_scan = true, q.m = 2, q.n = std::int64_t(1) << 30;
    CHECK(ar::by_size(q) == P::PerthreadScan && !ar::needs_look(q));  // the look from kWarpUniformMinM labels
    q.m = ar::kWarpUniformMinM, q.n = ar::kWarpUniformLookMinN - 1;
    CHECK(ar::by_size(q) == P::PerthreadScan && !ar::needs_look(q));
    q.n = ar::kWarpUniformLookMinN;
    CHECK(ar::needs_look(q) && ar::possible(q, P::SinglePass) && ar::possible(q, P::PerthreadScan));
    pf::Profile u = spread();
    u.warp_runs = ar::kWarpUniformRuns;
    CHECK(ar::decide(q, u) == P::SinglePass);
    u.warp_runs = ar::kWarpUniformRuns + 0.01;
    CHECK(ar::decide(q, u) == P::PerthreadScan);
    q.value_bytes = 8, q.m = 2, q.n = ar::kSmallM8SinglePassN - 1;
    CHECK(ar::by_size(q) == P::PerthreadScan);
    // One label of 8-byte values: CUB's scan-by-key from kScanByKeyMinN inputs (perthread_scan
    // below), single_pass where CUB's int counts do not reach.
    q.m = 1, q.n = ar::kScanByKeyMinN - 1;
    CHECK(ar::by_size(q) == P::PerthreadScan);
    q.n = ar::kScanByKeyMinN;
    CHECK(ar::by_size(q) == P::ScanByKey && !ar::needs_look(q) && ar::possible(q, P::ScanByKey));
    q.value_bytes = 4;
    CHECK(ar::by_size(q) == P::RegisterScan);
    q.value_bytes = 8, q.cub = false, q.n = ar::kSmallM8SinglePassN;
    CHECK(ar::by_size(q) == P::SinglePass && !ar::needs_look(q) && !ar::possible(q, P::ScanByKey));
    q.cub = true, q.m = 2;
    CHECK(ar::by_size(q) != P::ScanByKey);
    q.m = 32;
    CHECK(ar::by_size(q) == P::SinglePass);
    q.m = 9;
    CHECK(ar::by_size(q) == P::SinglePass);
    q.m = 2, q.n = ar::kCheckedLookMinN - 1;
    CHECK(ar::by_size(q) == P::PerthreadScan && !ar::needs_look(q));
    for (std::uint32_t m : {3u, 4u}) {
      q.m = m, q.n = ar::kPerthreadM4MaxN8 - 1;
      CHECK(ar::by_size(q) == P::PerthreadScan && !ar::needs_look(q));
      q.n = ar::kPerthreadM4MaxN8;
      CHECK(ar::by_size(q) == P::SinglePass);
    }
    for (std::uint32_t m : {5u, 8u}) {
      q.m = m, q.n = ar::kPerthreadM8MaxN8 - 1;
      CHECK(ar::by_size(q) == P::PerthreadScan);
      q.n = ar::kPerthreadM8MaxN8;
      CHECK(ar::by_size(q) == P::SinglePass);
    }
    q.perthread_scan = false, q.m = 2, q.n = ar::kSmallM8SinglePassN;
    CHECK(ar::by_size(q) == P::SinglePass);
    q.perthread_scan = true;
    q.single_pass = false, q.m = 1;
    CHECK(ar::by_size(q) == P::ScanByKey);
    q.cub = false;
    CHECK(ar::by_size(q) == P::RegisterScan);
  }
  // reduce_then_scan: 4-byte values from kRtsMinM4 labels over kRtsMinN4 inputs; 8-byte values from
  // kRtsMinM8 labels over kRtsMinN8 inputs, up to kRtsWideM8 labels at any n and up to kRtsMaxM8
  // below kRtsWideMaxN8; one label stays where it was (CUB's scan-by-key, register_scan); where
  // labels one to a warp are looked for, the look still sends them to single_pass.
  {
    ar::Sizes q;
    q.register_scan = q.single_pass = q.partitioned = q.sort_shared = q.sort_global = q.relabel = q.cub = q.perthread_scan = true;
    q.reduce_then_scan = true;
    q.m = ar::kRtsMinM4, q.n = ar::kRtsMinN4;
    CHECK(ar::by_size(q) == P::ReduceThenScan && !ar::needs_look(q));
    q.n = ar::kRtsMinN4 - 1;
    CHECK(ar::by_size(q) == P::PerthreadScan);
    q.n = ar::kRtsMinN4, q.m = ar::kRtsMinM4 - 1;
    CHECK(ar::by_size(q) == P::PerthreadScan);
    q.m = 64, q.n = std::int64_t(1) << 26;
    CHECK(ar::by_size(q) == P::ReduceThenScan && ar::possible(q, P::ReduceThenScan));
    q.reduce_then_scan = false;  // beyond its 64 labels
    CHECK(ar::by_size(q) == P::PerthreadScan);
    q.reduce_then_scan = true, q.m = 2;
    CHECK(ar::by_size(q) == P::PerthreadScan);
    q.m = 1;
    CHECK(ar::by_size(q) == P::RegisterScan);
    q.m = ar::kWarpUniformMinM, q.n = ar::kWarpUniformLookMinN;
    pf::Profile u = spread();
    u.warp_runs = ar::kWarpUniformRuns;
    CHECK(ar::needs_look(q) && ar::decide(q, u) == P::SinglePass && ar::possible(q, P::SinglePass));
    u.warp_runs = ar::kWarpUniformRuns + 0.01;
    CHECK(ar::decide(q, u) == P::ReduceThenScan);
    q.value_bytes = 8, q.m = ar::kRtsMinM8, q.n = ar::kRtsMinN8;
    CHECK(ar::by_size(q) == P::ReduceThenScan);
    q.n = ar::kRtsMinN8 - 1;
    CHECK(ar::by_size(q) == P::PerthreadScan);
    q.m = 1, q.n = std::int64_t(1) << 26;
    CHECK(ar::by_size(q) == P::ScanByKey);
    q.m = ar::kRtsWideM8;
    CHECK(ar::by_size(q) == P::ReduceThenScan);
    q.m = ar::kRtsMaxM8, q.n = ar::kRtsWideMaxN8 - 1;
    CHECK(ar::by_size(q) == P::ReduceThenScan);
    q.n = ar::kRtsWideMaxN8;
    CHECK(ar::by_size(q) == P::SinglePass);
    q.m = ar::kRtsMaxM8 + 1, q.n = ar::kRtsMinN8;
    CHECK(ar::by_size(q) != P::ReduceThenScan);
  }
  // Sorted labels up to 2048: the look for the checked scan-by-key from kCheckedLookMinN inputs
  // (from kCheckedWideLookMinN at kCheckedWideM labels and more), 8-byte values from kCheckedMinM8
  // labels, 4-byte ones from kCheckedMinM4 and where labels one to a warp are looked for; the plan by
  // sizes behind its check (single_pass where the look sends labels one to a warp there).
  {
    ar::Sizes q;
    q.register_scan = q.single_pass = q.partitioned = q.sort_shared = q.sort_global = q.relabel = q.cub = q.perthread_scan = true;
    pf::Profile sorted = spread();
    sorted.sorted = sorted.sorted_global = 1.0, sorted.warp_runs = 1.0;
    q.value_bytes = 8, q.m = ar::kCheckedMinM8, q.n = ar::kCheckedLookMinN;
    CHECK(ar::by_size(q) == P::PerthreadScan && ar::needs_look(q) && ar::decide(q, sorted) == P::CheckedScanByKey);
    CHECK(ar::decide(q, spread()) == P::PerthreadScan && ar::checked_fallback(q) == P::PerthreadScan);
    q.n = ar::kCheckedLookMinN - 1;
    CHECK(!ar::needs_look(q) && ar::decide(q, sorted) == P::PerthreadScan);
    q.m = ar::kCheckedWideM, q.n = ar::kCheckedWideLookMinN;
    CHECK(ar::by_size(q) == P::SinglePass && ar::decide(q, sorted) == P::CheckedScanByKey && ar::checked_fallback(q) == P::SinglePass);
    q.n = ar::kCheckedWideLookMinN - 1;
    CHECK(!ar::needs_look(q));
    q.m = ar::kPartitionedAboveM, q.n = std::int64_t(1) << 30;
    CHECK(ar::decide(q, sorted) == P::CheckedScanByKey && ar::possible(q, P::CheckedScanByKey));
    q.cub = false;
    CHECK(!ar::needs_look(q) && !ar::possible(q, P::CheckedScanByKey));
    q.cub = true, q.m = 1;
    CHECK(ar::by_size(q) == P::ScanByKey && !ar::needs_look(q));  // one label: no check needed
    q.value_bytes = 4, q.m = ar::kCheckedMinM4, q.n = ar::kCheckedLookMinN;
    q.perthread_scan = false;  // beyond its 64 labels
    CHECK(ar::by_size(q) == P::SinglePass && ar::decide(q, sorted) == P::CheckedScanByKey);
    CHECK(ar::decide(q, spread()) == P::SinglePass);
    q.m = ar::kCheckedMinM4 - 1;
    CHECK(!ar::needs_look(q));
    q.perthread_scan = true, q.m = ar::kWarpUniformMinM, q.n = ar::kWarpUniformLookMinN;  // the look that runs there anyway
    CHECK(ar::decide(q, sorted) == P::CheckedScanByKey && ar::checked_fallback(q) == P::SinglePass);
    sorted.sorted = ar::kSortedShare - 0.01;
    CHECK(ar::decide(q, sorted) == P::SinglePass);
    q.m = ar::kWarpUniformMinM - 1;
    CHECK(!ar::needs_look(q));
  }
  // Few inputs over many labels: CUB's sort up to kCubSmallMaxN inputs (4-byte values from
  // kCubSmallMinN4, below which sort_global's one tile stays); sort_shared from kSortSharedSmallMinN to kSortSharedSmallMaxN
  // inputs while its blocks' sets stay within kSortSharedSmallBytes.
  {
    ar::Sizes q;
    q.register_scan = q.single_pass = q.partitioned = q.sort_shared = q.sort_global = q.relabel = q.cub = true;
    q.n = ar::kCubSmallMaxN, q.m = ar::kPartitionedMaxM8, q.value_bytes = 8, q.sort_shared_bytes = 1e9;
    CHECK(ar::by_size(q) == P::Cub);
    q.value_bytes = 4;
    CHECK(ar::by_size(q) == P::Cub);
    q.n = ar::kCubSmallMinN4 + 1;
    CHECK(ar::by_size(q) == P::Cub);
    q.n = ar::kCubSmallMinN4;
    CHECK(ar::by_size(q) == P::SortGlobal);  // sort_global's one tile
    q.value_bytes = 8;
    CHECK(ar::by_size(q) == P::Cub);
    q.n = 1;
    CHECK(ar::by_size(q) == P::Cub);
    q.m = ar::kPartitionedAboveM;
    CHECK(ar::by_size(q) != P::Cub);
    q.m = ar::kPartitionedMaxM8, q.n = ar::kCubSmallMaxN + 1;
    CHECK(ar::by_size(q) == P::SortGlobal);
    q.value_bytes = 4;
    CHECK(ar::by_size(q) == P::SortGlobal);
    q.value_bytes = 8;
    q.value_bytes = 8, q.n = 100, q.m = ar::kPartitionedAboveM;
    CHECK(ar::by_size(q) == P::SinglePass);
    q.n = ar::kSortSharedSmallMinN, q.m = 1u << 17, q.value_bytes = 4, q.sort_shared_bytes = ar::kSortSharedSmallBytes;
    CHECK(ar::by_size(q) == P::Cub);  // CUB's one tile first (kCubSmallMaxN)
    q.n = ar::kCubSmallMaxN + 1;
    CHECK(ar::by_size(q) == P::SortShared && !ar::needs_look(q));
    q.n = ar::kSortSharedSmallMinN, q.cub = false;
    CHECK(ar::by_size(q) == P::SortShared && !ar::needs_look(q));
    q.sort_shared_bytes += 1;
    CHECK(ar::by_size(q) == P::SortGlobal);
    q.sort_shared_bytes = 0, q.n = ar::kSortSharedSmallMinN - 1;
    CHECK(ar::by_size(q) == P::SortGlobal);
    q.n = ar::kSortSharedSmallMaxN, q.m = 4096;
    CHECK(ar::by_size(q) == P::SortShared);
    q.n += 1;
    CHECK(ar::by_size(q) == P::Partitioned);
    q.n = ar::kSortSharedSmallMaxN, q.m = ar::kPartitionedAboveM;
    CHECK(ar::by_size(q) == P::SinglePass);
  }
  // CUB's sort + scan-by-key: m from 2^17, n from 2^18 and under 16 inputs a label; without it,
  // partitioned or sort_global as before.
  s.cub = true, s.partitioned = true, s.m = ar::kCubMinM, s.n = std::int64_t(ar::kCubMaxPerLabel * s.m) - 1;
  CHECK(ar::by_size(s) == P::Cub);
  s.n += 1;
  CHECK(ar::by_size(s) == P::Partitioned);
  s.n = ar::kCubMinN, s.m = ar::kPartitionedMaxM8;
  CHECK(ar::by_size(s) == P::Cub);
  s.n -= 1;
  CHECK(ar::by_size(s) == P::SortGlobal);
  s.n = 1 << 20, s.m = ar::kCubMinM - 1;
  CHECK(ar::by_size(s) == P::Partitioned);
  s.m = ar::kCubMinM, s.cub = false;
  CHECK(ar::by_size(s) == P::Partitioned);
  // 8-byte values beyond kPartitionedMaxM8 labels: CUB's sort at any inputs a label; partitioned
  // without it, and for 4-byte values.
  s.cub = true, s.m = ar::kPartitionedMaxM8, s.n = std::int64_t(64) * s.m, s.value_bytes = 8;
  CHECK(ar::by_size(s) == P::Partitioned);
  s.m += 1;
  CHECK(ar::by_size(s) == P::Cub);
  s.value_bytes = 4;
  CHECK(ar::by_size(s) == P::Partitioned);
  s.value_bytes = 8, s.cub = false;
  CHECK(ar::by_size(s) == P::Partitioned);
  s.value_bytes = 4;
  // Sparse labels over enough inputs: a look, and relabel where few labels are present.
  {
    ar::Sizes q;
    q.single_pass = q.partitioned = q.sort_shared = q.sort_global = q.relabel = q.cub = true;
    q.n = ar::kLookMinN, q.m = std::uint32_t(double(q.n) / ar::kPartitionedMinPerLabel) + 1, q.value_bytes = 4;
    CHECK(ar::sparse_labels(q) && ar::needs_look(q) && !ar::may_relabel(q) && ar::may_relabel_sparse(q));
    pf::Profile one = spread();
    one.distinct = 1, one.heavy = 1, one.warp_runs = 1;
    CHECK(ar::decide(q, one) == P::Relabel && ar::possible(q, P::Relabel));
    pf::Profile many = spread();
    many.distinct = ar::kRelabelDistinct + 1;
    CHECK(ar::decide(q, many) == ar::by_size(q));
    many.warp_runs = 1;  // runs of many labels: no relabel in the sparse region
    CHECK(ar::decide(q, many) == ar::by_size(q));
    q.n = ar::kLookMinN - 1;
    CHECK(!ar::needs_look(q) && ar::decide(q, one) == ar::by_size(q));
    q.n = ar::kLookMinN, q.relabel = false;
    CHECK(!ar::needs_look(q));
  }
}

void test_histogram_rule() {
  namespace ar = lp::histogram::auto_rule;
  using P = ar::Plan;
  ar::Sizes s;
  s.n = ar::kLookMinN, s.u8 = false, s.windows = true, s.cluster = true;
  CHECK(ar::needs_look(s));
  pf::Profile p = spread();
  CHECK(ar::decide(s, p) == P::Windows);
  p.heavy = 0.999;
  CHECK(ar::decide(s, p) == P::Cluster);
  s.n = ar::kLookMinN - 1;
  CHECK(!ar::needs_look(s) && ar::by_size(s) == P::Windows);
  s.u8 = true;
  CHECK(ar::by_size(s) == P::Block);
  // Only 16-bit counters fit a block: the cluster below one sample per kHalfBinsPerSample bins,
  // the block copy (merged over clusters of two) from there, at any size.
  s.u8 = false, s.block = true, s.block32 = false, s.cluster = true, s.bins = 65536;
  s.n = 65536 / ar::kHalfBinsPerSample - 1;
  CHECK(ar::by_size(s) == P::Cluster);
  for (std::int64_t n : {std::int64_t(65536 / ar::kHalfBinsPerSample), ar::kHalfBlockMinN - 1, ar::kHalfBlockMinN}) {
    s.n = n;
    CHECK(ar::by_size(s) == P::Block);
  }
  s.n = 1, s.cluster = false;
  CHECK(ar::by_size(s) == P::Block);
  s.cluster = true;
  s.block32 = true, s.n = 1, s.bins = ar::kClusterFromBins;
  CHECK(ar::by_size(s) == P::Block);
  // A 32-bit copy of more than kClusterFromBins bins: the cluster over few samples too.
  s.bins = ar::kClusterFromBins + 1;
  CHECK(ar::by_size(s) == P::Cluster);
  s.n = ar::kHalfBlockMinN;
  CHECK(ar::by_size(s) == P::Block);
  s.block = false;
  s.u8 = false, s.windows = false;
  CHECK(ar::by_size(s) == P::Cluster);
  s.cluster = false;
  CHECK(ar::by_size(s) == P::Cub);
}

void test_scatter_rule() {
  namespace ar = lp::scatter::auto_rule;
  using P = ar::Plan;
  ar::Sizes s;
  s.word_bytes = 4, s.l2_bytes = 50.0 * (1 << 20), s.privatized = true, s.m = 1000;
  // Few inputs, or inputs under a quarter of the buckets: plain stores, no look.
  s.n = ar::kFewInputs - 1;
  CHECK(ar::by_size(s) == P::Thrust && !ar::needs_look(s));
  s.n = ar::kFewInputs;
  CHECK(ar::by_size(s) == P::Privatized && !ar::needs_look(s));
  s.privatized = false;
  CHECK(ar::by_size(s) == P::Wide);
  s.m = 1u << 22;
  s.n = std::int64_t(ar::kSparse * s.m) - 1;
  CHECK(ar::by_size(s) == P::Wide);  // under a quarter of the buckets from kFewInputs: wide, no look
  s.gather = true;
  CHECK(ar::by_size(s) == P::Thrust);
  s.gather = false, s.m = 1u << 26, s.n = ar::kFewInputs - 1;
  CHECK(ar::by_size(s) == P::Thrust && !ar::needs_look(s));
  s.m = 1u << 22;
  s.n = std::int64_t(ar::kSparse * s.m) + 1;
  CHECK(ar::by_size(s) == P::Wide);
  // The look from kLookMinN inputs on.
  s.n = ar::kLookMinN - 1;
  CHECK(!ar::needs_look(s));
  s.n = ar::kLookMinN;
  CHECK(ar::needs_look(s));
  // Spread labels: the regimes of the buckets against the L2, the shared bids over many inputs a bucket.
  pf::Profile p = spread();
  s.n = 1 << 26;
  s.m = std::uint32_t(s.l2_bytes / 2 / 4);
  CHECK(ar::decide(s, p) == P::Bids);
  s.m += 1;
  CHECK(ar::decide(s, p) == P::Passes);
  s.m = std::uint32_t(2 * s.l2_bytes / 4) + 1;
  CHECK(ar::decide(s, p) == P::FullSort);
  s.privatized = true;
  s.m = std::uint32_t(double(s.n) / ar::kPrivatizedMinPerBucket);
  CHECK(ar::decide(s, p) == P::Privatized);
  s.m += 1;
  CHECK(ar::decide(s, p) == P::Bids);
  // Ordered, in runs or hot: wide, the shared bids for a hot bucket among few or very few buckets, one pass at m <= 2.
  s.m = 1u << 20, s.privatized = false;
  p = spread(), p.heavy = ar::kHotShare;
  CHECK(ar::decide(s, p) == P::Wide);
  p = spread(), p.sorted = ar::kOrderedSorted;
  CHECK(ar::decide(s, p) == P::Wide);
  p = spread(), p.warp_runs = ar::kOrderedWarpRuns;
  CHECK(ar::decide(s, p) == P::Wide);
  p.warp_runs = ar::kOrderedWarpRuns + 0.5;
  CHECK(ar::decide(s, p) == P::Bids);
  s.privatized = true, s.m = 4000;
  p = spread(), p.heavy = 1;
  CHECK(ar::decide(s, p) == P::Privatized);
  p = spread(), p.sorted = 1;
  CHECK(ar::decide(s, p) == P::Wide);  // sorted: wide's stores stay in order, unless very few buckets
  s.m = std::uint32_t(double(s.n) / (ar::kPrivatizedMinPerBucket * 1024.0));
  CHECK(ar::decide(s, p) == P::Privatized);
  s.m = 2;
  CHECK(ar::decide(s, p) == P::Privatized);  // two labels: a real radix pass, not worth it
  s.m = 1;
  CHECK(ar::decide(s, p) == P::FullSort);
  // Gather: no look; the passes where the table straddles the L2, thrust's otherwise and for few inputs.
  s.gather = true, s.m = 1 << 20;
  CHECK(!ar::needs_look(s) && ar::by_size(s) == P::Thrust);
  s.m = std::uint32_t(s.l2_bytes / 4);
  CHECK(ar::by_size(s) == P::Passes);
  s.n = std::int64_t(ar::kSparse * s.m) + 1;  // (the passes need m past 6 M words: kSparse decides before kFewInputs)
  CHECK(ar::by_size(s) == P::Passes);
  s.n = std::int64_t(ar::kSparse * s.m) - 1;
  CHECK(ar::by_size(s) == P::Thrust);
}

void test_decimal_rule() {
  namespace ar = lp::decimal::auto_rule;
  using P = ar::Plan;
  ar::Sizes s;
  s.n = ar::kLookMinN, s.kind = ar::Kind::Double, s.bucket_bytes = 8, s.shared = true, s.m = 1u << 16;
  CHECK(ar::needs_look(s));
  pf::Profile p = spread();
  CHECK(ar::decide(s, p) == P::Shared);
  p.heavy = ar::kHotShare;
  CHECK(ar::decide(s, p) == P::Sort);  // the set spans several label windows
  s.shared_one_window = true;
  CHECK(ar::decide(s, p) == P::Shared);  // a set a block holds whole: the folded atomics
  p.heavy = 1;
  CHECK(ar::decide(s, p) == P::Shared);  // ... whatever the hot id's share
  s.shared_one_window = false;
  // Doubles beyond shared memory: the global atomics by sizes, the sort over a hot id.
  {
    ar::Sizes d = s;
    d.shared = false, d.m = std::uint32_t(0.75 * d.l2_bytes / 8);  // the buckets within the L2
    pf::Profile q = spread();
    CHECK(ar::by_size(d) == P::Global && ar::decide(d, q) == P::Global);
    q.heavy = ar::kHotShare;
    CHECK(ar::decide(d, q) == P::Sort && ar::possible(d, P::Sort));
    d.int_counts = false;
    CHECK(ar::decide(d, q) == P::Global);
    // Beyond the L2: the sort from a row an id, the atomics over fewer rows or ordered ids.
    d.int_counts = true, d.m += 1, d.n = d.m;
    q = spread();
    CHECK(ar::by_size(d) == P::Sort && ar::decide(d, q) == P::Sort);
    d.n = std::int64_t(d.m) - 1;
    CHECK(ar::by_size(d) == P::Global);
    d.n = std::int64_t(d.m) * 4;
    q.warp_runs = ar::kOrderedWarpRuns;
    CHECK(ar::needs_look(d) && ar::decide(d, q) == P::Global && ar::possible(d, P::Global));
  }
  // Ordered ids: shared memory for sets a block holds many times, global atomics beyond.
  p = spread(), p.warp_runs = ar::kOrderedWarpRuns;
  s.m = std::uint32_t(ar::kOrderedSharedBytes / 8);
  CHECK(ar::decide(s, p) == P::Shared);
  s.m += 1;
  CHECK(ar::decide(s, p) == P::Global);
  // Few rows, or rows under a quarter of the products: global atomics, no look.
  s.n = ar::kFewRows - 1, s.m = 16;
  CHECK(!ar::needs_look(s) && ar::by_size(s) == P::Global);
  s.n = 1 << 20, s.m = std::uint32_t(4 * s.n + 4);
  CHECK(!ar::needs_look(s) && ar::by_size(s) == P::Global);
  // Few ids: the registers, then each thread's buckets in shared memory where they fit a block.
  {
    ar::Sizes f = s;
    f.n = ar::kLookMinN, f.perthread = true;
    for (ar::Kind k : {ar::Kind::Decimal128, ar::Kind::Decimal64, ar::Kind::Double}) {
      f.kind = k, f.bucket_bytes = k == ar::Kind::Double ? 8 : 16;
      f.m = ar::register_max_m(k);
      CHECK(ar::by_size(f) == P::Register);
      f.m += 1;
      CHECK(ar::by_size(f) == P::PerThread && ar::decide(f, spread()) == P::PerThread && ar::possible(f, P::PerThread));
      f.m = ar::perthread_max_m(k);
      CHECK(ar::by_size(f) == P::PerThread);
      f.m += 1;
      CHECK(ar::by_size(f) != P::PerThread);
      f.m = ar::perthread_max_m(k), f.perthread = false;
      CHECK(ar::by_size(f) != P::PerThread && !ar::possible(f, P::PerThread));
      f.perthread = true;
    }
  }
  // Small sets stay in shared memory whatever the ids.
  s.n = ar::kLookMinN, s.kind = ar::Kind::Decimal128, s.bucket_bytes = 16, s.m = std::uint32_t(ar::kSmallSetBytes / 16);
  CHECK(!ar::needs_look(s) && ar::by_size(s) == P::Shared);
  s.m += 1, s.cluster = true;
  CHECK(ar::needs_look(s));
  p = spread();
  CHECK(ar::decide(s, p) == P::Shared);
  p.heavy = ar::kHotShare;
  CHECK(ar::decide(s, p) == P::Cluster);  // a hot id beyond the small sets: the cluster
  s.cluster = false;
  CHECK(ar::decide(s, p) == P::Sort);
  s.int_counts = false;
  CHECK(ar::decide(s, p) == P::Global);
  s.int_counts = true;
  // No hot id: shared memory up to kSharedWideBytes, then the cluster wherever it holds the set,
  // then the aggregated global atomics.
  s.cluster = true, p = spread();
  s.m = std::uint32_t(ar::kSharedWideBytes / 16);
  CHECK(ar::decide(s, p) == P::Shared);
  s.m += 1;
  CHECK(ar::decide(s, p) == P::Cluster);
  s.m = 1u << 18;
  CHECK(ar::decide(s, p) == P::Cluster);
  s.cluster = false;
  CHECK(ar::decide(s, p) == P::Global);
  s.cluster = true, s.shared = false, s.m = 1024;
  CHECK(ar::decide(s, p) == P::Cluster);  // shared memory only where a block can hold the set
  s.shared = true;
  // By sizes: small sets in shared memory from kFewRows rows over few ids, from kSmallSetGlobalMaxN
  // rows over more; global atomics below kManyRows rows.
  s.cluster = true, s.n = ar::kSmallSetGlobalMaxN, s.m = std::uint32_t(ar::kSmallSetBytes / 16);
  CHECK(ar::by_size(s) == P::Shared);
  s.n = ar::kSmallSetGlobalMaxN - 1;
  CHECK(ar::by_size(s) == P::Global);
  s.n = ar::kFewRows, s.m = 1;
  CHECK(ar::by_size(s) == P::Register);  // up to register_max_m ids: the buckets in registers
  s.m = 2;
  CHECK(ar::by_size(s) == P::Global);  // 4096 rows over 2 ids: kSmallSetRowsPerId
  s.n = std::int64_t(ar::kSmallSetRowsPerId) * 2 + 1;
  CHECK(ar::by_size(s) == P::Shared);  // beyond the registers' ids, the per-thread sets where they fit
  s.perthread = true;
  CHECK(ar::by_size(s) == P::PerThread);
  s.perthread = false;
  for (const ar::Kind k : {ar::Kind::Decimal128, ar::Kind::Decimal64, ar::Kind::Double}) {
    ar::Sizes r = s;
    r.kind = k, r.bucket_bytes = k == ar::Kind::Double ? 8 : 16, r.n = ar::kLookMinN, r.m = ar::register_max_m(k);
    CHECK(!ar::needs_look(r) && ar::by_size(r) == P::Register && ar::possible(r, P::Register));
    r.m += 1;
    CHECK(ar::by_size(r) == P::Shared && !ar::possible(r, P::Register));
  }
  CHECK(ar::register_max_m(ar::Kind::Decimal128) == 1 && ar::register_max_m(ar::Kind::Decimal64) == 2 &&
        ar::register_max_m(ar::Kind::Double) == 2);
  CHECK(ar::perthread_max_m(ar::Kind::Decimal128) == 24 && ar::perthread_max_m(ar::Kind::Double) == 48);
  s.n = ar::kFewRows - 1, s.m = 1;
  CHECK(ar::by_size(s) == P::Global);
  s.n = ar::kManyRows - 1, s.m = 5000;
  CHECK(!ar::needs_look(s) && ar::by_size(s) == P::Global);
  s.n = ar::kManyRows;
  CHECK(!ar::needs_look(s) && ar::by_size(s) == P::Cluster);
  s.n = ar::kLookMinN - 1;
  CHECK(!ar::needs_look(s));
  // Below the look, sets from kGlobalBelowLookBytes take the aggregated global atomics; the look's
  // by-size plan keeps the cluster.
  s.m = std::uint32_t(ar::kGlobalBelowLookBytes / 16) - 1;
  CHECK(ar::by_size(s) == P::Cluster);
  s.m += 1;
  CHECK(ar::by_size(s) == P::Global);
  s.n = ar::kLookMinN;
  CHECK(ar::needs_look(s) && ar::by_size(s) == P::Cluster);
  s.n = ar::kLookMinN;
  s.kind = ar::Kind::Decimal64, s.shared_narrow = true, s.narrow_one_window = true, s.m = 26813;  // a block holds the 8-byte sums
  p = spread();
  CHECK(ar::needs_look(s) && ar::decide(s, p) == P::SharedNarrow);
  s.narrow_one_window = false, s.m = 65536;  // over several label windows: the cluster
  CHECK(ar::decide(s, p) == P::Cluster);
}

// decide() answers only plans the graph captured, wherever it looks, for random sizes and profiles.
template <class Sizes, class Draw>
void check_possible(const char* study, Draw draw) {
  harness::Rng r(42);
  for (int i = 0; i < 20000; ++i) {
    Sizes s = draw(r);
    pf::Profile p;
    p.sorted = r.unit(), p.run_mean = 1 + 100 * r.unit(), p.warp_runs = 1 + 31 * r.unit(), p.heavy = r.unit() < 0.3 ? r.unit() : 1e-4;
    p.distinct = 1 + 1e6 * r.unit();
    const auto plan = decide(s, p);
    CHECK_MSG(possible(s, plan), study << ": decide answered " << name(plan) << ", which the graph does not hold");
    CHECK_MSG(possible(s, by_size(s)), study << ": by_size is not possible");
  }
}

std::int64_t draw_n(harness::Rng& r) { return std::int64_t(std::exp2(27 * r.unit())); }
std::uint32_t draw_m(harness::Rng& r) { return std::uint32_t(std::exp2(26 * r.unit())); }
bool coin(harness::Rng& r) { return r.unit() < 0.5; }

void test_possible() {
  check_possible<lp::multireduce::auto_rule::Sizes>("multireduce", [](harness::Rng& r) {
    lp::multireduce::auto_rule::Sizes s;
    s.n = draw_n(r), s.m = draw_m(r), s.value_bytes = coin(r) ? 4 : 8, s.commutative = r.unit() < 0.8, s.integral = coin(r);
    s.shared = coin(r), s.perbank = coin(r), s.cluster = coin(r), s.cluster_one_pass = s.cluster && coin(r), s.warp_ordered = coin(r);
    s.int_counts = r.unit() < 0.9, s.native_shared_atomic = coin(r), s.sort_shared_bytes = coin(r) ? r.unit() * 1e8 : 0.0;
    return s;
  });
  check_possible<lp::multiscan::auto_rule::Sizes>("multiscan", [](harness::Rng& r) {
    lp::multiscan::auto_rule::Sizes s;
    s.n = draw_n(r), s.m = draw_m(r), s.register_scan = coin(r), s.single_pass = coin(r), s.partitioned = coin(r), s.sort_shared = coin(r);
    s.sort_global = coin(r), s.relabel = coin(r), s.cub = s.sort_global && coin(r), s.perthread_scan = coin(r);
    s.value_bytes = coin(r) ? 4 : 8, s.sort_shared_bytes = r.unit() * 6e6;
    return s;
  });
  check_possible<lp::histogram::auto_rule::Sizes>("histogram", [](harness::Rng& r) {
    lp::histogram::auto_rule::Sizes s;
    s.n = draw_n(r), s.bins = draw_m(r), s.u8 = coin(r), s.block = coin(r), s.block32 = s.block && coin(r), s.windows = coin(r);
    s.cluster = coin(r), s.cub = coin(r);
    return s;
  });
  check_possible<lp::scatter::auto_rule::Sizes>("scatter", [](harness::Rng& r) {
    lp::scatter::auto_rule::Sizes s;
    s.gather = coin(r), s.n = draw_n(r), s.m = draw_m(r), s.word_bytes = coin(r) ? 4 : 8, s.privatized = coin(r);
    return s;
  });
  check_possible<lp::decimal::auto_rule::Sizes>("decimal", [](harness::Rng& r) {
    namespace ar = lp::decimal::auto_rule;
    ar::Sizes s;
    s.kind = ar::Kind(r.below(3)), s.n = draw_n(r), s.m = draw_m(r), s.bucket_bytes = s.kind == ar::Kind::Double ? 8 : 16;
    s.shared = coin(r), s.shared_narrow = coin(r), s.cluster = coin(r), s.int_counts = r.unit() < 0.9;
    s.shared_one_window = s.shared && coin(r), s.narrow_one_window = s.shared_narrow && coin(r), s.perthread = coin(r);
    return s;
  });
}

}  // namespace

int main() {
  test_geometry();
  test_known_inputs();
  test_keys_and_probe();
  test_multireduce_rule();
  test_multiscan_rule();
  test_histogram_rule();
  test_scatter_rule();
  test_decimal_rule();
  test_possible();
  return test_summary("test_auto_rules");
}
