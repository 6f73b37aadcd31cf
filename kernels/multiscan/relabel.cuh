// Beyond the thesis: dense relabeling in front of single_pass. A multiscan's results do not change
// when the labels are renumbered, so where only k of the m labels occur (degenerate labels, a few
// keys of a large key space), one pass marks the labels present in an m-flag array, an exclusive
// scan of the flags numbers them 0..k-1, and register_scan (k = 1) or single_pass runs with
// k-vectors, reading each label through that map. Its cost is one 4-byte read per input and O(m)
// beside single_pass over k labels; without it single_pass cannot run beyond m = 4096 (its per-tile
// m-vectors), and the sorts pay for ceil(log2 m) bits even when every label is the same.
#pragma once
#include <cub/device/device_scan.cuh>

#include <string>

#include "../common/plan_graph.cuh"
#include "register_scan.cuh"
#include "single_pass.cuh"
#include "sort_global.cuh"

namespace lp::multiscan {

namespace relabel_detail {

// Beyond this many labels present the relabeled single_pass is not run (its vectors grow with k;
// single_pass is measured up to m = 1024, results/h100/multiscan/notes.md).
constexpr std::uint32_t kMaxPresent = 1024;

// Marks flags[l] = 1 for every label l present. A thread stores only when its label differs from the
// one it stored last, and a warp whose lanes all hold one label stores once, so a run of one label
// (degenerate input) costs a few thousand stores, not one per input on one address.
static __global__ void mark_kernel(const std::uint32_t* __restrict__ labels, std::int64_t n, std::uint32_t* __restrict__ flags) {
  const std::int64_t quads = n / 4, stride = std::int64_t(gridDim.x) * blockDim.x;
  std::uint32_t last = 0xffffffffu;
  auto mark = [&](std::uint32_t l, bool valid) {
    const std::uint32_t first = __shfl_sync(0xffffffffu, l, 0);
    const bool uniform = __all_sync(0xffffffffu, !valid || l == first);
    if (uniform) {
      if ((threadIdx.x & 31) == 0 && first != last && valid) flags[first] = 1, last = first;
      return;
    }
    if (valid && l != last) flags[l] = 1, last = l;
  };
  // Warp-uniform trip count: every lane takes part in the votes.
  const std::int64_t first_quad = (blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x) & ~std::int64_t(31);
  for (std::int64_t base = first_quad; base < quads; base += stride) {
    const std::int64_t q = base + (threadIdx.x & 31);
    const bool valid = q < quads;
    const uint4 v = valid ? __ldg(reinterpret_cast<const uint4*>(labels) + q) : uint4{};
    mark(v.x, valid), mark(v.y, valid), mark(v.z, valid), mark(v.w, valid);
  }
  if (blockIdx.x == 0 && threadIdx.x < n - quads * 4) flags[__ldg(labels + quads * 4 + threadIdx.x)] = 1;
}

// The tiers of k a relabeled scan is sized for: register_scan at k = 1, then single_pass with
// k-vectors of the tier's size (a label below k is below the tier), beyond the last none.
constexpr unsigned kTierCount = 4;
__host__ __device__ constexpr std::uint32_t tier_max(unsigned t) { return t == 0 ? 1 : t == 1 ? 32 : t == 2 ? 128 : kMaxPresent; }

// k, the number of labels marked (the scan is exclusive), picks the tier: the switch of the
// relabeled scan's graph runs tier i where k <= tier_max(i), and body kTierCount (the fallback) beyond.
static __global__ void count_switch_kernel(const std::uint32_t* flags, const std::uint32_t* map, std::uint32_t m, std::uint32_t* present,
                                           cudaGraphConditionalHandle handle) {
  const std::uint32_t k = map[m - 1] + flags[m - 1];
  present[0] = k;
  unsigned tier = 0;
  while (tier < kTierCount && k > tier_max(tier)) ++tier;
  cudaGraphSetConditional(handle, tier);
}

struct Layout {
  std::size_t flags = 0, map = 0, cub = 0, cub_bytes = 0, single = 0, total = 0;
};

template <class T>
Layout layout(std::int64_t n, std::uint32_t m) {
  Layout l;
  l.flags = 256;  // the count k, then the flags
  l.map = l.flags + align256(std::size_t(m) * 4);
  l.cub = l.map + align256(std::size_t(m) * 4);
  LP_CUDA(cub::DeviceScan::ExclusiveSum(nullptr, l.cub_bytes, static_cast<const std::uint32_t*>(nullptr), static_cast<std::uint32_t*>(nullptr),
                                        int(m)));
  l.single = l.cub + align256(l.cub_bytes);
  l.total = l.single + std::max(single_pass_scratch_bytes<T>(n, kMaxPresent, Tuning{}), register_scan_scratch_bytes<T>(n, register_scan_detail::kMaxM));
  return l;
}

}  // namespace relabel_detail

inline std::string relabel_unsupported(std::int64_t n, std::uint32_t m, std::size_t value_bytes) {
  if (m > (1u << 30)) return "m = " + std::to_string(m) + ": the flags and the map need 8 B a label; at most 2^30";
  return single_pass_unsupported(n, relabel_detail::kMaxPresent, value_bytes, Tuning{});
}

// The relabeled scan's own scratch; a fallback runs over the whole scratch (the flags and the map are
// dead once the count has chosen it).
template <class T>
std::size_t relabel_scratch_bytes(std::int64_t n, std::uint32_t m) {
  return relabel_detail::layout<T>(n, m).total;
}

// While `stream` is captured (plan_graph.cuh): marks and numbers the labels present, then a switch on
// their count k runs register_scan (k = 1) or single_pass sized for k's tier through the dense map,
// or, with more than kMaxPresent present, `fallback` (enqueued on the stream it is given, over the
// whole scratch). No host round trip: the count decides on the device.
template <class Op>
void enqueue_relabel_scan(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                          typename Op::value_type* out, void* scratch, const PlanBody& fallback, cudaStream_t stream) {
  using T = typename Op::value_type;
  using namespace relabel_detail;
  const Layout l = layout<T>(n, m);
  char* base = static_cast<char*>(scratch);
  auto* count = reinterpret_cast<std::uint32_t*>(base);
  auto* flags = reinterpret_cast<std::uint32_t*>(base + l.flags);
  auto* map = reinterpret_cast<std::uint32_t*>(base + l.map);
  const PlanLook look = [=](cudaGraphConditionalHandle h, cudaStream_t s) {
    LP_CUDA(cudaMemsetAsync(flags, 0, std::size_t(m) * 4, s));
    mark_kernel<<<multireduce::grid_for(multireduce::ceil_div(n, 4), 256, 8), 256, 0, s>>>(labels, n, flags);
    LP_CUDA_LAUNCH("mark_kernel");
    std::size_t cub_bytes = l.cub_bytes;
    LP_CUDA(cub::DeviceScan::ExclusiveSum(base + l.cub, cub_bytes, flags, map, int(m), s));
    count_switch_kernel<<<1, 1, 0, s>>>(flags, map, m, count, h);
    LP_CUDA_LAUNCH("count_switch_kernel");
  };
  std::vector<PlanBody> tiers;
  for (unsigned t = 0; t < kTierCount; ++t)
    tiers.push_back([=](cudaStream_t s) {
      const std::uint32_t k = tier_max(t);
      // One label present: register_scan (0.44 against single_pass's 0.47 ms at m = 1 on the H100);
      // from two, single_pass (register_scan's tiles measured slower there).
      if (k == 1 && register_scan_unsupported(n, k, sizeof(T)).empty())
        return register_scan<Op>(labels, values, n, k, inclusive, out, base + l.single, s, map);
      using namespace single_pass_detail;
      launch<Op>(plan(n, k, sizeof(T), Tuning{}), MappedLabels{{labels}, map}, values, n, k, inclusive, out, base + l.single, s);
    });
  tiers.push_back(fallback);
  enqueue_switch(stream, look, tiers);
}

// The relabel variant on its own: the graph of enqueue_relabel_scan with sort_global as the
// fallback, built once per arguments and replayed.
template <class Op>
void relabel_scan(const std::uint32_t* labels, const typename Op::value_type* values, std::int64_t n, std::uint32_t m, bool inclusive,
                  typename Op::value_type* out, void* scratch, std::size_t scratch_bytes, cudaStream_t stream) {
  if (n <= 0) return;
  const PlanBody fallback = [=](cudaStream_t s) { sort_global<Op>(labels, values, n, m, inclusive, false, out, scratch, scratch_bytes, s); };
  const std::string tag = std::string("multiscan/relabel/") + Op::name + "/" + multireduce::TypeName<typename Op::value_type>::value;
  const std::string key = plan_key(tag.c_str(), labels, values, n, m, inclusive, out, scratch, scratch_bytes);
  launch_graph(key, [&](cudaStream_t s) { enqueue_relabel_scan<Op>(labels, values, n, m, inclusive, out, scratch, fallback, s); }, stream);
}

}  // namespace lp::multiscan
