// The tuple of He et al. 2008's primitives (3.1; docs/references.md)
// as one 8-byte word, and the split's partitioning function: shared by the GPU kernels
// (kernels/join/split.cuh) and the CPU references (cpu_reference/primitives/), so that both put a
// key in the same partition. Plain C++ with LP_HD.
#pragma once
#include <cstdint>

#include "../common/hd.hpp"
#include "keys.hpp"

namespace lp::join {

// A (key, rid) tuple, the key in the high half: ordering the words orders the tuples by key, then
// by rid, so one std::sort of the words is the stable sort by key when rids are positions.
LP_HD std::uint64_t tuple_word(std::uint32_t key, std::uint32_t rid) { return (std::uint64_t(key) << 32) | rid; }
LP_HD std::uint32_t tuple_key(std::uint64_t t) { return std::uint32_t(t >> 32); }
LP_HD std::uint32_t tuple_rid(std::uint64_t t) { return std::uint32_t(t); }

// The partition of a key among `fanout` (>= 1, any value, not only powers of two): hash(key) %
// fanout, with the joins' hash (splitmix64's finaliser). The modulo takes the hash's top 32 bits,
// its best mixed, so that it is a 32-bit remainder, a fraction of a 64-bit one's cost on the GPU.
LP_HD std::uint32_t partition_of(std::uint32_t key, std::uint32_t fanout) { return std::uint32_t(key_hash(key) >> 32) % fanout; }

// The same for a tuple word, and for a bare key, so that a kernel over either input is one template.
LP_HD std::uint32_t partition_of_item(std::uint64_t tuple, std::uint32_t fanout) { return partition_of(tuple_key(tuple), fanout); }
LP_HD std::uint32_t partition_of_item(std::uint32_t key, std::uint32_t fanout) { return partition_of(key, fanout); }

}  // namespace lp::join
