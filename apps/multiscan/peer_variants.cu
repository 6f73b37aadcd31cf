// The peers a user would reach for instead: CUB radix sort of the labels with their indices,
// CUB scan-by-key over the values gathered through the permutation and scattered back through it;
// and Thrust scan_by_key on keys sorted beforehand, the lower bound of any sort-based multiscan
// (its time excludes the sort).
#include <thrust/execution_policy.h>
#include <thrust/iterator/permutation_iterator.h>
#include <thrust/scan.h>

#include "kernels/multiscan/cub_sort_scan.cuh"
#include "variant.hpp"

namespace lp::multiscan_study {

namespace {

namespace ms = lp::multiscan;

template <class Op>
using OpFn = ms::sort_global_detail::OpFn<Op>;

}  // namespace

template <class Op>
void add_peer_variants(Defs<Op>& d) {
  using harness::VariantKind;
  auto int_range = [](const auto& c) { return ms::sort_global_unsupported(c.n); };
  d.add({"cub_sort_scan_by_key", VariantKind::Peer,
         "cub::DeviceRadixSort::SortPairs (labels with indices, ceil(log2 m) bits) + cub::DeviceScan::Exclusive/InclusiveScanByKey "
         "reading values and writing results through the permutation (gather and scatter fused into the scan)",
         {Output::Results, false}, int_range, [](const auto& c) { return ms::cub_sort_scan_scratch_bytes<Op>(c.n, c.m); },
         [](Ctx<Op>& c) { ms::cub_sort_scan<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.scratch_bytes, c.stream); }});
  d.add({"thrust_scan_by_key_sorted", VariantKind::Peer,
         "thrust::exclusive/inclusive_scan_by_key on pairs stable-sorted beforehand (time EXCLUDES the sort: the lower bound of sort-based multiscan)",
         {Output::ScanOfSorted, false}, int_range, {},
         [](Ctx<Op>& c) {
           auto pol = thrust::cuda::par_nosync.on(c.stream);
           if (c.inclusive)
             thrust::inclusive_scan_by_key(pol, c.sorted_labels, c.sorted_labels + c.n, c.sorted_values, c.out, thrust::equal_to<std::uint32_t>(), OpFn<Op>{});
                 else
                   thrust::exclusive_scan_by_key(pol, c.sorted_labels, c.sorted_labels + c.n, c.sorted_values, c.out, Op::identity(),
                                                 thrust::equal_to<std::uint32_t>(), OpFn<Op>{});
                 LP_CUDA_LAUNCH("thrust::scan_by_key");
               }});
}

#define LP_X(Op) template void add_peer_variants<Op>(Defs<Op>&);
LP_MULTISCAN_FOR_EACH_OP(LP_X)

}  // namespace lp::multiscan_study
