// What every GPU variant of the decimal study does around its group-by: the flags word cleared,
// the rows handed to the kernels as a source (kernels/decimal/sales_source.cuh), and after the
// sums CheckOverflow on each group's total. All of it inside the timed region: it is the query.
#pragma once
#include <type_traits>

#include "apps/harness/device_buffer.hpp"
#include "kernels/common/carve.hpp"
#include "kernels/decimal/sales_source.cuh"
#include "variant.hpp"

namespace lp::decimal_study {

template <class Op>
lp::decimal::SalesSource<Op> source(const Ctx& c) {
  if constexpr (std::is_same_v<typename Op::price_type, double>)
    return {c.d_labels, c.d_price_f, c.d_qty, c.lim.product, c.d_flags};
  else
    return {c.d_labels, c.d_price, c.d_qty, c.lim.product, c.d_flags};
}

// body(source, buckets) runs the group-by into the m buckets.
template <class Op, class Body>
void gpu_query(Ctx& c, Body&& body) {
  using T = typename Op::value_type;
  LP_CUDA(cudaMemsetAsync(c.d_flags, 0, sizeof(unsigned), c.stream));
  T* buckets = static_cast<T*>(c.d_buckets);
  body(source<Op>(c), buckets);
  if constexpr (!std::is_same_v<Op, lp::decimal::SumDouble>) lp::decimal::check_totals<Op>(buckets, c.m, c.lim.sum, c.d_null, c.d_flags, c.stream);
}

// The sort-based group-bys move values, not rows: the products as a column at the front of the
// scratch, then `rest` bytes for the sort. by_products(products, rest, rest_bytes) runs after the
// column is written.
template <class Op>
std::size_t products_bytes(const Ctx& c, std::size_t rest) {
  lp::Carve k(nullptr);
  k.take<typename Op::value_type>(std::size_t(c.n));
  return k.used() + rest;
}

template <class Op, class F>
void with_products(Ctx& c, const lp::decimal::SalesSource<Op>& src, F&& by_products) {
  lp::Carve k(c.scratch);
  auto* products = k.take<typename Op::value_type>(std::size_t(c.n));
  lp::decimal::materialize<Op>(src, c.n, products, c.stream);
  by_products(products, static_cast<void*>(k.rest()), c.scratch_bytes - k.used());
}

}  // namespace lp::decimal_study
