// The primitives study's variants, in the harness's table (framework.hpp). Each family (a .cu file
// here) adds its definitions; a variant implements one primitive (or scatter and gather both) and
// refuses the points of the others through its `unsupported` predicate.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <string>
#include <vector>

#include "apps/harness/framework.hpp"

namespace lp::primitives_study {

// He et al. 2008's primitives (3.1), the axis `op`.
enum class Op { Map, Scatter, Gather, Scan, Split, Sort };

inline const char* to_string(Op op) {
  switch (op) {
    case Op::Map: return "map";
    case Op::Scatter: return "scatter";
    case Op::Gather: return "gather";
    case Op::Scan: return "scan";
    case Op::Split: return "split";
    case Op::Sort: return "sort";
  }
  return "?";
}

inline const std::vector<std::string>& op_names() {
  static const std::vector<std::string> names = {"map", "scatter", "gather", "scan", "split", "sort"};
  return names;
}

// The columns a primitive reads (those of other primitives null): keys (map, sort), rids (sort),
// tuple words (scatter, gather, split), locations (scatter, gather), counts (scan).
struct Inputs {
  const std::uint32_t* keys = nullptr;
  const std::uint32_t* rids = nullptr;
  const std::uint64_t* tuples = nullptr;
  const std::uint32_t* loc = nullptr;
  const std::uint32_t* counts = nullptr;
};

// What it writes, n of each: words (map: partition ids; scan: sums; sort: keys), rids (sort),
// tuples (scatter, gather, split).
struct Outputs {
  std::uint32_t* words = nullptr;
  std::uint32_t* rids = nullptr;
  std::uint64_t* tuples = nullptr;
};

// What a run sees: the primitive and its sizes, the inputs and outputs on the host (the CPU
// variants) and on the device (the GPU ones), scratch, the stream.
struct Ctx {
  Op op = Op::Map;
  std::int64_t n = 0;
  std::uint32_t fanout = 2;  // map and split: partition_of(key) = hash(key) % fanout
  int split_tile = 0;        // split_staged's tile in tuples (0: its default by the fanout)
  Inputs host, dev;
  Outputs host_out, dev_out;
  std::vector<std::uint64_t>* host_scratch = nullptr;  // the CPU split's cursors, the CPU sort's words; kept by the point across runs
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;
  cudaStream_t stream = nullptr;
};

// A variant's supported-when: "" at a point of its primitive, else what it is ("a split primitive").
inline std::string only(const Ctx& c, Op op) {
  return c.op == op ? std::string() : std::string("a ") + to_string(op) + " primitive";
}
inline std::string scatter_or_gather(const Ctx& c) {
  return c.op == Op::Scatter || c.op == Op::Gather ? std::string() : std::string("a scatter and gather primitive");
}

using Def = harness::Variant<Ctx>;
using Defs = harness::VariantTable<Def>;

void add_ours_variants(Defs&);  // our map kernel, He et al.'s multi-pass scatter/gather, their split (Algorithm 1)
void add_peer_variants(Defs&);  // Thrust and CUB: transform, scatter, gather, scans, the sort-based split, sorts
void add_cpu_variants(Defs&);   // every primitive on one CPU thread

}  // namespace lp::primitives_study
