// The sales rows as a multireduce source (kernels/multireduce/common.cuh: quad, label, value):
// product id, price (decimal64 unscaled, or double), quantity (int32). A row's value is the
// operator's product of price and quantity, computed where the kernel reads the row, so the
// multireduce kernels read 16 bytes a row and never a materialised product column. A row whose
// product overflows its type is null (Spark's CheckOverflow) and drops out of the sum; it also
// sets bit 0 of *flags, which the fail-on-overflow mode turns into a failed query.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>

#include "../multireduce/common.cuh"
#include "sum_ops.hpp"

namespace lp::decimal {

constexpr unsigned kNullRow = 1u, kNullGroup = 2u;  // bits of the query's flags word

template <class Op>
struct SalesSource {
  using op_type = Op;
  using T = typename Op::value_type;
  using P = typename Op::price_type;
  const std::uint32_t* labels;
  const P* price;
  const std::int32_t* qty;
  int128 product_limit;  // |price × quantity| above it is null
  unsigned* flags;

  __device__ __forceinline__ T make(P p, std::int32_t q) const {
    bool null = false;
    const T v = Op::row(p, q, product_limit, &null);
    if (!null) return v;
    atomicOr(flags, kNullRow);  // rare: the generator's overflowing rows are a small fraction
    return Op::identity();
  }
  __device__ __forceinline__ multireduce::Quad<T> quad(std::int64_t q) const {
    multireduce::Quad<T> out;
    const uint4 l = __ldg(reinterpret_cast<const uint4*>(labels) + q);
    const int4 n = __ldg(reinterpret_cast<const int4*>(qty) + q);
    static_assert(sizeof(P) == 8, "8-byte prices: four are two 16-byte loads");
    uint4 w[2];
    w[0] = __ldg(reinterpret_cast<const uint4*>(price) + 2 * q);
    w[1] = __ldg(reinterpret_cast<const uint4*>(price) + 2 * q + 1);
    P p[4];
    memcpy(p, w, sizeof p);
    out.label[0] = l.x, out.label[1] = l.y, out.label[2] = l.z, out.label[3] = l.w;
    out.value[0] = make(p[0], n.x);
    out.value[1] = make(p[1], n.y);
    out.value[2] = make(p[2], n.z);
    out.value[3] = make(p[3], n.w);
    return out;
  }
  __device__ __forceinline__ std::uint32_t label(std::int64_t i) const { return __ldg(labels + i); }
  __device__ __forceinline__ T value(std::int64_t i) const { return make(multireduce::ldg_any(price + i), __ldg(qty + i)); }
};

// The products as a column (for the sort-based group-bys, which move values, not rows).
template <class Op>
__global__ void materialize_kernel(const SalesSource<Op> src, std::int64_t n, typename Op::value_type* out) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    out[i] = src.value(i);
}

template <class Op>
void materialize(const SalesSource<Op>& src, std::int64_t n, typename Op::value_type* out, cudaStream_t s) {
  materialize_kernel<Op><<<multireduce::grid_for(n, 256, 8), 256, 0, s>>>(src, n, out);
  LP_CUDA_LAUNCH("materialize_kernel");
}

// Buckets summed in a narrow operator's values (Narrow::value_type) into a wide operator's layout,
// through Wide::widen (decimal64's sort path: 8-byte sums into the two words' buckets).
template <class Wide, class Narrow>
__global__ void widen_kernel(const typename Narrow::value_type* in, std::uint32_t m, typename Wide::value_type* out) {
  for (std::int64_t b = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; b < m; b += std::int64_t(gridDim.x) * blockDim.x)
    out[b] = Wide::widen(in[b]);
}

template <class Wide, class Narrow>
void widen(const typename Narrow::value_type* in, std::uint32_t m, typename Wide::value_type* out, cudaStream_t s) {
  widen_kernel<Wide, Narrow><<<multireduce::grid_for(m, 256, 8), 256, 0, s>>>(in, m, out);
  LP_CUDA_LAUNCH("widen_kernel");
}

// CheckOverflow on each group's total (the sum type's limit, or a decimal64 bucket's sticky
// marker): null[b] = 1 where it overflows, and bit 1 of *flags where any does. The buckets stay
// as they are: the host reads the totals from them through Op::total.
template <class Op>
__global__ void check_totals_kernel(const typename Op::value_type* buckets, std::uint32_t m, int128 sum_limit, std::uint8_t* null,
                                    unsigned* flags) {
  bool any = false;
  for (std::int64_t b = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; b < m; b += std::int64_t(gridDim.x) * blockDim.x) {
    const auto v = buckets[b];
    const bool over = Op::overflowed(v) || abs128(Op::total(v)) > sum_limit;
    null[b] = over;
    any |= over;
  }
  if (__any_sync(0xffffffffu, any) && (threadIdx.x & 31) == 0) atomicOr(flags, kNullGroup);
}

template <class Op>
void check_totals(const typename Op::value_type* buckets, std::uint32_t m, int128 sum_limit, std::uint8_t* null, unsigned* flags,
                  cudaStream_t s) {
  check_totals_kernel<Op><<<multireduce::grid_for(m, 256, 8), 256, 0, s>>>(buckets, m, sum_limit, null, flags);
  LP_CUDA_LAUNCH("check_totals_kernel");
}

}  // namespace lp::decimal
