// Label and launch arithmetic every family shares, host and device: the bits that address m labels
// (the sorted bits of the partial radix sorts count down from it) and rounding-up division.
// Plain C++ with LP_HD, so the CPU references use the same function.
#pragma once
#include <cstdint>

#include "hd.hpp"

namespace lp {

// Bits needed to address m labels: ceil(log2 m).
LP_HD int label_bits(std::uint32_t m) {
  int b = 0;
  while (b < 32 && (std::uint64_t(1) << b) < m) ++b;
  return b;
}

LP_HD std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

}  // namespace lp
