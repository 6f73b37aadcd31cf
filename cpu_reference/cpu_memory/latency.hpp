// The thesis's latency probe (section 2.3, used to configure its simulator): a pool of m slots,
// each holding the index of the next slot along one random cycle through all of them; following
// it is a chain of dependent loads, so the time per step is the load latency of whichever level
// of the hierarchy holds a working set of m x 4 bytes.
#pragma once
#include <cstdint>
#include <vector>

namespace lp::cpu {

// next[order[k]] = order[k+1 mod m]: one cycle through all m slots in the given (random) order,
// so no shorter cycle can keep the chase inside a cache-resident subset.
inline void make_cycle(const std::vector<std::uint32_t>& order, std::uint32_t* next) {
  const std::size_t m = order.size();
  for (std::size_t k = 0; k < m; ++k) next[order[k]] = order[(k + 1) % m];
}

// Section 2.3 probe: `steps` dependent loads from `start`; returns where it ends (the caller
// checks it, which also keeps the compiler from dropping the loop).
inline std::uint32_t pointer_chase(const std::uint32_t* next, std::int64_t steps, std::uint32_t start) {
  std::uint32_t p = start;
  for (std::int64_t i = 0; i < steps; ++i) p = next[p];
  return p;
}

}  // namespace lp::cpu
