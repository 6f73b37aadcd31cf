// Address streams of the CPU algorithms for the cache simulator (thesis §2.4): the loads
// and stores of cpu_reference's Alg 2.2 (multireduce) and Alg 2.4 (partial radix sort, then
// Alg 2.2), and of the two calibration probes (dependent pointer chase, independent update), in
// program order. Each array sits at its own 1 TiB-aligned virtual base: the real arrays are
// 2 MiB-aligned mmaps, so their line and page offsets are the same, and no two arrays share a
// page. A sink is called as sink(address, is_write); a read-modify-write of a bucket is one access
// with is_write (Cachegrind's "modify"), since the store always hits the line the load brought.
// A phase observer, where given, is told where each phase begins and what prices it (the overlap model's
// model prices phases apart): phase(PhaseInfo).
#pragma once
#include <algorithm>
#include <cstdint>
#include <vector>

#include "cpu_reference/multireduce/cpu_multireduce.hpp"

namespace lp::cachesim {

// A phase of a stream: the bytes its random accesses range over (the working set the latency
// curves are read at) and how many sequential streams it moves at once (the bandwidth floor's).
struct PhaseInfo {
  const char* name;
  double working_set_bytes;
  int streams;
};
struct NoPhases {
  void operator()(const PhaseInfo&) const {}
};

enum class Array : std::uint64_t { Labels = 1, Values, Buckets, SortedLabels, SortedValues, Start, Table, Result, Next };
constexpr std::uint64_t base(Array a) { return std::uint64_t(a) << 40; }

// Alg 2.2 over labels (values are int32: 4 bytes like the labels).
template <class Sink, class Phase = NoPhases>
void multireduce_stream(const std::uint32_t* labels, std::int64_t n, std::uint32_t m, Sink&& sink,
                        Array lab = Array::Labels, Array val = Array::Values, Phase&& phase = Phase{}, double window = 0) {
  const std::uint64_t L = base(lab), V = base(val), B = base(Array::Buckets);
  // The buckets set to the identity: one sequential write stream, a phase of its own, since it runs
  // before the updates and overlaps none of them (at m = 4n it is a quarter of Alg 2.2's traffic).
  phase(PhaseInfo{"init", 4.0 * m, 1});
  for (std::uint32_t b = 0; b < m; ++b) sink(B + 4ull * b, true);
  // The buckets a run of equal top bits spans (window, after Alg 2.4's sort), else all of them.
  phase(PhaseInfo{"reduce", window > 0 ? window : 4.0 * m, 2});
  for (std::int64_t i = 0; i < n; ++i) {
    sink(L + 4ull * std::uint64_t(i), false);
    sink(V + 4ull * std::uint64_t(i), false);
    sink(B + 4ull * labels[i], true);
  }
}

// Alg 2.4: the counting pass, the prefix sum over 2^sort_bits starts, the stable scatter of labels
// and values, then Alg 2.2 over the sorted copies. `sorted` receives the sorted labels (the same
// permutation cpu::partial_sort_by_top_bits makes), which the final pass reads. sort_bits = 0 is
// Alg 2.2 itself.
template <class Sink, class Phase = NoPhases>
void multireduce_sorted_stream(const std::uint32_t* labels, std::int64_t n, std::uint32_t m, int sort_bits,
                               std::vector<std::uint32_t>& sorted, Sink&& sink, Phase&& phase = Phase{}) {
  sort_bits = cpu::effective_sort_bits(m, sort_bits);
  if (sort_bits == 0) return multireduce_stream(labels, n, m, sink, Array::Labels, Array::Values, phase);
  const int shift = cpu::label_bits(m) - sort_bits;
  const std::uint64_t L = base(Array::Labels), V = base(Array::Values), S = base(Array::Start);
  const std::uint64_t SL = base(Array::SortedLabels), SV = base(Array::SortedValues);
  std::vector<std::int64_t> start((std::size_t(1) << sort_bits) + 1, 0);
  phase(PhaseInfo{"count", 8.0 * double(start.size()), 1});
  for (std::size_t d = 0; d < start.size(); ++d) sink(S + 8ull * d, true);  // assign(0)
  for (std::int64_t i = 0; i < n; ++i) {
    sink(L + 4ull * std::uint64_t(i), false);
    const std::uint32_t d = (labels[i] >> shift) + 1;
    ++start[d];
    sink(S + 8ull * d, true);
  }
  for (std::size_t d = 1; d < start.size(); ++d) {
    start[d] += start[d - 1];
    sink(S + 8ull * d, true);
  }
  sorted.resize(static_cast<std::size_t>(n));
  // Reads labels and values, writes 2 x 2^b runs: the start array is the random part.
  phase(PhaseInfo{"scatter", 8.0 * double(start.size()), 2 + 2 * (1 << sort_bits)});
  for (std::int64_t i = 0; i < n; ++i) {
    sink(L + 4ull * std::uint64_t(i), false);
    const std::uint32_t d = labels[i] >> shift;
    const std::int64_t at = start[d]++;
    sink(S + 8ull * d, true);
    sorted[static_cast<std::size_t>(at)] = labels[i];
    sink(SL + 4ull * std::uint64_t(at), true);
    sink(V + 4ull * std::uint64_t(i), false);
    sink(SV + 4ull * std::uint64_t(at), true);
  }
  multireduce_stream(sorted.data(), n, m, sink, Array::SortedLabels, Array::SortedValues, phase,
                     std::max(64.0, 4.0 * double(m) / double(std::uint64_t(1) << sort_bits)));
}

// The latency probe (section 2.3): `steps` dependent loads along next[] from `start`.
template <class Sink>
std::uint32_t chase_stream(const std::uint32_t* next, std::int64_t steps, std::uint32_t start, Sink&& sink) {
  const std::uint64_t N = base(Array::Next);
  std::uint32_t p = start;
  for (std::int64_t i = 0; i < steps; ++i) {
    sink(N + 4ull * p, false);
    p = next[p];
  }
  return p;
}

// The overlap probe of the model: table[labels[i]] += 1 (cpu::update_sequential), one
// read-modify-write per input that waits for no other, as the multireduce's bucket update.
template <class Sink>
void update_stream(const std::uint32_t* labels, std::int64_t n, Sink&& sink) {
  const std::uint64_t L = base(Array::Labels), T = base(Array::Table);
  for (std::int64_t i = 0; i < n; ++i) {
    sink(L + 4ull * std::uint64_t(i), false);
    sink(T + 4ull * labels[i], true);
  }
}

}  // namespace lp::cachesim
