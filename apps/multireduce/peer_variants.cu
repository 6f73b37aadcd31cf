// The peers a user would reach for instead: one global atomic per input, CUB and Thrust sort +
// reduce-by-key, Thrust reduce_by_key / scan_by_key on pre-sorted keys (thesis Fig 3.6), and CUB
// DeviceHistogram where the operation is a count.
#include "kernels/histogram/cub_histogram_even.cuh"
#include <thrust/device_ptr.h>
#include <thrust/execution_policy.h>
#include <thrust/reduce.h>
#include <thrust/scan.h>
#include <thrust/sort.h>

#include "kernels/multireduce/cub_sort_reduce.cuh"
#include "kernels/multireduce/global_atomics.cuh"
#include "variant.hpp"

namespace lp::multireduce_study {

namespace mr = lp::multireduce;

namespace {

using mr::OpFn;

template <class Op>
mr::ByKeyScratch<typename Op::value_type> carve(Ctx<Op>& c) {
  return mr::ByKeyScratch<typename Op::value_type>(c.scratch, c.scratch_bytes, c.n, c.m);
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
  mr::scatter_runs<Op>(s, c.m, c.out, c.stream);
}

}  // namespace

template <class Op>
void add_peer_variants(Defs<Op>& d) {
  using harness::VariantKind;
  using T = typename Op::value_type;
  auto cub_scratch = [](const auto& c) { return mr::cub_sort_reduce_scratch_bytes<Op>(c.n, c.m); };
  auto int_range = [](const auto& c) {
    return c.n > (std::int64_t(1) << 31) - 1 ? std::string("CUB/Thrust by-key counts runs in int") : std::string();
  };
  d.add({"global_atomics", VariantKind::Peer, "one atomic per input on its bucket in global memory (what a CUDA programmer writes first)", {true, Output::Buckets}, {}, {},
         commutative_only<Op>([](auto& c) { mr::global_atomics<Op>(c.labels, c.values, c.n, c.m, c.out, c.stream); })});
  d.add({"cub_sort_reduce_by_key", VariantKind::Peer, "cub::DeviceRadixSort::SortPairs by ceil(log2 m) bits + cub::DeviceReduce::ReduceByKey + scatter of the runs", {false, Output::Buckets}, int_range, cub_scratch,
         [](Ctx<Op>& c) { mr::cub_sort_reduce_by_key<Op>(c.labels, c.values, c.n, c.m, c.out, c.scratch, c.scratch_bytes, c.stream); }});
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
