// Beyond the thesis, for the operator "last" (thesis 1.2: multireduce as a scatter, the last writer
// wins): a bucket's result is the value at the highest position holding its label, so the
// non-commutative fold becomes a commutative max of positions (shared_privatized's kernel, with
// positions for values) and one gather per bucket. Inputs equal to the identity are no writers
// (x ⊙ e = x), so they carry no position.
#pragma once
#include <climits>

#include "shared_privatized.cuh"

namespace lp::multireduce {

// The pairs as a source of positions: input i becomes i where its value is a writer, INT32_MIN
// (max's identity: no writer) where it is Last's identity. Positions are int32 (n < 2^31).
struct LastPositionSource {
  using value_type = std::int32_t;
  const std::uint32_t* labels;
  const std::int32_t* values;
  __device__ __forceinline__ Quad<std::int32_t> quad(std::int64_t q) const {
    Quad<std::int32_t> p = load_quad(labels, values, q);
#pragma unroll
    for (int k = 0; k < 4; ++k) p.value[k] = writer(p.value[k], q * 4 + k);
    return p;
  }
  __device__ __forceinline__ std::uint32_t label(std::int64_t i) const { return __ldg(labels + i); }
  __device__ __forceinline__ std::int32_t value(std::int64_t i) const { return writer(ldg_any(values + i), i); }
  __device__ __forceinline__ static std::int32_t writer(std::int32_t v, std::int64_t i) {
    return v == Last::identity() ? INT_MIN : static_cast<std::int32_t>(i);
  }
};

// out[b] holds the last writer's position (or INT32_MIN); replace it by that writer's value.
static __global__ void last_position_gather_kernel(const std::int32_t* __restrict__ values, std::uint32_t m, std::int32_t* out) {
  for (std::int64_t b = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; b < m; b += std::int64_t(gridDim.x) * blockDim.x) {
    const std::int32_t at = out[b];
    out[b] = at == INT_MIN ? Last::identity() : __ldg(values + at);
  }
}

inline std::string last_position_unsupported(std::int64_t n, std::uint32_t m, const Tuning& t) {
  if (n > INT_MAX) return "positions are int32";
  if (!shared_privatized_plan<std::int32_t>(n, m, t).copies) return "a quarter of the position set exceeds a block's shared memory";
  return {};
}

inline std::size_t last_position_scratch_bytes(std::int64_t n, std::uint32_t m, const Tuning& t) {
  return shared_privatized_scratch_bytes<std::int32_t>(n, m, t);
}

inline void last_position(const std::uint32_t* labels, const std::int32_t* values, std::int64_t n, std::uint32_t m, std::int32_t* out,
                          void* scratch, const Tuning& t, cudaStream_t s) {
  if (n > INT_MAX) throw std::invalid_argument("last_position: positions are int32");
  shared_privatized<Max<std::int32_t>>(LastPositionSource{labels, values}, n, m, out, scratch, t, s);
  last_position_gather_kernel<<<grid_for(m, 256, 4), 256, 0, s>>>(values, m, out);
  LP_CUDA_LAUNCH("last_position_gather_kernel");
}

}  // namespace lp::multireduce
