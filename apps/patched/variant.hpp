// The patched study's variants, in the harness's table (framework.hpp). Each family (a .cu file
// here; one kernel header per algorithm in kernels/patched/) adds its definitions.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <stdexcept>

#include "apps/harness/framework.hpp"
#include "cpu_reference/patched/alp_layout.hpp"
#include "cpu_reference/patched/bitpack.hpp"
#include "cpu_reference/patched/layout.hpp"
#include "kernels/patched/alp_decode.cuh"
#include "kernels/patched/common.cuh"

namespace lp::patched_study {

// What a run sees. The value type is chosen at run time (axis `type`), so typed pointers are held
// untyped with their width, and launchers get them back through with_type / device<T>.
struct Ctx {
  int bytes = 4;  // value width: 1, 2, 4 or 8
  std::int64_t n = 0;
  int w = 0;
  // The PatchedArray on the device: packed words, bases, lane_offsets, indices, values.
  const void* words = nullptr;
  const void* bases = nullptr;
  const std::uint32_t* lane_offsets = nullptr;
  const std::uint16_t* indices = nullptr;
  const void* values = nullptr;
  std::int64_t count = 0;
  // The plain form the thrust peer scatters (and auto's peer plan): global positions ascending, their values.
  const std::uint32_t* positions = nullptr;
  const void* plain_values = nullptr;
  void* out = nullptr;  // device, n values
  void* scratch = nullptr;  // device: what the variant's scratch() asks (auto: the profile's slot)
  std::size_t scratch_bytes = 0;
  lp::patched::Tuning tune;
  cudaStream_t stream = nullptr;
  // CPU variants: cpu::patched::Packed<T> and PatchLayout<T> of the point's type, and the output.
  const void* host_packed = nullptr;
  const void* host_patches = nullptr;
  void* host_out = nullptr;
  // A float column (type f32 or f64), ALP-encoded: its DeviceAlp<U> (U the bits of `bytes`) and its
  // cpu::patched::AlpPacked<F>; null for an integer column. Its patches are also the fields above
  // (n, lane_offsets, indices, values, count, positions, plain_values), so auto's sizes and look
  // read them the same way; words, bases and w are unused.
  const void* alp = nullptr;
  const void* host_alp = nullptr;
};

// f(T{}) for the context's value type.
template <class F>
void with_type(int bytes, F&& f) {
  switch (bytes) {
    case 1: f(std::uint8_t{}); break;
    case 2: f(std::uint16_t{}); break;
    case 4: f(std::uint32_t{}); break;
    case 8: f(std::uint64_t{}); break;
    default: throw std::logic_error("patched: no value type of " + std::to_string(bytes) + " bytes");
  }
}

template <class T>
lp::patched::DevicePatched<T> device(const Ctx& c) {
  lp::patched::DevicePatched<T> a;
  a.n = c.n;
  a.w = c.w;
  a.words = static_cast<const T*>(c.words);
  a.bases = static_cast<const T*>(c.bases);
  a.lane_offsets = c.lane_offsets;
  a.indices = c.indices;
  a.values = static_cast<const T*>(c.values);
  a.count = c.count;
  return a;
}

// f(array) with the context's column at value type T: DevicePatched<T>, or DeviceAlp<T> for a float
// column (whose values are produced as their bits).
template <class T, class F>
decltype(auto) with_column(const Ctx& c, F&& f) {
  if constexpr (sizeof(T) >= 4) {
    if (c.alp) return f(*static_cast<const lp::patched::DeviceAlp<T>*>(c.alp));
  }
  return f(device<T>(c));
}

// f(array, out) with the context's column and output at its value type: a GPU launcher.
template <class F>
void on_device(Ctx& c, F&& f) {
  with_type(c.bytes, [&](auto t) {
    using T = decltype(t);
    with_column<T>(c, [&](const auto& a) { f(a, static_cast<T*>(c.out)); });
  });
}

// f(float{}) or f(double{}) for a float column's width.
template <class F>
void with_float(int bytes, F&& f) {
  if (bytes == 4) return f(float{});
  if (bytes == 8) return f(double{});
  throw std::logic_error("patched: no float type of " + std::to_string(bytes) + " bytes");
}

template <class F>
const cpu::patched::AlpPacked<F>& host_alp(const Ctx& c) { return *static_cast<const cpu::patched::AlpPacked<F>*>(c.host_alp); }

template <class T>
const cpu::patched::Packed<T>& host_packed(const Ctx& c) { return *static_cast<const cpu::patched::Packed<T>*>(c.host_packed); }
template <class T>
const cpu::patched::PatchLayout<T>& host_patches(const Ctx& c) { return *static_cast<const cpu::patched::PatchLayout<T>*>(c.host_patches); }

using Def = harness::Variant<Ctx>;
using Defs = harness::VariantTable<Def>;

void add_two_pass_variants(Defs&);  // decode, then apply: thrust::scatter (peer), the seed's lanes, one thread per chunk
void add_fused_variants(Defs&);     // decode and patch in one kernel: G-ALP's lane cursors, the warp's apply, auto
void add_cpu_variants(Defs&);       // the CPU apply, one thread and all threads

// The record's account of auto at a point: the plan it ran and the profile of lane_offsets it decided from.
harness::Params auto_metrics(const Ctx&);

}  // namespace lp::patched_study
