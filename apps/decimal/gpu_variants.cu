// Ours: the multireduce kernels (kernels/multireduce/) on the sales rows, through the rows'
// source, with 16-byte carry buckets (or the article's 32-bit words) for decimal128; a sort-based
// group-by for bucket sets beyond the chip; and `auto`, which picks by type and m.
#include "gpu_query.cuh"
#include "kernels/multireduce/cluster_privatized.cuh"
#include "kernels/multireduce/global_atomics.cuh"
#include "kernels/multireduce/label_look.cuh"
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

// The regimes auto picks between, from the H100 sweeps (results/h100/decimal/README.md).
// - double has native atomics: a block's bucket set in shared memory wherever it fits, global
//   atomics while the buckets fit L2, the sort beyond.
// - decimal128's carry updates are returning atomics, slow where updates pile up on one address:
//   shared memory only while the set is small (4 KiB), then a look at the labels (label_look.cuh):
//   shared memory up to 16 KiB for spread labels, a cluster's set while 16 blocks hold it, and
//   beyond that global atomics for spread labels and the sort where labels repeat (zipf), whose
//   hot buckets the atomics serialise on.
// - decimal64's words: shared memory up to 4 KiB of words, then the look: spread ids in 8-byte
//   shared buckets (shared_narrow) up to 128 KiB, a cluster's set up to 1 MiB of words, global
//   atomics within L2, the sort beyond;
//   repeating ids a cluster's set, then the sort (hot global words serialise even plain atomics).
enum class Regime { Shared, SharedNarrow, Cluster, Global, Sort, Look };

template <class Op>
Regime choose(const Ctx& c) {
  using T = typename Op::value_type;
  const bool shared = mr::shared_privatized_plan<T>(c.n, c.m, c.tune).copies > 0;
  if constexpr (std::is_same_v<Op, kd::SumDouble>) {
    if (shared) return Regime::Shared;
    return double(c.m) * sizeof(T) <= 0.75 * double(mr::l2_bytes()) ? Regime::Global : Regime::Sort;
  } else {
    return shared && double(c.m) * sizeof(T) <= 4096 ? Regime::Shared : Regime::Look;
  }
}

template <class Op>
Regime after_look(const mr::LabelLook& look, const Ctx& c) {
  using T = typename Op::value_type;
  const bool repeats = look.repeats(c.m);
  const bool cluster = mr::cluster_plan<T>(c.m, c.tune).cluster > 0;
  if constexpr (std::is_same_v<Op, kd::Sum64Words>) {
    using N = typename Narrow<Op>::type::value_type;
    if (repeats) return cluster ? Regime::Cluster : Regime::Sort;
    if (double(c.m) * sizeof(N) <= 131072 && mr::shared_privatized_plan<N>(c.n, c.m, c.tune).copies > 0) return Regime::SharedNarrow;
    if (cluster && double(c.m) * sizeof(T) <= 1048576) return Regime::Cluster;
    return double(c.m) * sizeof(T) <= 0.75 * double(mr::l2_bytes()) ? Regime::Global : Regime::Sort;
  } else {
    if (!repeats && double(c.m) * sizeof(T) <= 16384 && mr::shared_privatized_plan<T>(c.n, c.m, c.tune).copies > 0) return Regime::Shared;
    if (cluster) return Regime::Cluster;
    return repeats ? Regime::Sort : Regime::Global;
  }
}

template <class Op>
Regime resolve(Regime r, const Ctx& c) {
  return r == Regime::Look ? after_look<Op>(mr::look_at_labels(c.d_labels, c.n, c.stream), c) : r;
}

const char* regime_name(Regime r) {
  switch (r) {
    case Regime::Shared: return "shared_privatized";
    case Regime::SharedNarrow: return "shared_narrow";
    case Regime::Cluster: return "cluster_privatized";
    case Regime::Global: return "global_atomics";
    case Regime::Sort: return "sort_reduce";
    default: return "look";
  }
}

template <class Op>
std::size_t scratch_for(Regime r, const Ctx& c) {
  using T = typename Op::value_type;
  using N = typename Narrow<Op>::type::value_type;
  switch (r) {
    case Regime::Look: {  // whichever the look picks
      std::size_t bytes = scratch_for<Op>(Regime::Sort, c);
      if (mr::shared_privatized_plan<T>(c.n, c.m, c.tune).copies > 0) bytes = std::max(bytes, scratch_for<Op>(Regime::Shared, c));
      if (mr::shared_privatized_plan<N>(c.n, c.m, c.tune).copies > 0) bytes = std::max(bytes, scratch_for<Op>(Regime::SharedNarrow, c));
      if (mr::cluster_plan<T>(c.m, c.tune).cluster > 0) bytes = std::max(bytes, scratch_for<Op>(Regime::Cluster, c));
      return bytes;
    }
    case Regime::Shared: return mr::shared_privatized_scratch_bytes<T>(c.n, c.m, c.tune);
    case Regime::SharedNarrow: return narrow_bytes<Op>(c, mr::shared_privatized_scratch_bytes<N>(c.n, c.m, c.tune));
    case Regime::Cluster: return mr::cluster_privatized_scratch_bytes<T>(c.m, cluster_sets<Op>(c));
    case Regime::Global: return 0;
    default:
      if constexpr (std::is_same_v<Op, kd::Sum128Words>) return 0;
      else return sort_reduce_bytes<Op>(c);
  }
}

template <class Op>
void run_regime(Regime r, Ctx& c) {
  switch (resolve<Op>(r, c)) {
    case Regime::Shared:
      return gpu_query<Op>(c, [&](const Src<Op>& s, auto* out) { mr::shared_privatized<Op>(s, c.n, c.m, out, c.scratch, c.tune, c.stream); });
    case Regime::SharedNarrow:
      return gpu_query<Op>(c, [&](const Src<Op>&, auto* out) {
        in_narrow<Op>(c, out, [&](Ctx& sc, const auto& s, auto* buckets) {
          mr::shared_privatized<op_of<decltype(s)>>(s, c.n, c.m, buckets, sc.scratch, c.tune, c.stream);
        });
      });
    case Regime::Cluster:
      return gpu_query<Op>(c, [&](const Src<Op>& s, auto* out) {
        mr::cluster_privatized<Op>(s, c.n, c.m, out, c.scratch, c.scratch_bytes, c.tune, c.stream);
      });
    case Regime::Global:
      return gpu_query<Op>(c, [&](const Src<Op>& s, auto* out) { mr::global_atomics<Op, true>(s, c.n, c.m, out, c.stream); });
    default:
      // The words' 32-byte values are no use to a sort (it moves values): carry buckets only.
      if constexpr (std::is_same_v<Op, kd::Sum128Words>) throw std::logic_error("decimal: sort_reduce sorts 16-byte values");
      else return sort_reduce<Op>(c);
  }
}

// A variant that runs one regime with the given buckets.
Def regime_variant(std::string name, std::string description, Regime r, Buckets b, std::function<std::string(const Ctx&)> unsupported) {
  return {std::move(name), harness::VariantKind::Ours, std::move(description), {b, {}}, std::move(unsupported),
          [r, b](const Ctx& c) { return for_op<std::size_t>(c.type, b, [&](auto op) { return scratch_for<decltype(op)>(r, c); }); },
          [r, b](Ctx& c) { with_op(c.type, b, [&](auto op) { run_regime<decltype(op)>(r, c); }); }};
}

}  // namespace

void add_gpu_variants(Defs& d) {
  d.add({"auto", harness::VariantKind::Ours,
         "ours: by type, m and a look at the labels: shared_privatized, shared_narrow (decimal64), cluster_privatized, global_atomics or sort_reduce "
         "(see gpu_variants.cu)",
         {Buckets::Default,
          [](const Ctx& c) {
            return std::string(regime_name(
                for_op<Regime>(c.type, Buckets::Default, [&](auto op) { return resolve<decltype(op)>(choose<decltype(op)>(c), c); })));
          }},
         {},
         [](const Ctx& c) {
           return for_op<std::size_t>(c.type, Buckets::Default, [&](auto op) { return scratch_for<decltype(op)>(choose<decltype(op)>(c), c); });
         },
         [](Ctx& c) { with_op(c.type, Buckets::Default, [&](auto op) { run_regime<decltype(op)>(choose<decltype(op)>(c), c); }); }});
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
  d.add(regime_variant("shared_privatized",
                       "ours: per-block bucket sets in shared memory (multireduce's shared_privatized on the rows), decimal128 in 16-byte buckets "
                       "whose low word carries into the high one",
                       Regime::Shared, Buckets::Default, shared_fits(Buckets::Default)));
  d.add(regime_variant("shared_words",
                       "ours, decimal128: the same with the article's 32-bit words, each summed in a 64-bit counter without carries (32-byte "
                       "buckets, plain atomics), the carries resolved once per group",
                       Regime::Shared, Buckets::Words, shared_fits_for(Buckets::Words, Type::Decimal128, "32-bit words: decimal128 only")));
  d.add(regime_variant("shared_narrow",
                       "ours, decimal64: shared_privatized with 8-byte buckets and a sticky overflow marker, each update a compare-and-swap "
                       "(an engine's decimal64 sum; the words' plain atomics are what the other decimal64 variants run)",
                       Regime::Shared, Buckets::Narrow, shared_fits_for(Buckets::Narrow, Type::Decimal64, "8-byte sticky buckets: decimal64 only")));
  d.add(regime_variant("cluster_privatized", "ours (Hopper): one bucket set per thread-block cluster in distributed shared memory",
                       Regime::Cluster, Buckets::Default, [](const Ctx& c) {
                         const bool fits = for_op<bool>(c.type, Buckets::Default, [&](auto op) {
                           return mr::cluster_plan<typename decltype(op)::value_type>(c.m, c.tune).cluster > 0;
                         });
                         return fits ? std::string() : std::string("the bucket set exceeds 16 blocks' shared memory");
                       }));
  d.add(regime_variant("global_atomics", "ours: one global atomic per row on its product's bucket (one per warp where 32 rows share a product)",
                       Regime::Global, Buckets::Default, {}));
  d.add(regime_variant("sort_reduce", "ours: the products as a column, radix sort by product id, segmented reduce (multireduce's sort_global)",
                       Regime::Sort, Buckets::Default, [](const Ctx& c) {
                         return c.n > (std::int64_t(1) << 31) - 1 ? std::string("sort_global counts in int") : std::string();
                       }));
}

}  // namespace lp::decimal_study
