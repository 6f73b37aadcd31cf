// The scatter/gather study's CPU side: the references and CPU baselines against brute
// force (Alg 2.1, the sorted scatter of Alg 2.4, Alg 2.6), the any-one-wins check accepting every
// admissible result and catching planted errors, the label distributions the study adds (runs,
// permutation), the probes' index stream and He et al.'s pass-count model.
#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "check.hpp"
#include "cpu_reference/cpu_memory/scatter_gather.hpp"
#include "kernels/scatter/multipass_model.hpp"
#include "kernels/scatter/probe_index.hpp"

namespace {

void references(std::uint64_t seed) {
  harness::Rng r(seed);
  for (int round = 0; round < 40; ++round) {
    const std::int64_t n = std::int64_t(r.below(5000));
    const std::uint32_t m = 1 + std::uint32_t(r.below(round % 2 ? 70000 : 300));
    const char* dist = std::vector<const char*>{"uniform", "sorted", "runs", "zipf", "degenerate"}[round % 5];
    const std::vector<std::uint32_t> labels = harness::labels(n, m, dist, 1.0, r.next());
    std::vector<std::int64_t> values(static_cast<std::size_t>(n));
    for (auto& v : values) v = std::int64_t(r.next());
    const std::int64_t init = -7;
    const std::vector<std::int64_t> want = lp::cpu::scatter_brute_force(labels, values, m, init);
    std::vector<std::int64_t> got(m);
    lp::cpu::scatter_sequential(labels.data(), values.data(), n, m, init, got.data());
    CHECK_MSG(got == want, "scatter_sequential n=" << n << " m=" << m << " " << dist);
    for (int bits : {0, 1, 3, 8, 17, 40}) {
      std::vector<std::int64_t> sorted(m, init);
      lp::cpu::scatter_sorted(labels.data(), values.data(), n, m, bits, sorted.data());
      CHECK_MSG(sorted == want, "scatter_sorted bits=" << bits << " n=" << n << " m=" << m << " " << dist);
      CHECK(lp::cpu::scatter_any_mismatch(labels.data(), values.data(), n, sorted.data(), m, init).empty());
    }
    std::vector<std::int64_t> table(m);
    for (auto& v : table) v = std::int64_t(r.next());
    const std::vector<std::int64_t> gwant = lp::cpu::gather_brute_force(labels, table);
    for (int bits : {0, 2, 9, 40}) {
      std::vector<std::int64_t> g(static_cast<std::size_t>(n), init);
      lp::cpu::gather_sorted(labels.data(), table.data(), n, m, bits, g.data());
      CHECK_MSG(g == gwant, "gather_sorted bits=" << bits << " n=" << n << " m=" << m);
    }
  }
}

// Any admissible "any one wins" result passes; a wrong value, a write to an unnamed bucket and an
// unwritten named bucket fail.
void any_one_wins(std::uint64_t seed) {
  harness::Rng r(seed);
  for (int round = 0; round < 30; ++round) {
    const std::int64_t n = 1 + std::int64_t(r.below(3000));
    const std::uint32_t m = 1 + std::uint32_t(r.below(round % 3 ? 50 : 5000));
    const std::vector<std::uint32_t> labels = harness::labels(n, m, "uniform", 1.0, r.next());
    std::vector<std::uint32_t> values(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) values[std::size_t(i)] = std::uint32_t(i) * 2654435761u;  // distinct
    const std::uint32_t init = 0xffffffffu;
    std::vector<std::vector<std::uint32_t>> cand(m);
    for (std::int64_t i = 0; i < n; ++i) cand[labels[std::size_t(i)]].push_back(values[std::size_t(i)]);
    std::vector<std::uint32_t> got(m, init);
    std::vector<std::uint32_t> named;
    for (std::uint32_t b = 0; b < m; ++b)
      if (!cand[b].empty()) got[b] = cand[b][r.below(cand[b].size())], named.push_back(b);
    CHECK(lp::cpu::scatter_any_mismatch(labels.data(), values.data(), n, got.data(), m, init).empty());
    const std::uint32_t b = named[r.below(named.size())];
    auto bad = got;
    bad[b] ^= 1u;
    CHECK(!lp::cpu::scatter_any_mismatch(labels.data(), values.data(), n, bad.data(), m, init).empty());
    bad = got;
    bad[b] = init;
    CHECK(!lp::cpu::scatter_any_mismatch(labels.data(), values.data(), n, bad.data(), m, init).empty());
    if (named.size() < m) {
      bad = got;
      for (std::uint32_t u = 0; u < m; ++u)
        if (cand[u].empty()) {
          bad[u] = values[0];
          break;
        }
      CHECK(!lp::cpu::scatter_any_mismatch(labels.data(), values.data(), n, bad.data(), m, init).empty());
    }
  }
}

void distributions() {
  for (std::int64_t n : {1, 2, 17, 4099, 100000}) {
    const auto p = harness::labels(n, std::uint32_t(n), "permutation", 1.0, 99 + n);
    std::vector<std::uint32_t> s = p;
    std::sort(s.begin(), s.end());
    bool identity = true;
    for (std::int64_t i = 0; i < n; ++i) identity = identity && s[std::size_t(i)] == std::uint32_t(i);
    CHECK_MSG(identity, "permutation n=" << n);
    CHECK(p == harness::labels(n, std::uint32_t(n), "permutation", 1.0, 99 + n));
  }
  bool refused = false;
  try {
    harness::labels(10, 11, "permutation", 1.0, 1);
  } catch (const std::invalid_argument&) {
    refused = true;
  }
  CHECK(refused);
  // Runs: consecutive labels (mod m) inside a run, every label < m, mean run length near 16.
  for (std::uint32_t m : {1u, 5u, 1000u, 1u << 20}) {
    const auto l = harness::labels(200000, m, "runs", 1.0, 5);
    std::int64_t breaks = 0;
    bool in_range = true;
    for (std::size_t i = 0; i < l.size(); ++i) {
      in_range = in_range && l[i] < m;
      if (i && l[i] != (l[i - 1] + 1) % m) ++breaks;
    }
    CHECK_MSG(in_range, "runs m=" << m);
    if (m >= 1000) CHECK_MSG(breaks > 200000 / 32 && breaks < 200000 / 8, "runs m=" << m << ": " << breaks << " run starts");
  }
}

void probe_stream() {
  // The kernels' index stream: every index < m, and all of a small m hit; a bijection before the
  // multiply-shift (distinct inputs, distinct mixes).
  for (std::uint32_t m : {1u, 3u, 1024u, 1u << 26}) {
    std::set<std::uint32_t> hit;
    bool ok = true;
    for (std::uint32_t i = 0; i < 100000; ++i) {
      const std::uint32_t at = lp::scatter::probe_index(i, 0x1234u, m);
      ok = ok && at < m;
      if (m <= 1024) hit.insert(at);
    }
    CHECK(ok);
    if (m <= 1024) CHECK(hit.size() == m);
  }
}

void pass_model() {
  const std::size_t c = std::size_t(25) << 20;  // half an H100 L2
  CHECK(lp::scatter::multipass_passes(1u << 20, 4, c, false) == 1);  // fits: one pass
  CHECK(lp::scatter::multipass_passes(1u << 22, 8, c, false) == 2);  // 32 MiB of buckets: two slices fit
  const int p24 = lp::scatter::multipass_passes(1u << 24, 4, c, false);
  CHECK_MSG(p24 >= 2 && p24 <= 4, "2^24 buckets: " << p24 << " passes");
  for (std::uint32_t m : {1u << 24, 1u << 26, 1u << 28})
    for (bool g : {false, true}) {
      const int p = lp::scatter::multipass_passes(m, 4, c, g);
      CHECK(p >= 1 && p <= 64);
    }
}

}  // namespace

int main() {
  for (std::uint64_t seed : {1u, 2u, 3u}) {
    references(seed);
    any_one_wins(seed);
  }
  distributions();
  probe_stream();
  pass_model();
  return test_summary("test_cpu_scatter");
}
