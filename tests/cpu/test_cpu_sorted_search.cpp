// CPU references of sorted search against the std::lower_bound / std::upper_bound oracle, on random
// and adversarial inputs; also the shared merge-path routine that the GPU kernels run.
#include <algorithm>
#include <random>
#include <vector>

#include "check.hpp"
#include "sorted_inputs.hpp"
#include "cpu_reference/sortedsearch/cpu_sorted_search.hpp"
#include "kernels/sortedsearch/gpu_cuts.hpp"

using lp::sortedsearch::Bounds;
using lp::sortedsearch::kMatchBit;
using u32 = std::uint32_t;

template <class T>
static bool occurs(const std::vector<T>& v, T x) { return std::binary_search(v.begin(), v.end(), x); }

// The cuts of A and B among `parts` GPUs: in order, the diagonals as even as possible,
// and each part's bounds into its slice of B, plus the slice's start, equal to the bounds into B.
template <Bounds B, class T>
static void check_cuts(const std::vector<T>& a, const std::vector<T>& b, int parts, const char* what) {
  const std::int64_t na = a.size(), nb = b.size(), n = na + nb;
  const auto cuts = lp::sortedsearch::merge_path_cuts<B>(a.data(), na, b.data(), nb, parts);
  CHECK_MSG(int(cuts.size()) == parts + 1 && cuts.front().a == 0 && cuts.front().b == 0 && cuts.back().a == na && cuts.back().b == nb,
            what << " parts=" << parts << ": the ends");
  for (int k = 0; k < parts; ++k) {
    const auto &lo = cuts[std::size_t(k)], &hi = cuts[std::size_t(k) + 1];
    const std::int64_t size = (hi.a + hi.b) - (lo.a + lo.b);
    CHECK_MSG(lo.a <= hi.a && lo.b <= hi.b && (size == n / parts || size == n / parts + 1), what << " parts=" << parts << " k=" << k);
    for (std::int64_t i = lo.a; i < hi.a; ++i) {
      const T* s = b.data() + lo.b;
      const std::int64_t local = B == Bounds::Lower ? std::lower_bound(s, b.data() + hi.b, a[i]) - s : std::upper_bound(s, b.data() + hi.b, a[i]) - s;
      const std::int64_t global = B == Bounds::Lower ? std::lower_bound(b.begin(), b.end(), a[i]) - b.begin()
                                                     : std::upper_bound(b.begin(), b.end(), a[i]) - b.begin();
      CHECK_MSG(lo.b + local == global, what << (B == Bounds::Lower ? " lower" : " upper") << " parts=" << parts << " i=" << i);
      if (lo.b + local != global) return;
    }
  }
}

// The aligned cuts: in order, ends as before, every inner cut at a multiple of `align` in A or left
// exact, the parts within the slack of even, and each part's bounds into its slice equal to the
// bounds into B.
template <Bounds B, class T>
static void check_aligned_cuts(const std::vector<T>& a, const std::vector<T>& b, int parts, std::int64_t align, const char* what) {
  const std::int64_t na = a.size(), nb = b.size(), n = na + nb, slack = std::max<std::int64_t>(64, n / parts / 64);
  const auto exact = lp::sortedsearch::merge_path_cuts<B>(a.data(), na, b.data(), nb, parts);
  const auto cuts = lp::sortedsearch::merge_path_cuts_aligned<B>(a.data(), na, b.data(), nb, parts, align);
  CHECK_MSG(cuts.front().a == 0 && cuts.front().b == 0 && cuts.back().a == na && cuts.back().b == nb, what << " aligned: the ends");
  for (int k = 0; k < parts; ++k) {
    const auto &lo = cuts[std::size_t(k)], &hi = cuts[std::size_t(k) + 1];
    CHECK_MSG(lo.a <= hi.a && lo.b <= hi.b, what << " aligned parts=" << parts << " k=" << k << ": out of order");
    if (k > 0) {
      const auto& e = exact[std::size_t(k)];
      CHECK_MSG(lo.a % align == 0 || (lo.a == e.a && lo.b == e.b), what << " aligned k=" << k << ": a=" << lo.a << " neither aligned nor exact");
      CHECK_MSG(std::llabs((lo.a + lo.b) - (e.a + e.b)) <= slack, what << " aligned k=" << k << ": off the diagonal by more than " << slack);
    }
    for (std::int64_t i = lo.a; i < hi.a; ++i) {
      const T* s = b.data() + lo.b;
      const std::int64_t local = B == Bounds::Lower ? std::lower_bound(s, b.data() + hi.b, a[i]) - s : std::upper_bound(s, b.data() + hi.b, a[i]) - s;
      const std::int64_t global = B == Bounds::Lower ? std::lower_bound(b.begin(), b.end(), a[i]) - b.begin()
                                                     : std::upper_bound(b.begin(), b.end(), a[i]) - b.begin();
      CHECK_MSG(lo.b + local == global, what << " aligned" << (B == Bounds::Lower ? " lower" : " upper") << " parts=" << parts << " i=" << i);
      if (lo.b + local != global) return;
    }
  }
}

template <class T>
static void check_all_cuts(const std::vector<T>& a, const std::vector<T>& b, const char* what) {
  for (int parts : {1, 2, 3, 4, 7, 8}) {
    check_cuts<Bounds::Lower>(a, b, parts, what);
    check_cuts<Bounds::Upper>(a, b, parts, what);
    for (std::int64_t align : {4, 32}) {
      check_aligned_cuts<Bounds::Lower>(a, b, parts, align, what);
      check_aligned_cuts<Bounds::Upper>(a, b, parts, align, what);
    }
  }
}

// Checks every reference on one (A, B) pair against the oracle.
template <class T>
static void check_pair(const std::vector<T>& a, const std::vector<T>& b, const char* what) {
  const std::int64_t na = a.size(), nb = b.size();
  std::vector<u32> lower(na), upper(na), oracle_l(na), oracle_u(na);
  lp::cpu::sorted_search<Bounds::Lower>(a.data(), na, b.data(), nb, lower.data());
  lp::cpu::sorted_search<Bounds::Upper>(a.data(), na, b.data(), nb, upper.data());
  lp::cpu::binary_search<Bounds::Lower>(a.data(), na, b.data(), nb, oracle_l.data());
  lp::cpu::binary_search<Bounds::Upper>(a.data(), na, b.data(), nb, oracle_u.data());
  for (std::int64_t i = 0; i < na; ++i) {
    auto l = static_cast<u32>(std::lower_bound(b.begin(), b.end(), a[i]) - b.begin());
    auto u = static_cast<u32>(std::upper_bound(b.begin(), b.end(), a[i]) - b.begin());
    CHECK_MSG(lower[i] == l && oracle_l[i] == l, what << " lower i=" << i);
    CHECK_MSG(upper[i] == u && oracle_u[i] == u, what << " upper i=" << i);
    if (lower[i] != l || upper[i] != u) return;
  }
  check_all_cuts(a, b, what);
  for (Bounds bounds : {Bounds::Lower, Bounds::Upper}) {
    std::vector<u32> ia(na), ib(nb);
    auto counts = bounds == Bounds::Lower
                      ? lp::cpu::sorted_search_both<Bounds::Lower>(a.data(), na, b.data(), nb, ia.data(), ib.data(), true)
                      : lp::cpu::sorted_search_both<Bounds::Upper>(a.data(), na, b.data(), nb, ia.data(), ib.data(), true);
    std::int64_t ma = 0, mb = 0;
    for (std::int64_t i = 0; i < na; ++i) {
      u32 want = static_cast<u32>((bounds == Bounds::Lower ? std::lower_bound(b.begin(), b.end(), a[i]) : std::upper_bound(b.begin(), b.end(), a[i])) - b.begin());
      bool m = occurs(b, a[i]);
      ma += m;
      CHECK_MSG(ia[i] == (want | (m ? kMatchBit : 0u)), what << " both/A i=" << i);
      if (ia[i] != (want | (m ? kMatchBit : 0u))) return;
    }
    for (std::int64_t j = 0; j < nb; ++j) {
      // The opposite bound of B into A.
      u32 want = static_cast<u32>((bounds == Bounds::Lower ? std::upper_bound(a.begin(), a.end(), b[j]) : std::lower_bound(a.begin(), a.end(), b[j])) - a.begin());
      bool m = occurs(a, b[j]);
      mb += m;
      CHECK_MSG(ib[j] == (want | (m ? kMatchBit : 0u)), what << " both/B j=" << j);
      if (ib[j] != (want | (m ? kMatchBit : 0u))) return;
    }
    CHECK(counts.first == ma && counts.second == mb);
  }
  std::vector<u32> match(na), count(na);
  lp::cpu::sorted_match(a.data(), na, b.data(), nb, match.data());
  lp::cpu::sorted_equality_count(a.data(), na, b.data(), nb, count.data());
  for (std::int64_t i = 0; i < na; ++i) {
    auto range = std::equal_range(b.begin(), b.end(), a[i]);
    CHECK_MSG(match[i] == u32(range.first != range.second), what << " match i=" << i);
    CHECK_MSG(count[i] == u32(range.second - range.first), what << " count i=" << i);
  }
  // The merge path splits the merge where a sequential merge would (Lower: A first on ties).
  for (std::int64_t d = 0; d <= na + nb; d += 1 + (na + nb) / 37) {
    std::int64_t m = lp::sortedsearch::merge_path<Bounds::Lower>(a.data(), na, b.data(), nb, d, lp::sortedsearch::Less{});
    std::int64_t ai = 0, bi = 0;
    for (std::int64_t s = 0; s < d; ++s)
      (bi >= nb || (ai < na && !(b[bi] < a[ai]))) ? ++ai : ++bi;
    CHECK_MSG(m == ai, what << " merge_path d=" << d);
  }
}


int main() {
  for (std::uint64_t seed : {1ull, 2ull, 3ull}) {
    std::mt19937_64 rng(seed);
    for (int trial = 0; trial < 60; ++trial) {
      size_t na = rng() % 300, nb = rng() % 300;
      std::int64_t range = 1 + static_cast<std::int64_t>(rng() % 1000);  // small ranges: many duplicates
      check_pair(sorted_random<int>(rng, na, 0, range), sorted_random<int>(rng, nb, 0, range), "int random");
      check_pair(sorted_random<double>(rng, na, -range, range), sorted_random<double>(rng, nb, -range, range), "double random");
      check_pair(sorted_random<std::int64_t>(rng, na, 0, 1ll << 40), sorted_random<std::int64_t>(rng, nb, 0, 1ll << 40), "int64 distinct");
    }
  }
  std::vector<int> empty, some = {1, 2, 2, 3, 7}, low = {-5, -4, -4}, high = {100, 200};
  std::vector<int> equal(50, 4), equal2(33, 4);
  check_pair(empty, empty, "both empty");
  check_pair(empty, some, "A empty");
  check_pair(some, empty, "B empty");
  check_pair(low, some, "A below B");
  check_pair(high, some, "A above B");
  check_pair(equal, equal2, "all equal");
  check_pair(equal, some, "equal vs some");
  // Duplicates straddling what would be tile boundaries on the GPU (runs of 700 and 1900 keys).
  std::vector<int> runs_a, runs_b;
  for (int k = 0; k < 4000; ++k) runs_a.push_back(k / 700), runs_b.push_back(k / 1900);
  check_pair(runs_a, runs_b, "long runs");
  return test_summary("cpu_sorted_search");
}
