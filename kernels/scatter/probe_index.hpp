// The random index stream of the scatter/gather probes (probe.cuh): the i-th access goes to a
// uniform position in [0, m), from a bijective 32-bit mixer (the murmur3 finalizer) and a
// multiply-shift, so host and device compute the same stream and no index array is read. Plain
// C++ with LP_HD, so that the CPU tests and the validation use the kernels' own function.
#pragma once
#include <cstdint>

#include "../common/hd.hpp"

namespace lp::scatter {

LP_HD std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}
LP_HD std::uint32_t probe_index(std::uint32_t i, std::uint32_t salt, std::uint32_t m) {
  return std::uint32_t((std::uint64_t(mix32(i ^ salt)) * m) >> 32);
}

}  // namespace lp::scatter
