// The CPU histogram (the histogram study's baseline and reference) against a brute-force count per
// bin, on u8 and u32 samples, every label distribution of the harness, odd sizes and n = 0; and the
// serial pieces the GPU kernels share (kernels/histogram/bundle.hpp): bundling of a word's updates
// and TRISH's paired 16-bit sums.
#include <algorithm>
#include <cstdio>
#include <map>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "check.hpp"
#include "cpu_reference/histogram/cpu_histogram.hpp"
#include "kernels/histogram/bundle.hpp"

template <class T>
void check_case(std::int64_t n, std::uint32_t bins, const std::string& dist, std::uint64_t seed) {
  std::vector<std::uint32_t> labels = harness::labels(n, bins, dist, 1.0, seed);
  std::vector<T> s(labels.begin(), labels.end());
  if (n > 2) s[1] = T(bins <= 255 ? bins : 0);  // one out-of-range sample where T can hold it: never counted
  std::vector<std::uint32_t> got(bins, 0xdeadbeefu);
  lp::cpu::histogram_sequential(s.data(), n, bins, got.data());
  std::int64_t total = 0;
  for (std::uint32_t b = 0; b < bins; ++b) {
    const auto want = std::count(s.begin(), s.end(), T(b));
    CHECK_MSG(got[b] == std::uint32_t(want), "n=" << n << " bins=" << bins << " " << dist << " bin " << b << ": " << got[b] << " vs " << want);
    total += got[b];
  }
  const auto in_range = std::count_if(s.begin(), s.end(), [bins](T x) { return std::uint32_t(x) < bins; });
  CHECK_MSG(total == in_range, "n=" << n << " bins=" << bins << ": total " << total << ", expected " << in_range);
}

// Applying a bundle to counter words must equal four separate increments, with every merged update
// on a word that an earlier live update also hits.
template <int Bits>
void check_bundle(const std::uint32_t (&bin)[4]) {
  namespace h = lp::histogram;
  const h::Bundle u = h::bundle4<Bits>(bin);
  std::map<std::uint32_t, std::uint64_t> want, got;  // counter word -> what it receives
  constexpr std::uint32_t per = 32 / Bits;
  for (std::uint32_t b : bin) want[b / per] += std::uint64_t(1) << (Bits * (b % per));
  int live = 0;
  for (int k = 0; k < 4; ++k)
    if (u.live[k]) got[u.index[k]] += u.inc[k], ++live;
  CHECK_MSG(want == got, "bundle4<" << Bits << "> of " << bin[0] << "," << bin[1] << "," << bin[2] << "," << bin[3]);
  std::vector<std::uint32_t> words;
  for (std::uint32_t b : bin) words.push_back(b / per);
  std::sort(words.begin(), words.end());
  CHECK(live == int(std::unique(words.begin(), words.end()) - words.begin()));  // one update per distinct word
}

void check_serial_pieces() {
  namespace h = lp::histogram;
  harness::Rng rng(99);
  for (int i = 0; i < 20000; ++i) {
    const std::uint32_t w = i % 4 == 0 ? std::uint32_t(rng.below(4)) * 0x01010101u * 0x3fu : std::uint32_t(rng.next());
    std::uint32_t bin[4];
    h::bytes_of(w, bin);
    for (int k = 0; k < 4; ++k) CHECK(bin[k] == ((w >> (8 * k)) & 0xffu));
    check_bundle<8>(bin);
    check_bundle<32>(bin);
    std::uint32_t few[4] = {std::uint32_t(rng.below(3)), std::uint32_t(rng.below(3)), std::uint32_t(rng.below(3)), 70000};
    check_bundle<32>(few);
    check_bundle<16>(few);
  }
  // 64 histograms of counters up to 255 (TRISH's flush): the paired sums never carry between lanes.
  for (int trial = 0; trial < 200; ++trial) {
    h::PairedSums s;
    std::uint64_t want[4] = {0, 0, 0, 0};
    for (int col = 0; col < 64; ++col) {
      const std::uint32_t c = trial == 0 ? 0xffffffffu : std::uint32_t(rng.next());
      h::add_paired(s, c);
      for (int k = 0; k < 4; ++k) want[k] += (c >> (8 * k)) & 0xffu;
    }
    for (int k = 0; k < 4; ++k) CHECK_MSG(h::paired_bin(s, k) == want[k], "paired bin " << k << " trial " << trial);
  }
}

int main() {
  check_serial_pieces();
  std::uint64_t seed = 7;
  for (std::int64_t n : {0, 1, 3, 255, 256, 1001, 65537})
    for (const char* dist : {"uniform", "degenerate", "zipf"}) {
      check_case<std::uint8_t>(n, 256, dist, ++seed);
      check_case<std::uint8_t>(n, 64, dist, ++seed);
      check_case<std::uint32_t>(n, 256, dist, ++seed);
      check_case<std::uint32_t>(n, 4096, dist, ++seed);
      check_case<std::uint32_t>(n, 65536, dist, ++seed);
    }
  // Degenerate: every sample in the last bin, the others stay 0.
  std::vector<std::uint8_t> deg(1000, 255);
  std::vector<std::uint32_t> c(256);
  lp::cpu::histogram_sequential(deg.data(), std::int64_t(deg.size()), 256, c.data());
  CHECK(c[255] == 1000 && std::count(c.begin(), c.end(), 0u) == 255);
  return test_summary("test_cpu_histogram");
}
