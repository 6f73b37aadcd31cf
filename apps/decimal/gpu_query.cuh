// What every GPU variant of the decimal study does around its group-by: the flags word cleared,
// the rows handed to the kernels as a source (kernels/decimal/sales_source.cuh), and after the
// sums CheckOverflow on each group's total. All of it inside the timed region: it is the query.
#pragma once
#include <type_traits>

#include "apps/harness/device_buffer.hpp"
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

}  // namespace lp::decimal_study
