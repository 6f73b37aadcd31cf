// The libraries a user would call instead, one or two per primitive: thrust::transform (map),
// thrust::scatter / thrust::gather, CUB's and Thrust's exclusive scans, CUB's radix sort of the
// partition ids as a split, and CUB's and Thrust's sorts. CUB's temporary storage is sized when the
// point allocates (outside the timed region); Thrust allocates its own inside it, as a user's call does.
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <thrust/execution_policy.h>
#include <thrust/gather.h>
#include <thrust/scan.h>
#include <thrust/scatter.h>
#include <thrust/sort.h>
#include <thrust/transform.h>

#include <algorithm>

#include "kernels/common/carve.hpp"
#include "kernels/common/cuda_check.cuh"
#include "kernels/common/label_bits.hpp"
#include "kernels/join/split.cuh"
#include "variant.hpp"

namespace lp::primitives_study {

using harness::VariantKind;

namespace {


// The map's function as a functor (Thrust takes no device lambdas without --extended-lambda).
struct PartitionOf {
  std::uint32_t fanout;
  __host__ __device__ std::uint32_t operator()(std::uint32_t key) const { return lp::join::partition_of(key, fanout); }
};

std::size_t cub_scan_bytes(std::int64_t n) {
  std::size_t b = 0;
  LP_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, b, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), int(n)));
  return std::max<std::size_t>(b, 1);
}

std::size_t cub_sort_bytes(std::int64_t n) {
  std::size_t b = 0;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, b, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
                                          static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr), int(n)));
  return std::max<std::size_t>(b, 1);
}

// The sort-based split: the partition ids (a map pass), the sorted ids, then CUB's storage for
// sorting the ids' ceil(log2 fanout) bits with the tuple words carried along.
std::size_t radix_split_bytes(std::int64_t n, std::uint32_t fanout) {
  std::size_t b = 0;
  LP_CUDA(cub::DeviceRadixSort::SortPairs(nullptr, b, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
                                          static_cast<const std::uint64_t*>(nullptr), static_cast<std::uint64_t*>(nullptr), int(n), 0,
                                          lp::label_bits(fanout)));
  lp::Carve c(nullptr);  // radix_split's layout
  c.take<std::uint32_t>(std::size_t(n));
  c.take<std::uint32_t>(std::size_t(n));
  c.take<char>(std::max<std::size_t>(b, 1));
  return c.used();
}

void radix_split(Ctx& c) {
  lp::Carve w(c.scratch);
  auto* ids = w.take<std::uint32_t>(std::size_t(c.n));
  auto* sorted_ids = w.take<std::uint32_t>(std::size_t(c.n));
  void* temp = w.rest();
  std::size_t bytes = c.scratch_bytes - w.used();
  lp::join::map_partitions(c.dev.tuples, c.n, c.fanout, ids, c.stream);
  LP_CUDA(cub::DeviceRadixSort::SortPairs(temp, bytes, ids, sorted_ids, c.dev.tuples, c.dev_out.tuples, int(c.n), 0, lp::label_bits(c.fanout),
                                          c.stream));
}

}  // namespace

void add_peer_variants(Defs& d) {
  d.add({"thrust_transform", VariantKind::Peer, "map: thrust::transform of the keys with hash(key) % fanout", {},
         [](const Ctx& c) { return only(c, Op::Map); }, {},
         [](Ctx& c) {
           thrust::transform(thrust::cuda::par_nosync.on(c.stream), c.dev.keys, c.dev.keys + c.n, c.dev_out.words, PartitionOf{c.fanout});
           LP_CUDA_LAUNCH("thrust::transform");
         }});
  d.add({"thrust_scatter", VariantKind::Peer, "scatter: thrust::scatter of the 8-byte tuples to their locations", {},
         [](const Ctx& c) { return only(c, Op::Scatter); }, {},
         [](Ctx& c) {
           thrust::scatter(thrust::cuda::par_nosync.on(c.stream), c.dev.tuples, c.dev.tuples + c.n, c.dev.loc, c.dev_out.tuples);
           LP_CUDA_LAUNCH("thrust::scatter");
         }});
  d.add({"thrust_gather", VariantKind::Peer, "gather: thrust::gather of the 8-byte tuples from their locations", {},
         [](const Ctx& c) { return only(c, Op::Gather); }, {},
         [](Ctx& c) {
           thrust::gather(thrust::cuda::par_nosync.on(c.stream), c.dev.loc, c.dev.loc + c.n, c.dev.tuples, c.dev_out.tuples);
           LP_CUDA_LAUNCH("thrust::gather");
         }});
  d.add({"cub_scan", VariantKind::Peer,
         "prefix scan: cub::DeviceScan::ExclusiveSum, today's single-pass scan with decoupled look-back (He et al. used the CUDA "
         "library's two-pass tree scan: reduce, then down-sweep)",
         {}, [](const Ctx& c) { return only(c, Op::Scan); }, [](const Ctx& c) { return cub_scan_bytes(c.n); },
         [](Ctx& c) {
           std::size_t bytes = c.scratch_bytes;
           LP_CUDA(cub::DeviceScan::ExclusiveSum(c.scratch, bytes, c.dev.counts, c.dev_out.words, int(c.n), c.stream));
         }});
  d.add({"thrust_scan", VariantKind::Peer, "prefix scan: thrust::exclusive_scan", {}, [](const Ctx& c) { return only(c, Op::Scan); }, {},
         [](Ctx& c) {
           thrust::exclusive_scan(thrust::cuda::par_nosync.on(c.stream), c.dev.counts, c.dev.counts + c.n, c.dev_out.words);
           LP_CUDA_LAUNCH("thrust::exclusive_scan");
         }});
  d.add({"cub_radix_split", VariantKind::Peer,
         "split by sorting: the partition ids by our map kernel, then cub::DeviceRadixSort::SortPairs of their ceil(log2 fanout) bits "
         "carrying the 8-byte tuples (both timed)",
         {}, [](const Ctx& c) { return only(c, Op::Split); }, [](const Ctx& c) { return radix_split_bytes(c.n, c.fanout); }, radix_split});
  d.add({"cub_sort", VariantKind::Peer, "sort: cub::DeviceRadixSort::SortPairs of the 32-bit keys carrying the rids (stable)", {},
         [](const Ctx& c) { return only(c, Op::Sort); }, [](const Ctx& c) { return cub_sort_bytes(c.n); },
         [](Ctx& c) {
           std::size_t bytes = c.scratch_bytes;
           LP_CUDA(cub::DeviceRadixSort::SortPairs(c.scratch, bytes, c.dev.keys, c.dev_out.words, c.dev.rids, c.dev_out.rids, int(c.n), 0, 32,
                                                   c.stream));
         }});
  d.add({"thrust_sort", VariantKind::Peer,
         "sort: the keys and rids copied to the output (thrust sorts in place), then thrust::sort_by_key (both timed)", {},
         [](const Ctx& c) { return only(c, Op::Sort); }, {},
         [](Ctx& c) {
           const std::size_t bytes = std::size_t(c.n) * sizeof(std::uint32_t);
           LP_CUDA(cudaMemcpyAsync(c.dev_out.words, c.dev.keys, bytes, cudaMemcpyDeviceToDevice, c.stream));
           LP_CUDA(cudaMemcpyAsync(c.dev_out.rids, c.dev.rids, bytes, cudaMemcpyDeviceToDevice, c.stream));
           thrust::sort_by_key(thrust::cuda::par_nosync.on(c.stream), c.dev_out.words, c.dev_out.words + c.n, c.dev_out.rids);
           LP_CUDA_LAUNCH("thrust::sort_by_key");
         }});
}

}  // namespace lp::primitives_study
