// What the joins ask of a key, shared by the GPU joins and the CPU ones (cpu_reference/join/): the
// hash (splitmix64's finaliser, a bijection of 64-bit words, also the pair digest's) and the band
// predicate.
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

// A bijection of 32-bit words (murmur3's finaliser: xor-shifts and odd multipliers, each
// invertible), so that two int32 keys are equal exactly when their hashes are: the partitioned
// hash join (partitioned_hash.cuh) keeps the hash in place of the key.
LP_HD std::uint32_t mix32(std::uint32_t x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  return x ^ (x >> 16);
}

template <class K>
LP_HD std::uint64_t key_hash(K k) {
  return mix64(std::uint64_t(std::make_unsigned_t<K>(k)));
}

// |a - b| <= band without overflow for any two keys of the type (the difference of two int64 keys
// fits an unsigned 64-bit word).
template <class K>
LP_HD bool within(K a, K b, std::uint64_t band) {
  using U = std::make_unsigned_t<K>;
  const std::uint64_t d = a < b ? std::uint64_t(U(b) - U(a)) : std::uint64_t(U(a) - U(b));
  return d <= band;
}

}  // namespace lp::join
