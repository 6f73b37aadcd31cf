// `auto` for the scatter and gather: per m, the variant the H100 measurements of issue 12 found
// fastest (results/h100/scatter_notes.md). Scatter: the shared-memory bids while they fit a block
// (reads labels only), the global bids of naive_strict while the buckets fit half the L2 (L2
// atomics outrun plain partial-sector stores there), He et al.'s passes up to twice the L2, and a
// full radix sort with one write per bucket beyond (every write then a coalesced, conflict-free
// sweep). All strict but the passes (any one wins), which is auto's contract. Gather: He et al.'s
// passes where they beat one sweep (buckets between L2/2 and 2 L2: 0.0198 against 0.0231 ns at
// m = 2^24), the wide sweep elsewhere (within a few percent of the random-read probe there).
#pragma once
#include "multipass.cuh"
#include "privatized.cuh"
#include "sorted.cuh"
#include "wide.cuh"

namespace lp::scatter {

enum class AutoPlan { Wide, Privatized, Bids, Passes, FullSort };

inline AutoPlan auto_plan(bool gather, std::uint32_t m, std::size_t word_bytes) {
  const double buckets = double(m) * double(word_bytes), l2 = double(l2_bytes());
  if (gather) return buckets > l2 / 2 && buckets <= 2 * l2 ? AutoPlan::Passes : AutoPlan::Wide;
  if (m <= (1u << 14) && privatized_unsupported(m).empty()) return AutoPlan::Privatized;
  if (buckets <= l2 / 2) return AutoPlan::Bids;
  if (buckets <= 2 * l2) return AutoPlan::Passes;
  return AutoPlan::FullSort;
}

inline const char* to_string(AutoPlan p) {
  switch (p) {
    case AutoPlan::Wide: return "wide";
    case AutoPlan::Privatized: return "privatized";
    case AutoPlan::Bids: return "naive_strict";
    case AutoPlan::Passes: return "multipass";
    case AutoPlan::FullSort: return "cub_sort";
  }
  return "?";
}

template <class W>
std::size_t auto_scratch_bytes(bool gather, std::int64_t n, std::uint32_t m) {
  switch (auto_plan(gather, m, sizeof(W))) {
    case AutoPlan::Privatized:
    case AutoPlan::Bids: return naive_strict_scratch_bytes(m);
    case AutoPlan::FullSort: return sorted_scratch_bytes<W>(false, n, m, label_bits(m));
    default: return 0;
  }
}

template <class W>
void auto_scatter_gather(bool gather, const std::uint32_t* labels, const W* values, std::int64_t n, std::uint32_t m, W* out, void* scratch,
                         std::size_t scratch_bytes, const Tuning& t, cudaStream_t s) {
  switch (auto_plan(gather, m, sizeof(W))) {
    case AutoPlan::Wide: return wide<W>(gather, labels, values, n, out, t, s);
    case AutoPlan::Privatized: return privatized_strict_scatter<W>(labels, values, n, m, out, scratch, t, s);
    case AutoPlan::Bids: return naive_strict_scatter<W>(labels, values, n, m, out, scratch, t, s);
    case AutoPlan::Passes: return multipass<W>(gather, labels, values, n, m, out, Tuning{}, s);
    case AutoPlan::FullSort: return sorted<W>(false, true, label_bits(m), labels, values, n, m, out, scratch, scratch_bytes, t, s);
  }
}

}  // namespace lp::scatter
