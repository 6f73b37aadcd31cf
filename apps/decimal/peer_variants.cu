// The peer a user would compose from CUB: the products as a column, then the multireduce study's
// CUB by-key pipeline (radix sort by product id, cub::DeviceReduce::ReduceByKey on the values, the
// runs written to their buckets); decimal64 in 8 bytes with the sticky overflow marker, as a user
// would write it.
#include "gpu_query.cuh"
#include "kernels/multireduce/cub_sort_reduce.cuh"

namespace lp::decimal_study {

namespace mr = lp::multireduce;
namespace kd = lp::decimal;

namespace {

template <class Op>
std::size_t cub_bytes(const Ctx& c) {
  return products_bytes<Op>(c, mr::cub_sort_reduce_scratch_bytes<Op>(c.n, c.m));
}

template <class Op>
void cub_sort_reduce_by_key(Ctx& c) {
  gpu_query<Op>(c, [&](const kd::SalesSource<Op>& src, typename Op::value_type* out) {
    with_products(c, src, [&](const auto* products, void* rest, std::size_t rest_bytes) {
      mr::cub_sort_reduce_by_key<Op>(c.d_labels, products, c.n, c.m, out, rest, rest_bytes, c.stream);
    });
  });
}

}  // namespace

void add_peer_variants(Defs& d) {
  d.add({"cub_sort_reduce_by_key", harness::VariantKind::Peer,
         "CUB: the products (__int128, int64 or double) as a column, cub::DeviceRadixSort::SortPairs by ceil(log2 m) bits, "
         "cub::DeviceReduce::ReduceByKey, the runs scattered to their products",
         {Buckets::Narrow},
         [](const Ctx& c) { return c.n > (std::int64_t(1) << 31) - 1 ? std::string("CUB's by-key counts runs in int") : std::string(); },
         [](const Ctx& c) { return for_op<std::size_t>(c.type, Buckets::Narrow, [&](auto op) { return cub_bytes<decltype(op)>(c); }); },
         [](Ctx& c) { with_op(c.type, Buckets::Narrow, [&](auto op) { cub_sort_reduce_by_key<decltype(op)>(c); }); }});
}

}  // namespace lp::decimal_study
