// The join study's variants, in the harness's table (framework.hpp). Each family (a .cu file here)
// adds its definitions; the CPU joins live in cpu_reference/join/.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "apps/harness/framework.hpp"
#include "cpu_reference/join/join.hpp"
#include "kernels/join/common.cuh"

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
  void* workspace = nullptr;  // the CPU joins' cpu::join::Workspace<K>, kept by the point across runs
  // GPU variants: the key columns on the device, the output (room for `capacity` pairs, the
  // reference's count, allocated outside the timed region) and scratch.
  const void* d_r = nullptr;
  const void* d_s = nullptr;
  lp::join::RidPair* d_out = nullptr;
  std::uint64_t capacity = 0;
  std::uint64_t pairs = 0;  // the reference's count: what a variant's supported-when may check
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;
  cudaStream_t stream = nullptr;
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

// f(r, nr, s, ns) with the device key columns at their type: a GPU launcher.
template <class F>
void on_device(const Ctx& c, F&& f) {
  with_key(c.key_bytes, [&](auto k) {
    using K = decltype(k);
    f(static_cast<const K*>(c.d_r), c.nr, static_cast<const K*>(c.d_s), c.ns);
  });
}

// The key type's size-dependent answer of f<K>() (scratch sizes).
template <class R, class F>
R for_key(int bytes, F&& f) {
  R out{};
  with_key(bytes, [&](auto k) { out = f(k); });
  return out;
}

// f(r, nr, s, ns, workspace) with the context's key columns and the CPU joins' workspace at their type.
template <class F>
void on_host(const Ctx& c, F&& f) {
  with_key(c.key_bytes, [&](auto k) {
    using K = decltype(k);
    f(static_cast<const K*>(c.r), std::size_t(c.nr), static_cast<const K*>(c.s), std::size_t(c.ns), static_cast<cpu::join::Workspace<K>*>(c.workspace));
  });
}

// The equi-joins' supported-when: "" for band 0, else why not (the band is NINLJ's predicate).
inline std::string equi_only(const Ctx& c) {
  return c.band == 0 ? std::string() : std::string("an equi-join (band > 0 is NINLJ's predicate)");
}

// The join's own per-variant facts.
struct Props {
  std::function<void(Ctx&)> setup;            // untimed set-up before the runs (smj_presorted's sort)
  std::function<int(const Ctx&)> radix_bits;  // the partition bits it uses, reported as a metric
};

using Def = harness::Variant<Ctx, Props>;
using Defs = harness::VariantTable<Def>;

// Every variant of the study (join_study.cu). `auto` runs its plans through it: each plan is a
// variant, with that variant's own limits, scratch and launcher.
const Defs& table();

// The record's account of auto at a point: the plan it ran and the profile it decided from.
harness::Params auto_metrics(const Ctx&);

int hj_bits(const Ctx&);  // the GPU HJ's partition bits at this point (paper_variants.cu)

void add_paper_variants(Defs&);   // He et al.'s GPU joins: NINLJ, INLJ (CSS-tree, binary search), SMJ, the radix HJ
void add_modern_variants(Defs&);  // beyond the paper: one global hash table, SMJ on pre-sorted inputs, auto
void add_cpu_variants(Defs&);  // NINLJ (small points), SMJ and the radix hash join, one thread and all

}  // namespace lp::join_study
