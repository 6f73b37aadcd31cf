// Ours: the multireduce kernels (kernels/multireduce/) on the sales rows, through the rows'
// source, with 16-byte carry buckets (or the article's 32-bit words) for decimal128; a sort-based
// group-by for bucket sets beyond the chip; and `auto`, which decides from type, m and the ids.
#include "apps/harness/auto_record.cuh"
#include "gpu_query.cuh"
#include "kernels/decimal/auto_rule.hpp"
#include "kernels/multireduce/cluster_privatized.cuh"
#include "kernels/multireduce/global_atomics.cuh"
#include "kernels/multireduce/register_privatized.cuh"
#include "kernels/multireduce/shared_perthread.cuh"
#include "kernels/multireduce/shared_privatized.cuh"
#include "kernels/multireduce/sort_global.cuh"

namespace lp::decimal_study {

namespace mr = lp::multireduce;
namespace kd = lp::decimal;

namespace {

template <class Op>
using Src = kd::SalesSource<Op>;

template <class Op>
int cluster_sets(const Ctx& c) {
  return mr::cluster_privatized_sets<Op, Src<Op>>(c.m, c.tune);
}

// The operator a regime may sum in narrower values and widen into Op's buckets afterwards:
// decimal64's two words from its 8-byte sticky sums (Sum64), where 8-byte values pay: the sorts
// move half the bytes, and spread ids in shared memory get twice the replicas (a compare-and-swap
// rarely retries there).
template <class Op>
struct Narrow {
  using type = Op;
};
template <>
struct Narrow<kd::Sum64Words> {
  using type = kd::Sum64;
};

template <class Src>
using op_of = typename std::decay_t<Src>::op_type;

// The narrow buckets at the front of the scratch (none where Op is its own narrow form), then rest.
template <class Op>
std::size_t narrow_bytes(const Ctx& c, std::size_t rest) {
  using S = typename Narrow<Op>::type;
  lp::Carve k(nullptr);
  if constexpr (!std::is_same_v<S, Op>) k.take<typename S::value_type>(c.m);
  return k.used() + rest;
}

// body(ctx, source, buckets) sums into the narrow operator's buckets, then they are widened into
// out; where Op is its own narrow form, body sums into out.
template <class Op, class Body>
void in_narrow(Ctx& c, typename Op::value_type* out, Body&& body) {
  using S = typename Narrow<Op>::type;
  if constexpr (std::is_same_v<S, Op>) {
    body(c, source<Op>(c), out);
  } else {
    lp::Carve k(c.scratch);
    auto* narrow = k.take<typename S::value_type>(c.m);
    Ctx sub = c;
    sub.scratch = k.rest(), sub.scratch_bytes = c.scratch_bytes - k.used();
    body(sub, source<S>(c), narrow);
    kd::widen<Op, S>(narrow, c.m, out, c.stream);
  }
}

// sort_reduce: the products as a column, then the thesis's sort_global (radix sort by product id,
// segmented reduce of the runs): the partition-based group-by's answer to bucket sets that no
// chip holds (each bucket written once, every access sequential).
template <class Op>
std::size_t sort_reduce_bytes(const Ctx& c) {
  using S = typename Narrow<Op>::type;
  return narrow_bytes<Op>(c, products_bytes<S>(c, mr::sort_global_scratch_bytes<S>(c.n, c.m, c.tune)));
}

template <class Op>
void sort_reduce(Ctx& c) {
  gpu_query<Op>(c, [&](const Src<Op>&, typename Op::value_type* out) {
    in_narrow<Op>(c, out, [&](Ctx& sc, const auto& src, auto* buckets) {
      with_products(sc, src, [&](const auto* products, void* rest, std::size_t rest_bytes) {
        mr::sort_global<op_of<decltype(src)>>(c.d_labels, products, c.n, c.m, buckets, rest, rest_bytes, c.tune, c.stream);
      });
    });
  });
}

namespace ar = kd::auto_rule;
using ar::Plan;

// What the host knows of the point for auto's decision table (kernels/decimal/auto_rule.hpp).
template <class Op>
ar::Sizes sizes_of(const Ctx& c) {
  using T = typename Op::value_type;
  using N = typename Narrow<Op>::type::value_type;
  ar::Sizes s;
  s.kind = c.type == Type::Double ? ar::Kind::Double : c.type == Type::Decimal64 ? ar::Kind::Decimal64 : ar::Kind::Decimal128;
  s.n = c.n;
  s.m = c.m;
  s.bucket_bytes = sizeof(T);
  s.narrow_bytes = sizeof(N);
  const auto wide = mr::shared_privatized_plan<T>(c.n, c.m, c.tune), narrow = mr::shared_privatized_plan<N>(c.n, c.m, c.tune);
  s.shared = wide.copies > 0;
  s.shared_one_window = s.shared && wide.parts == 1;
  s.shared_narrow = !std::is_same_v<N, T> && narrow.copies > 0;
  s.narrow_one_window = s.shared_narrow && narrow.parts == 1;
  s.cluster = mr::cluster_plan<T>(c.m, c.tune).cluster > 0;
  s.perthread = mr::shared_perthread_rows_unsupported(c.n, c.m, sizeof(T), c.tune).empty();
  s.int_counts = c.n <= (std::int64_t(1) << 31) - 1;
  s.l2_bytes = double(mr::l2_bytes());
  return s;
}

template <class Op>
std::size_t plan_scratch(Plan r, const Ctx& c) {
  using T = typename Op::value_type;
  using N = typename Narrow<Op>::type::value_type;
  switch (r) {
    case Plan::Shared: return mr::shared_privatized_scratch_bytes<T>(c.n, c.m, c.tune);
    case Plan::SharedNarrow: return narrow_bytes<Op>(c, mr::shared_privatized_scratch_bytes<N>(c.n, c.m, c.tune));
    case Plan::Cluster: return mr::cluster_privatized_scratch_bytes<T>(c.m, cluster_sets<Op>(c));
    case Plan::Global:
    case Plan::Register:
    case Plan::PerThread: return 0;
    default:
      if constexpr (std::is_same_v<Op, kd::Sum128Words>) return 0;
      else return sort_reduce_bytes<Op>(c);
  }
}

// One plan on stream `s` with `bytes` of the scratch.
template <class Op>
void run_plan(Plan r, const Ctx& in, cudaStream_t s, std::size_t bytes) {
  Ctx c = in;
  c.stream = s;
  c.scratch_bytes = bytes;
  switch (r) {
    case Plan::Shared:
      return gpu_query<Op>(c, [&](const Src<Op>& src, auto* out) { mr::shared_privatized<Op>(src, c.n, c.m, out, c.scratch, c.tune, c.stream); });
    case Plan::SharedNarrow:
      return gpu_query<Op>(c, [&](const Src<Op>&, auto* out) {
        in_narrow<Op>(c, out, [&](Ctx& sc, const auto& src, auto* buckets) {
          mr::shared_privatized<op_of<decltype(src)>>(src, c.n, c.m, buckets, sc.scratch, c.tune, c.stream);
        });
      });
    case Plan::Cluster:
      return gpu_query<Op>(c, [&](const Src<Op>& src, auto* out) {
        mr::cluster_privatized<Op>(src, c.n, c.m, out, c.scratch, c.scratch_bytes, c.tune, c.stream);
      });
    case Plan::Global:
      return gpu_query<Op>(c, [&](const Src<Op>& src, auto* out) { mr::global_atomics<Op, true>(src, c.n, c.m, out, c.stream); });
    case Plan::Register:
      return gpu_query<Op>(c, [&](const Src<Op>& src, auto* out) { mr::register_privatized<Op>(src, c.n, c.m, out, c.stream); });
    case Plan::PerThread:
      return gpu_query<Op>(c, [&](const Src<Op>& src, auto* out) { mr::shared_perthread_rows<Op>(src, c.n, c.m, out, c.tune, c.stream); });
    default:
      // The words' 32-byte values are no use to a sort (it moves values): carry buckets only.
      if constexpr (std::is_same_v<Op, kd::Sum128Words>) throw std::logic_error("decimal: sort_reduce sorts 16-byte values");
      else return sort_reduce<Op>(c);
  }
}

// A variant that runs one plan with the given buckets.
Def plan_variant(std::string name, std::string description, Plan r, Buckets b, std::function<std::string(const Ctx&)> unsupported) {
  return {std::move(name), harness::VariantKind::Ours, std::move(description), {b}, std::move(unsupported),
          [r, b](const Ctx& c) { return for_op<std::size_t>(c.type, b, [&](auto op) { return plan_scratch<decltype(op)>(r, c); }); },
          [r, b](Ctx& c) { with_op(c.type, b, [&](auto op) { run_plan<decltype(op)>(r, c, c.stream, c.scratch_bytes); }); }};
}

// auto: the plan by sizes where they settle it; else the profile pass over the product ids decides
// on the device and runs the plan inside one graph (kernels/common/auto_launch.cuh).
template <class Op>
void run_auto(Ctx& c) {
  const std::string tag = std::string("decimal/auto/") + std::to_string(int(c.type));
  profile::run_auto(ar::Rule{sizes_of<Op>(c)},
                    plan_key(tag.c_str(), c.d_labels, c.d_price, c.d_price_f, c.d_qty, c.d_buckets, c.d_null, c.d_flags, c.lim, c.tune),
                    profile::Columns<std::uint32_t>{c.d_labels, c.n, c.m}, c.scratch, c.scratch_bytes,
                    [&c](Plan p, cudaStream_t s, std::size_t bytes) { run_plan<Op>(p, c, s, bytes); }, c.stream);
}

}  // namespace

harness::Params auto_metrics(const Ctx& c) {
  return for_op<harness::Params>(c.type, Buckets::Default, [&](auto op) {
    return harness::auto_record(ar::Rule{sizes_of<decltype(op)>(c)}, profile::Columns<std::uint32_t>{c.d_labels, c.n, c.m}, c.scratch, c.scratch_bytes);
  });
}

void add_gpu_variants(Defs& d) {
  d.add({"auto", harness::VariantKind::Ours,
         "ours: global atomics for few rows, register_privatized for 1 product (decimal64 and double: up to 2), shared_perthread beyond "
         "while each thread's buckets take at most 384 bytes, shared_privatized for small bucket sets; beyond, an input profile of the product ids on "
         "the device picks shared_privatized, shared_narrow (decimal64), cluster_privatized, global_atomics or sort_reduce inside "
         "one CUDA graph (kernels/decimal/auto_rule.hpp)",
         {Buckets::Default},
         {},
         [](const Ctx& c) {
           return for_op<std::size_t>(c.type, Buckets::Default, [&](auto op) {
             using Op = decltype(op);
             return profile::auto_scratch_bytes(sizes_of<Op>(c), [&c](Plan p) { return plan_scratch<Op>(p, c); });
           });
         },
         [](Ctx& c) { with_op(c.type, Buckets::Default, [&](auto op) { run_auto<decltype(op)>(c); }); }});
  auto shared_fits = [](Buckets b) {
    return [b](const Ctx& c) {
      const bool fits = for_op<bool>(c.type, b, [&](auto op) {
        return mr::shared_privatized_plan<typename decltype(op)::value_type>(c.n, c.m, c.tune).copies > 0;
      });
      return fits ? std::string() : std::string("a quarter of the bucket set exceeds a block's shared memory");
    };
  };
  // A bucket layout of one type only: unsupported for the others, else as shared_fits.
  auto shared_fits_for = [shared_fits](Buckets b, Type only, const char* why) {
    return [fits = shared_fits(b), only, why](const Ctx& c) { return c.type == only ? fits(c) : std::string(why); };
  };
  d.add(plan_variant("shared_privatized",
                       "ours: per-block bucket sets in shared memory (multireduce's shared_privatized on the rows), decimal128 in 16-byte buckets "
                       "whose low word carries into the high one",
                       Plan::Shared, Buckets::Default, shared_fits(Buckets::Default)));
  d.add(plan_variant("register_privatized",
                       "ours: at most 16 products, every thread's buckets in registers (an input goes to its bucket by predicated adds, "
                       "no atomic an update), folded across the block and added with one atomic a block",
                       Plan::Register, Buckets::Default, [](const Ctx& c) {
                         return mr::register_privatized_fits(c.m) ? std::string() : std::string("more than 16 products: registers hold 16 buckets");
                       }));
  d.add(plan_variant("shared_perthread",
                       "ours: each thread's buckets in shared memory (the thesis's per-thread sets, 4.3.6, over the rows), every update "
                       "a plain load, add and store on the thread's own bucket: no atomic, no predicated add a bucket",
                       Plan::PerThread, Buckets::Default, [](const Ctx& c) {
                         return for_op<std::string>(c.type, Buckets::Default, [&](auto op) {
                           return mr::shared_perthread_rows_unsupported(c.n, c.m, sizeof(typename decltype(op)::value_type), c.tune);
                         });
                       }));
  d.add(plan_variant("shared_words",
                       "ours, decimal128: the same with the article's 32-bit words, each summed in a 64-bit counter without carries (32-byte "
                       "buckets, plain atomics), the carries resolved once per group",
                       Plan::Shared, Buckets::Words, shared_fits_for(Buckets::Words, Type::Decimal128, "32-bit words: decimal128 only")));
  d.add(plan_variant("shared_narrow",
                       "ours, decimal64: shared_privatized with 8-byte buckets and a sticky overflow marker, each update a compare-and-swap "
                       "(an engine's decimal64 sum; the words' plain atomics are what the other decimal64 variants run)",
                       Plan::Shared, Buckets::Narrow, shared_fits_for(Buckets::Narrow, Type::Decimal64, "8-byte sticky buckets: decimal64 only")));
  d.add(plan_variant("cluster_privatized", "ours (Hopper): one bucket set per thread-block cluster in distributed shared memory",
                       Plan::Cluster, Buckets::Default, [](const Ctx& c) {
                         const bool fits = for_op<bool>(c.type, Buckets::Default, [&](auto op) {
                           return mr::cluster_plan<typename decltype(op)::value_type>(c.m, c.tune).cluster > 0;
                         });
                         return fits ? std::string() : std::string("the bucket set exceeds 16 blocks' shared memory");
                       }));
  d.add(plan_variant("global_atomics", "ours: one global atomic per row on its product's bucket (one per warp where 32 rows share a product)",
                       Plan::Global, Buckets::Default, {}));
  d.add(plan_variant("sort_reduce", "ours: the products as a column, radix sort by product id, segmented reduce (multireduce's sort_global)",
                       Plan::Sort, Buckets::Default, [](const Ctx& c) {
                         return c.n > (std::int64_t(1) << 31) - 1 ? std::string("sort_global counts in int") : std::string();
                       }));
}

}  // namespace lp::decimal_study
