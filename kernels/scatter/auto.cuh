// `auto` for the scatter and gather: the plans of its decision table (auto_rule.hpp), each a variant
// of the study, with their scratch.
#pragma once
#include "../common/carve.hpp"
#include "auto_rule.hpp"
#include "multipass.cuh"
#include "naive_strict.cuh"
#include "privatized.cuh"
#include "sorted.cuh"
#include "thrust_peer.cuh"
#include "wide.cuh"

namespace lp::scatter {

inline auto_rule::Sizes auto_sizes(bool gather, std::int64_t n, std::uint32_t m, std::size_t word_bytes) {
  auto_rule::Sizes s;
  s.gather = gather;
  s.n = n;
  s.m = m;
  s.word_bytes = std::uint32_t(word_bytes);
  s.privatized = privatized_unsupported(m).empty();
  s.l2_bytes = double(l2_bytes());
  return s;
}

template <class W>
std::size_t auto_plan_scratch(auto_rule::Plan p, bool gather, std::int64_t n, std::uint32_t m) {
  using auto_rule::Plan;
  switch (p) {
    case Plan::Privatized:
    case Plan::Bids: return naive_strict_scratch_bytes(m);
    case Plan::FullSort: return sorted_scratch_bytes<W>(gather, n, m, label_bits(m));
    default: return 0;
  }
}

template <class W>
void auto_run_plan(auto_rule::Plan p, bool gather, const std::uint32_t* labels, const W* values, std::int64_t n, std::uint32_t m, W* out,
                   void* scratch, std::size_t scratch_bytes, const Tuning& t, cudaStream_t s) {
  using auto_rule::Plan;
  switch (p) {
    case Plan::Wide: return wide<W>(gather, labels, values, n, out, t, s);
    case Plan::Privatized: return privatized_strict_scatter<W>(labels, values, n, m, out, scratch, t, s);
    case Plan::Bids: return naive_strict_scatter<W>(labels, values, n, m, out, scratch, t, s);
    case Plan::Passes: return multipass<W>(gather, labels, values, n, m, out, Tuning{}, s);
    case Plan::FullSort: return sorted<W>(gather, true, label_bits(m), labels, values, n, m, out, scratch, scratch_bytes, t, s);
    case Plan::Thrust: return thrust_scatter_gather<W>(gather, labels, values, n, out, s);
    default: throw std::logic_error("scatter auto: no plan");
  }
}

}  // namespace lp::scatter
