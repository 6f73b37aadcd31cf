// The join study's variants, in the harness's table (framework.hpp). Each family (a .cu file here)
// adds its definitions; the CPU joins live in cpu_reference/join/.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "apps/harness/framework.hpp"
#include "cpu_reference/join/join.hpp"

namespace lp::join_study {

// What a run sees. The key type is chosen at run time (axis `key`), so the key columns are held
// untyped with their width, and launchers get them back through with_key.
struct Ctx {
  int key_bytes = 4;  // 4 (int32) or 8 (int64)
  const void* r = nullptr;  // host key columns; a tuple's rid is its position
  const void* s = nullptr;
  std::int64_t nr = 0, ns = 0;
  std::uint64_t band = 0;  // the predicate |r.key - s.key| <= band (0: the equi-join)
  int threads = 0;         // CPU threads of the _mt variants (0: every core)
  int radix_bits = 0;      // hash join partitions: 2^radix_bits (0: the join's own choice)
  std::vector<cpu::join::Pair>* host_out = nullptr;  // the materialised (rid_R, rid_S) pairs
};

// f(K{}) for the context's key type.
template <class F>
void with_key(int bytes, F&& f) {
  switch (bytes) {
    case 4: f(std::int32_t{}); break;
    case 8: f(std::int64_t{}); break;
    default: throw std::logic_error("join: no key type of " + std::to_string(bytes) + " bytes");
  }
}

// f(r, nr, s, ns) with the context's key columns at their type.
template <class F>
void on_host(const Ctx& c, F&& f) {
  with_key(c.key_bytes, [&](auto k) {
    using K = decltype(k);
    f(static_cast<const K*>(c.r), std::size_t(c.nr), static_cast<const K*>(c.s), std::size_t(c.ns));
  });
}

using Def = harness::Variant<Ctx>;
using Defs = harness::VariantTable<Def>;

void add_cpu_variants(Defs&);  // NINLJ (small points), SMJ and the radix hash join, one thread and all

}  // namespace lp::join_study
