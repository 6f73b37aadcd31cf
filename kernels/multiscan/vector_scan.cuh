// Thesis 5.1: an ordinary scan over m-vectors (each input a one-hot vector: its value at its label,
// the identity elsewhere), each result read off at its own label; O(n * m) work, small m only.
// The scan is CUB's device scan on vectors of M >= m components.
#pragma once
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>
#include <thrust/iterator/transform_output_iterator.h>

#include <cub/device/device_scan.cuh>

#include "common.cuh"

namespace lp::multiscan {

namespace vector_scan_detail {

constexpr std::uint32_t kMaxBuckets = 32;

// A prefix vector and the label whose component a result reads.
template <class T, int M>
struct Tagged {
  T v[M];
  std::uint32_t label;
};

// Element i of the scanned sequence. Exclusive mode shifts the vectors by one: element i carries
// input i-1's one-hot vector and input i's label, so an inclusive scan of the elements yields, at
// i, the fold of inputs 0..i-1 tagged with label i.
template <class Op, int M>
struct MakeElement {
  using T = typename Op::value_type;
  const std::uint32_t* labels;
  const T* values;
  bool inclusive;
  __host__ __device__ Tagged<T, M> operator()(std::int64_t i) const {
    Tagged<T, M> e;
#pragma unroll
    for (int k = 0; k < M; ++k) e.v[k] = Op::identity();
    e.label = labels[i];
    const std::int64_t src = inclusive ? i : i - 1;
    if (src >= 0) {
      const std::uint32_t l = labels[src];
#pragma unroll
      for (int k = 0; k < M; ++k)
        if (std::uint32_t(k) == l) e.v[k] = values[src];
    }
    return e;
  }
};

// Component-wise, in order (non-commutative operators stay exact); the right operand's label.
template <class Op, int M>
struct VectorOp {
  using T = typename Op::value_type;
  __host__ __device__ Tagged<T, M> operator()(const Tagged<T, M>& a, const Tagged<T, M>& b) const {
    Tagged<T, M> r;
#pragma unroll
    for (int k = 0; k < M; ++k) r.v[k] = Op::apply(a.v[k], b.v[k]);
    r.label = b.label;
    return r;
  }
};

template <class Op, int M>
struct Pick {
  using T = typename Op::value_type;
  __host__ __device__ T operator()(const Tagged<T, M>& e) const {
    T r = e.v[0];
#pragma unroll
    for (int k = 1; k < M; ++k)
      if (std::uint32_t(k) == e.label) r = e.v[k];
    return r;
  }
};

template <class Op, int M>
cudaError_t scan(void* temp, std::size_t& bytes, const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n,
                 bool inclusive, typename Op::value_type* out, cudaStream_t s) {
  auto in = thrust::make_transform_iterator(thrust::counting_iterator<std::int64_t>(0), MakeElement<Op, M>{labels, values, inclusive});
  auto o = thrust::make_transform_output_iterator(out, Pick<Op, M>{});
  return cub::DeviceScan::InclusiveScan(temp, bytes, in, o, VectorOp<Op, M>{}, int(n), s);
}

// Vectors of 8 components up to m = 8, else 32: two shapes keep the compile time in bounds.
template <class Op, class F>
cudaError_t dispatch(std::uint32_t m, F&& f) {
  return m <= 8 ? f(std::integral_constant<int, 8>{}) : f(std::integral_constant<int, 32>{});
}

}  // namespace vector_scan_detail

inline std::string vector_scan_unsupported(std::int64_t n, std::uint32_t m) {
  if (m > vector_scan_detail::kMaxBuckets) return "m = " + std::to_string(m) + " exceeds 32 (O(n m) work: small m only)";
  return n > (std::int64_t(1) << 31) - 1 ? "CUB's scan is called with int counts" : "";
}

template <class Op>
std::size_t vector_scan_scratch_bytes(std::int64_t n, std::uint32_t m) {
  std::size_t bytes = 0;
  LP_CUDA(vector_scan_detail::dispatch<Op>(m, [&](auto M) {
    return vector_scan_detail::scan<Op, decltype(M)::value>(nullptr, bytes, nullptr, nullptr, n, false, nullptr, nullptr);
  }));
  return bytes;
}

template <class Op>
void vector_scan(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                 typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, cudaStream_t s) {
  std::size_t bytes = scratch_bytes;
  LP_CUDA(vector_scan_detail::dispatch<Op>(m, [&](auto M) {
    return vector_scan_detail::scan<Op, decltype(M)::value>(scratch, bytes, labels, values, n, inclusive, out, s);
  }));
}

}  // namespace lp::multiscan
