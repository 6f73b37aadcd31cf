// The peers a user would reach for instead: one global atomic per input, CUB and Thrust sort +
// reduce-by-key, Thrust reduce_by_key / scan_by_key on pre-sorted keys (thesis Fig 3.6), and CUB
// DeviceHistogram where the operation is a count.
#include "kernels/histogram/cub_histogram_even.cuh"
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_reduce.cuh>
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>

#include "kernels/multireduce/global_atomics.cuh"
#include "variant.hpp"

namespace lp::multireduce_study {

namespace mr = lp::multireduce;

namespace {

template <class Op>
struct OpFn {
  using T = typename Op::value_type;
  __host__ __device__ T operator()(const T& a, const T& b) const { return Op::apply(a, b); }
};

// Writes each run's aggregate to its bucket (buckets without inputs keep the identity).
template <class T>
__global__ void scatter_runs_kernel(const std::uint32_t* keys, const T* agg, const int* num_runs, std::uint32_t m, T* out) {
  const int runs = *num_runs;
  for (std::int64_t r = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; r < runs && r < m; r += std::int64_t(gridDim.x) * blockDim.x)
    out[keys[r]] = agg[r];
}

// Scratch of the CUB pipeline, carved from one allocation: sorted keys and values, run keys and
// aggregates, the run count, and CUB's temporary storage.
template <class T>
struct CubScratch {
  std::uint32_t* keys;
  T* vals;
  std::uint32_t* run_keys;
  T* run_vals;
  int* runs;
  void* temp;
  std::size_t temp_bytes;
};

inline std::size_t align256(std::size_t x) { return (x + 255) & ~std::size_t(255); }

template <class Op>
std::size_t cub_temp_bytes(std::int64_t n, std::uint32_t m) {
  using T = typename Op::value_type;
  std::size_t sort_bytes = 0, rbk_bytes = 0;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, sort_bytes, (const std::uint32_t*)nullptr, (std::uint32_t*)nullptr,
                                          (const T*)nullptr, (T*)nullptr, n, 0, std::max(1, mr::label_bits(m))));
  LP_CUDA(cub::DeviceReduce::ReduceByKey(nullptr, rbk_bytes, (const std::uint32_t*)nullptr, (std::uint32_t*)nullptr,
                                         (const T*)nullptr, (T*)nullptr, (int*)nullptr, OpFn<Op>{}, n));
  return std::max(sort_bytes, rbk_bytes);
}

template <class Op>
std::size_t cub_scratch_bytes(std::int64_t n, std::uint32_t m) {
  using T = typename Op::value_type;
  return align256(n * 4) + align256(n * sizeof(T)) + align256(std::size_t(m) * 4) + align256(std::size_t(m) * sizeof(T)) +
         256 + align256(cub_temp_bytes<Op>(n, m));
}

template <class Op>
CubScratch<typename Op::value_type> carve(Ctx<Op>& c) {
  using T = typename Op::value_type;
  char* p = static_cast<char*>(c.scratch);
  CubScratch<T> s;
  s.keys = reinterpret_cast<std::uint32_t*>(p), p += align256(c.n * 4);
  s.vals = reinterpret_cast<T*>(p), p += align256(c.n * sizeof(T));
  s.run_keys = reinterpret_cast<std::uint32_t*>(p), p += align256(std::size_t(c.m) * 4);
  s.run_vals = reinterpret_cast<T*>(p), p += align256(std::size_t(c.m) * sizeof(T));
  s.runs = reinterpret_cast<int*>(p), p += 256;
  s.temp = p;
  s.temp_bytes = c.scratch_bytes - (p - static_cast<char*>(c.scratch));
  return s;
}

template <class Op>
void scatter_runs(Ctx<Op>& c, const CubScratch<typename Op::value_type>& s) {
  mr::fill(c.out, c.m, Op::identity(), c.stream);
  scatter_runs_kernel<<<mr::grid_for(c.m, 256, 4), 256, 0, c.stream>>>(s.run_keys, s.run_vals, s.runs, c.m, c.out);
  LP_CUDA_LAUNCH("scatter_runs_kernel");
}

// CUB: radix sort of the pairs by the ceil(log2 m) label bits (a user who knows m), reduce-by-key,
// runs written to their buckets.
template <class Op>
void cub_sort_reduce_by_key(Ctx<Op>& c) {
  auto s = carve(c);
  std::size_t bytes = s.temp_bytes;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(s.temp, bytes, c.labels, s.keys, c.values, s.vals, c.n, 0,
                                          std::max(1, mr::label_bits(c.m)), c.stream));
  bytes = s.temp_bytes;
  LP_CUDA(cub::DeviceReduce::ReduceByKey(s.temp, bytes, s.keys, s.run_keys, s.vals, s.run_vals, s.runs, OpFn<Op>{}, c.n, c.stream));
  scatter_runs(c, s);
}

// Thrust: copy, stable_sort_by_key (all 32 key bits: Thrust is not told m), reduce_by_key, scatter.
template <class Op>
void thrust_sort_reduce_by_key(Ctx<Op>& c) {
  auto s = carve(c);
  auto pol = thrust::cuda::par.on(c.stream);
  LP_CUDA(cudaMemcpyAsync(s.keys, c.labels, c.n * 4, cudaMemcpyDeviceToDevice, c.stream));
  LP_CUDA(cudaMemcpyAsync(s.vals, c.values, c.n * sizeof(typename Op::value_type), cudaMemcpyDeviceToDevice, c.stream));
  thrust::stable_sort_by_key(thrust::cuda::par_nosync.on(c.stream), s.keys, s.keys + c.n, s.vals);
  auto ends = thrust::reduce_by_key(pol, s.keys, s.keys + c.n, s.vals, s.run_keys, s.run_vals, thrust::equal_to<std::uint32_t>(), OpFn<Op>{});
  int runs = static_cast<int>(ends.first - s.run_keys);
  LP_CUDA(cudaMemcpyAsync(s.runs, &runs, sizeof runs, cudaMemcpyHostToDevice, c.stream));
  scatter_runs(c, s);
}

}  // namespace

template <class Op>
void add_peer_variants(Defs<Op>& d) {
  using harness::VariantKind;
  using T = typename Op::value_type;
  auto cub_scratch = [](const auto& c) { return cub_scratch_bytes<Op>(c.n, c.m); };
  auto int_range = [](const auto& c) {
    return c.n > (std::int64_t(1) << 31) - 1 ? std::string("CUB/Thrust by-key counts runs in int") : std::string();
  };
  d.add({"global_atomics", VariantKind::Peer, "one atomic per input on its bucket in global memory (what a CUDA programmer writes first)", {true, Output::Buckets}, {}, {},
         commutative_only<Op>([](auto& c) { mr::global_atomics<Op>(c.labels, c.values, c.n, c.m, c.out, c.stream); })});
  d.add({"cub_sort_reduce_by_key", VariantKind::Peer, "cub::DeviceRadixSort::SortPairs by ceil(log2 m) bits + cub::DeviceReduce::ReduceByKey + scatter of the runs", {false, Output::Buckets}, int_range, cub_scratch,
         [](Ctx<Op>& c) { cub_sort_reduce_by_key<Op>(c); }});
  d.add({"thrust_sort_reduce_by_key", VariantKind::Peer, "thrust::stable_sort_by_key (32 bits) + thrust::reduce_by_key + scatter of the runs", {false, Output::Buckets}, int_range, cub_scratch,
         [](Ctx<Op>& c) { thrust_sort_reduce_by_key<Op>(c); }});
  // Fig 3.6: the by-key operations alone, on keys sorted beforehand (untimed).
  d.add({"thrust_reduce_by_key_sorted", VariantKind::Peer, "thrust::reduce_by_key on pre-sorted pairs (Fig 3.6: the lower bound of sort-based multireduce)", {false, Output::SegmentsOfSorted}, int_range, {},
         [](Ctx<Op>& c) {
           thrust::reduce_by_key(thrust::cuda::par.on(c.stream), c.sorted_labels, c.sorted_labels + c.n, c.sorted_values, c.out_keys, c.out,
                                 thrust::equal_to<std::uint32_t>(), OpFn<Op>{});
                 LP_CUDA_LAUNCH("thrust::reduce_by_key");
               }});
  d.add({"thrust_scan_by_key_sorted", VariantKind::Peer, "thrust::inclusive_scan_by_key on pre-sorted pairs (Fig 3.6)", {false, Output::ScanOfSorted}, int_range, {},
         [](Ctx<Op>& c) {
           thrust::inclusive_scan_by_key(thrust::cuda::par_nosync.on(c.stream), c.sorted_labels, c.sorted_labels + c.n, c.sorted_values, c.out,
                                         thrust::equal_to<std::uint32_t>(), OpFn<Op>{});
                 LP_CUDA_LAUNCH("thrust::inclusive_scan_by_key");
               }});
  d.add({"cub_histogram_even", VariantKind::Peer, "cub::DeviceHistogram::HistogramEven over the labels (values = ones: a count; reads labels only)", {false, Output::CountOnly},
         [](const auto& c) {
           if (!std::is_same_v<Op, mr::Add<std::int32_t>>) return std::string("a count: op add on int32 only");
           return lp::histogram::cub_histogram_even_unsupported<std::uint32_t, int>(c.n, c.m);
         },
         [](const auto& c) { return lp::histogram::cub_histogram_even_bytes<std::uint32_t, int>(c.n, c.m); },
         [](Ctx<Op>& c) {
           if constexpr (std::is_same_v<T, std::int32_t>)
             lp::histogram::cub_histogram_even(c.labels, c.n, c.m, reinterpret_cast<int*>(c.out), c.scratch, c.scratch_bytes, c.stream);
         }});
}

#define LP_X(Op) template void add_peer_variants<Op>(Defs<Op>&);
LP_MULTIREDUCE_FOR_EACH_OP(LP_X)

}  // namespace lp::multireduce_study
