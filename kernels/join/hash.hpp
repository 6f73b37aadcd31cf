// The joins' hash: splitmix64's finaliser, a bijection of 64-bit words, over a key's bits. Shared
// by the GPU hash joins and the CPU ones (cpu_reference/join/), and the pair digest.
#pragma once
#include <cstdint>
#include <type_traits>

#include "../common/hd.hpp"

namespace lp::join {

LP_HD std::uint64_t mix64(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ull;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

template <class K>
LP_HD std::uint64_t key_hash(K k) {
  return mix64(std::uint64_t(std::make_unsigned_t<K>(k)));
}

}  // namespace lp::join
