// The decimal study's variants, in the harness's table (framework.hpp). The query's type (axis
// `type`) is chosen at run time: a launcher gets its operator back through with_op.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <cuda_runtime.h>

#include "apps/harness/framework.hpp"
#include "cpu_reference/decimal/group_sum.hpp"
#include "kernels/decimal/sum_ops.hpp"
#include "kernels/multireduce/common.cuh"

namespace lp::decimal_study {

using lp::decimal::int128;
namespace cd = lp::cpu::decimal;

enum class Type { Decimal128, Decimal64, Double };

struct Ctx {
  Type type = Type::Decimal128;
  bool fail_on_overflow = false;  // on_overflow "fail": any null row or group fails the query
  cd::Limits lim;                 // the product and sum types' limits (Spark's rules, capped at 18 digits for decimal64)
  std::int64_t n = 0;
  std::uint32_t m = 0;
  int threads = 0;  // CPU threads of cpu_mt (0: every core)
  cd::Rows rows;    // the host columns
  // CPU variants' outputs (the totals in __int128 or double, the nulls, the verdict) and scratch
  std::vector<int128>* host_total = nullptr;
  std::vector<double>* host_total_f = nullptr;
  std::vector<std::uint8_t>* host_null = nullptr;
  bool* host_failed = nullptr;
  void* host_scratch = nullptr;
  // GPU: the columns, the buckets (the operator's value type, m of them), the nulls, the flags word
  // (kernels/decimal/sales_source.cuh), scratch
  const std::uint32_t* d_labels = nullptr;
  const std::int64_t* d_price = nullptr;
  const double* d_price_f = nullptr;
  const std::int32_t* d_qty = nullptr;
  void* d_buckets = nullptr;
  std::uint8_t* d_null = nullptr;
  unsigned* d_flags = nullptr;
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;
  lp::multireduce::Tuning tune;
  cudaStream_t stream = nullptr;
};

// The operator a GPU variant runs for a type. Default: decimal128 in 16-byte carry buckets,
// decimal64 as two 32-bit halves in 64-bit counters (Sum64Words), double. Words: decimal128 in the
// article's four 32-bit words. Narrow: decimal64 in 8 bytes with a sticky overflow marker (Sum64:
// what an engine's decimal64 sum does, a compare-and-swap per update, and half the bytes to move
// for the sorts).
enum class Buckets { Default, Words, Narrow };

template <class F>
void with_op(Type t, Buckets b, F&& f) {
  switch (t) {
    case Type::Decimal128:
      if (b == Buckets::Words) return f(lp::decimal::Sum128Words{});
      return f(lp::decimal::Sum128{});
    case Type::Decimal64:
      if (b == Buckets::Narrow) return f(lp::decimal::Sum64{});
      return f(lp::decimal::Sum64Words{});
    case Type::Double: return f(lp::decimal::SumDouble{});
  }
  throw std::logic_error("decimal: no such type");
}

template <class R, class F>
R for_op(Type t, Buckets b, F&& f) {
  R out{};
  with_op(t, b, [&](auto op) { out = f(op); });
  return out;
}

struct Props {
  Buckets buckets = Buckets::Default;  // the bucket layout it runs
};

using Def = harness::Variant<Ctx, Props>;
using Defs = harness::VariantTable<Def>;

void add_gpu_variants(Defs&);   // ours: the multireduce kernels on the sales rows, sort_reduce, auto
void add_peer_variants(Defs&);  // CUB: sort the products by product id, reduce-by-key
void add_cpu_variants(Defs&);   // sequential and multithreaded, the sums in __int128 (or double)

// The record's account of auto at a point: the plan it ran and the profile it decided from.
harness::Params auto_metrics(const Ctx&);

}  // namespace lp::decimal_study
