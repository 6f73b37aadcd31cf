// The inputs of `bench cpu`, shared with `bench cachesim` so that the simulator replays exactly
// the streams the CPU study measures: the same labels and values for the same seed, n, m and label
// kind, written into memory of the requested page size.
#pragma once
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "cpu_reference/cpu_memory/huge_pages.hpp"

namespace lp::cpu_study {

// The seed tag of a point's inputs.
inline std::string input_tag(std::int64_t n, std::uint32_t m, const std::string& kind) {
  return std::to_string(n) + "/" + std::to_string(m) + "/" + kind;
}

// kind "sequential": label i mod m (Fig 2.5, a streaming pattern through the buckets); otherwise
// uniform labels from the generator every label-driven study uses.
inline void fill_labels(cpu::Region& out, std::int64_t n, std::uint32_t m, const std::string& kind, std::uint64_t seed,
                        cpu::PageKind pages) {
  out.allocate(std::size_t(n) * 4, pages);
  std::uint32_t* l = out.as<std::uint32_t>();
  if (kind == "sequential") {
    for (std::int64_t i = 0; i < n; ++i) l[i] = std::uint32_t(i % m);
  } else {
    const auto g = harness::labels(n, m, "uniform", 1.0, harness::derive_seed(seed, "labels/" + input_tag(n, m, kind)));
    std::memcpy(l, g.data(), g.size() * 4);
  }
}

// Full-range int32 values.
inline void fill_values(cpu::Region& out, std::int64_t n, std::uint32_t m, const std::string& kind, std::uint64_t seed,
                        cpu::PageKind pages) {
  out.allocate(std::size_t(n) * 4, pages);
  std::vector<std::int32_t> v(static_cast<std::size_t>(n));
  harness::parallel_fill(v, harness::derive_seed(seed, "values/" + input_tag(n, m, kind)),
                         [](harness::Rng& r, std::size_t) { return std::int32_t(r.next()); });
  std::memcpy(out.data(), v.data(), v.size() * 4);
}

}  // namespace lp::cpu_study
