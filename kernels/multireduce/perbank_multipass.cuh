// Thesis 4.3.6, "Extension for more than 256 buckets", multi-pass scheme (Fig 4.16): Alg 4.10 once per 256-label range.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "perbank.cuh"

namespace lp::multireduce {

namespace perbank_multipass_detail {

// The thesis's range per pass: 256 buckets (4 warps per bucket -> 1024 threads). With 32 sets of
// 8-byte buckets that is 64 KiB, so it fits every type here; the fallback to the largest range
// that fits only matters for a smaller shared memory.
constexpr std::uint32_t kPassBuckets = 256;
// Every pass reads all n inputs, so the cost grows linearly with m (the thesis: "not useful if
// the number of buckets is much higher than 256"). Beyond this many passes the variant declines
// rather than spend minutes of a sweep on a point whose outcome is known.
constexpr std::int64_t kMaxPasses = 64;

inline std::uint32_t pass_buckets(std::uint32_t m, std::size_t value_bytes) {
  const std::size_t fit = max_shared_per_block() / (std::size_t(perbank_detail::kBanks) * value_bytes);
  return static_cast<std::uint32_t>(std::max<std::size_t>(1, std::min<std::size_t>({std::size_t(kPassBuckets), fit, m})));
}

inline std::int64_t passes(std::uint32_t m, std::size_t value_bytes) { return ceil_div(m, pass_buckets(m, value_bytes)); }

}  // namespace perbank_multipass_detail

inline std::string perbank_multipass_unsupported(std::int64_t, std::uint32_t m, std::size_t value_bytes, const Tuning& tuning) {
  namespace d = perbank_multipass_detail;
  const std::uint32_t range = d::pass_buckets(m, value_bytes);
  std::string why = perbank_detail::unsupported(range, value_bytes, tuning);
  if (!why.empty()) return why;
  const std::int64_t p = d::passes(m, value_bytes);
  if (p > d::kMaxPasses)
    return std::to_string(p) + " passes of " + std::to_string(range) + " buckets over the input exceed " + std::to_string(d::kMaxPasses) +
           " (m <= " + std::to_string(d::kMaxPasses * range) + ")";
  return "";
}

inline std::size_t perbank_multipass_scratch_bytes(std::int64_t, std::uint32_t, const Tuning&) { return 0; }

// Pass p processes only the labels in [p * range, (p + 1) * range) with the per-bank kernel body
// (same kernel, label filter on) and applies its buckets to out[p * range ...] atomically.
template <class Op>
void perbank_multipass(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m,
                       typename Op::value_type* out, void* /*scratch*/, std::size_t /*scratch_bytes*/, const Tuning& tuning,
                       cudaStream_t stream) {
  using T = typename Op::value_type;
  fill(out, m, Op::identity(), stream);
  if (n <= 0) return;
  const std::uint32_t range = perbank_multipass_detail::pass_buckets(m, sizeof(T));
  const int threads = perbank_detail::threads_for(range, tuning);
  for (std::uint32_t base = 0, nb; base < m; base += nb) {  // base + nb <= m: no wrap-around even near 2^32
    nb = std::min(range, m - base);
    perbank_detail::launch_range<Op, true>(labels, values, n, base, nb, out, threads, tuning, stream);
  }
}

}  // namespace lp::multireduce
