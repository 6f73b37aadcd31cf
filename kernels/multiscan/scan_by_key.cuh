// Beyond the thesis: the multiscan as CUB's scan-by-key over the labels as they come, no sort, where
// each label's inputs form one run: one label (m = 1), or labels that arrive sorted. At one label the
// library's single-pass scan (one (key, value) pair a step, a look-back over 8-byte partials)
// outpaces our m-vector look-back on 8-byte values (H200, n = 2^26 int64: 0.44 ms against
// single_pass's 0.82; results/h200/multiscan/probes/scan_by_key.json). For sorted labels at any m,
// the checked form proves the order first (one 4-byte read an input) and decides on the device:
// a sorted column needs no sort, where the sort-based plans sort it anyway (auto_rule.hpp).
#pragma once
#include <cub/device/device_scan.cuh>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "../common/plan_graph.cuh"
#include "cub_sort_scan.cuh"
#include "sort_global.cuh"

namespace lp::multiscan {

// CUB's temporary storage for either mode. n within CUB's int counts (sort_global_unsupported).
template <class Op>
std::size_t scan_by_key_scratch_bytes(std::int64_t n) {
  using T = typename Op::value_type;
  using sort_global_detail::OpFn;
  std::size_t excl = 0, incl = 0;
  LP_CUDA(cub::DeviceScan::ExclusiveScanByKey(nullptr, excl, (const std::uint32_t*)nullptr, (const T*)nullptr, (T*)nullptr, OpFn<Op>{},
                                              Op::identity(), int(n)));
  LP_CUDA(cub::DeviceScan::InclusiveScanByKey(nullptr, incl, (const std::uint32_t*)nullptr, (const T*)nullptr, (T*)nullptr, OpFn<Op>{}, int(n)));
  return std::max<std::size_t>({excl, incl, 1});
}

// A multiscan only where equal labels are contiguous (a run per label): the scan restarts at every
// change of label.
template <class Op>
void scan_by_key(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, bool inclusive,
                 typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, cudaStream_t s) {
  using sort_global_detail::OpFn;
  if (n <= 0) return;
  std::size_t bytes = scratch_bytes;
  if (inclusive)
    LP_CUDA(cub::DeviceScan::InclusiveScanByKey(scratch, bytes, labels, values, out, OpFn<Op>{}, int(n), cuda::std::equal_to<>{}, s));
  else
    LP_CUDA(cub::DeviceScan::ExclusiveScanByKey(scratch, bytes, labels, values, out, OpFn<Op>{}, Op::identity(), int(n), cuda::std::equal_to<>{}, s));
}

namespace checked_scan_detail {

// Sets *unsorted where some label is below its predecessor (the column is then not one run a label
// as far as this check knows; it does not look for descending columns). kVec: 16-byte loads (the
// labels 16-byte aligned); the last label of a quad meets the next quad's first through a read the
// neighbouring thread's load has brought into L1. A block publishes a fall once all its threads are
// done (a vote), and every thread looks at the flag every 8 steps and stops there. With every block
// resident, the first publication waits for a whole block: on falls as dense as runs of labels that
// is a few steps, on a nearly sorted column most of the read. (Each finder storing the flag itself
// was measured slower, 1.08-1.69x CUB's sort + scan-by-key alone against 1.02-1.16x, H200: a store a thread
// to one word; one store a block, elected in shared memory, is the form to try next.)
template <bool kVec>
__global__ void descent_kernel(const std::uint32_t* __restrict__ labels, std::int64_t n, std::uint32_t* unsorted) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x, first = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  const volatile std::uint32_t* seen = unsorted;
  bool down = false;
  if (kVec) {
    const std::int64_t quads = n / 4;
    int step = 0;
    for (std::int64_t q = first; q < quads && !down; q += stride) {
      if ((++step & 7) == 0 && *seen) break;
      const uint4 v = __ldg(reinterpret_cast<const uint4*>(labels) + q);
      const std::uint32_t next = 4 * q + 4 < n ? __ldg(labels + 4 * q + 4) : 0xffffffffu;
      down = (v.x > v.y) | (v.y > v.z) | (v.z > v.w) | (v.w > next);
    }
    if (first == 0)  // the tail after the last quad
      for (std::int64_t i = quads * 4; i + 1 < n; ++i) down |= __ldg(labels + i) > __ldg(labels + i + 1);
  } else {
    int step = 0;
    for (std::int64_t i = first; i + 1 < n && !down; i += stride) {
      if ((++step & 7) == 0 && *seen) break;
      down = __ldg(labels + i) > __ldg(labels + i + 1);
    }
  }
  if (__syncthreads_or(down) && threadIdx.x == 0) *unsorted = 1;
}

// Body 0 (the scan-by-key) where no descent was found, body 1 (the fallback) where one was.
static __global__ void sorted_switch_kernel(const std::uint32_t* unsorted, cudaGraphConditionalHandle handle) {
  cudaGraphSetConditional(handle, *unsorted ? 1u : 0u);
}

constexpr std::size_t kFlagBytes = 256;  // the flag, then CUB's temporary storage

}  // namespace checked_scan_detail

// The checked form's own scratch (a fallback runs over the whole scratch: the flag is dead once the
// switch has read it).
template <class Op>
std::size_t checked_scan_by_key_scratch_bytes(std::int64_t n) {
  return checked_scan_detail::kFlagBytes + scan_by_key_scratch_bytes<Op>(n);
}

// While `stream` is captured (plan_graph.cuh): one pass over the labels looks for a descent, and a
// switch on the device runs CUB's scan-by-key over the labels as they come where there is none (a
// non-decreasing column holds each label in one run), else `fallback` (enqueued on the stream it
// is given, over the whole scratch). n within CUB's int counts.
template <class Op>
void enqueue_checked_scan_by_key(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, bool inclusive,
                                 typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, const PlanBody& fallback,
                                 cudaStream_t stream) {
  using namespace checked_scan_detail;
  auto* unsorted = static_cast<std::uint32_t*>(scratch);
  const PlanLook look = [=](cudaGraphConditionalHandle h, cudaStream_t s) {
    LP_CUDA(cudaMemsetAsync(unsorted, 0, sizeof(std::uint32_t), s));
    const bool vec = reinterpret_cast<std::uintptr_t>(labels) % 16 == 0;
    const int grid = multireduce::grid_for(vec ? multireduce::ceil_div(n, 4) : n, 256, 8);
    if (vec)
      descent_kernel<true><<<grid, 256, 0, s>>>(labels, n, unsorted);
    else
      descent_kernel<false><<<grid, 256, 0, s>>>(labels, n, unsorted);
    LP_CUDA_LAUNCH("descent_kernel");
    sorted_switch_kernel<<<1, 1, 0, s>>>(unsorted, h);
    LP_CUDA_LAUNCH("sorted_switch_kernel");
  };
  char* temp = static_cast<char*>(scratch) + kFlagBytes;
  const std::size_t temp_bytes = scratch_bytes - kFlagBytes;
  const PlanBody sorted = [=](cudaStream_t s) { scan_by_key<Op>(labels, values, n, inclusive, out, temp, temp_bytes, s); };
  enqueue_switch(stream, look, {sorted, fallback});
}

// The checked form on its own, with CUB's sort + scan-by-key behind its check: one graph per
// arguments, built on the first call and replayed. Scratch: the larger of
// checked_scan_by_key_scratch_bytes and cub_sort_scan_scratch_bytes.
template <class Op>
void checked_scan_by_key(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                         typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  if (n <= 0) return;
  const PlanBody fallback = [=](cudaStream_t s) { cub_sort_scan<Op>(labels, values, n, m, inclusive, out, scratch, scratch_bytes, s); };
  const std::string tag = std::string("multiscan/checked_scan_by_key/") + Op::name + "/" + multireduce::TypeName<typename Op::value_type>::value;
  const std::string key = plan_key(tag.c_str(), labels, values, n, m, inclusive, out, scratch, scratch_bytes);
  launch_graph(key, [&](cudaStream_t s) { enqueue_checked_scan_by_key<Op>(labels, values, n, inclusive, out, scratch, scratch_bytes, fallback, s); },
               stream);
}

}  // namespace lp::multiscan
