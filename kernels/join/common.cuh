// What the GPU joins share: the output pair, layout-equal to cpu::join::Pair so that results
// download straight into the CPU's vector.
#pragma once
#include <cstdint>

#include "../common/device_facts.cuh"
#include "hash.hpp"

namespace lp::join {

struct RidPair {
  std::uint32_t r, s;  // rid_R, rid_S
};
static_assert(sizeof(RidPair) == 8, "two 32-bit rids");

}  // namespace lp::join
