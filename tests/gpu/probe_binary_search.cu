// The loop forms of the vectorized binary search (kernels/sortedsearch/binary_search.cuh) beside
// thrust::lower_bound, where auto runs a binary search per needle (sorted needles, 8-64 haystack
// keys a needle; beyond the documents): the form before (64-bit lo and hi, a branch a step), the
// branchless form over 32-bit offsets (the step count fixed by the haystack's size, so the lanes of
// a warp never diverge), and that form with 2 and 4 needles a thread advanced in lockstep (several
// independent loads in flight a thread). Each case's output is checked against thrust's; times are
// CUDA events around one launch after the L2 is flushed, the median of 15. A probe, not a test: it
// prints a line per case and writes them as JSON (argument 1); docs/sortedsearch.md cites the run
// (results/h200/sortedsearch/probes/probe_binary_search.json). The branchless forms stay here: none
// was adopted.
#include <cuda_runtime.h>
#include <thrust/binary_search.h>
#include <thrust/execution_policy.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "check.hpp"
#include "gpu_test.hpp"
#include "kernels/common/cuda_check.cuh"
#include "kernels/sortedsearch/binary_search.cuh"

namespace {

namespace ss = lp::sortedsearch;

// The form before: bound_in's 64-bit lo and hi, one branch a step.
template <class T>
__global__ void classic_kernel(const T* __restrict__ needles, int count, const T* __restrict__ hay, int n, std::uint32_t* __restrict__ out) {
  const int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < count) out[i] = std::uint32_t(ss::bound_in<ss::Bounds::Lower>(hay, 0, n, needles[i], ss::Less{}));
}

// The branchless form over 32-bit offsets, K needles a thread in lockstep: base moves right by half
// of what is left where the haystack's key there is below the needle (lower) or not above it
// (upper), so the step count is fixed by the haystack's size alone and the lanes of a warp never
// diverge, and a thread's K searches issue their loads back to back. Needs haystack_count < 2^32.
template <ss::Bounds B, int K, class T, class Comp>
__global__ void lockstep_kernel(const T* __restrict__ needles, int count, const T* __restrict__ haystack, int haystack_count,
                                std::uint32_t* __restrict__ out, Comp comp, std::uint32_t a_base) {
  const std::int64_t first = std::int64_t(blockIdx.x) * blockDim.x * K + threadIdx.x;
  T key[K];
  std::uint32_t base[K];
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const std::int64_t i = first + std::int64_t(j) * blockDim.x;
    key[j] = i < count ? needles[i] : T();
    base[j] = 0;
  }
  if (haystack_count > 0) {
    for (std::uint32_t len = std::uint32_t(haystack_count); len > 1;) {
      const std::uint32_t half = len >> 1;
#pragma unroll
      for (int j = 0; j < K; ++j) {
        const T v = haystack[base[j] + half];
        const bool right = B == ss::Bounds::Upper ? !comp(key[j], v) : comp(v, key[j]);
        base[j] = right ? base[j] + half : base[j];
      }
      len -= half;
    }
#pragma unroll
    for (int j = 0; j < K; ++j) {
      const T v = haystack[base[j]];
      base[j] += (B == ss::Bounds::Upper ? !comp(key[j], v) : comp(v, key[j])) ? 1u : 0u;
    }
  }
#pragma unroll
  for (int j = 0; j < K; ++j) {
    const std::int64_t i = first + std::int64_t(j) * blockDim.x;
    if (i < count) out[i] = a_base + base[j];
  }
}

template <int K, ss::Bounds B = ss::Bounds::Lower, class T, class Comp = ss::Less>
void binary_search_lockstep(const T* needles, int count, const T* haystack, int haystack_count, std::uint32_t* out, cudaStream_t stream,
                            Comp comp = {}, std::uint32_t a_base = 0) {
  if (count == 0) return;
  constexpr int nt = 256;
  const std::int64_t per_block = std::int64_t(nt) * K;
  lockstep_kernel<B, K><<<int((count + per_block - 1) / per_block), nt, 0, stream>>>(needles, count, haystack, haystack_count, out, comp, a_base);
  LP_CUDA_LAUNCH("binary_search lockstep_kernel");
}

float time_ms(const std::function<void()>& launch, void* flush, std::size_t flush_bytes) {
  cudaEvent_t a, b;
  LP_CUDA(cudaEventCreate(&a));
  LP_CUDA(cudaEventCreate(&b));
  std::vector<float> t;
  for (int rep = 0; rep < 16; ++rep) {
    LP_CUDA(cudaMemsetAsync(flush, rep, flush_bytes));
    LP_CUDA(cudaEventRecord(a));
    launch();
    LP_CUDA(cudaEventRecord(b));
    LP_CUDA(cudaEventSynchronize(b));
    float ms = 0;
    LP_CUDA(cudaEventElapsedTime(&ms, a, b));
    if (rep) t.push_back(ms);  // the first is the warm-up
  }
  std::sort(t.begin(), t.end());
  LP_CUDA(cudaEventDestroy(a));
  LP_CUDA(cudaEventDestroy(b));
  return t[t.size() / 2];
}

template <class T>
void run(int n, int per, nlohmann::json& out, void* flush, std::size_t flush_bytes) {
  const int count = n / per;
  std::mt19937_64 g(n + per + sizeof(T));
  std::vector<T> hay(static_cast<std::size_t>(n)), nd(static_cast<std::size_t>(count));
  for (auto& x : hay) x = T(g() >> 2);
  for (auto& x : nd) x = T(g() >> 2);
  std::sort(hay.begin(), hay.end());
  std::sort(nd.begin(), nd.end());
  T *d_hay, *d_nd;
  std::uint32_t *d_ref, *d_out;
  LP_CUDA(cudaMalloc(&d_hay, sizeof(T) * hay.size()));
  LP_CUDA(cudaMalloc(&d_nd, sizeof(T) * nd.size()));
  LP_CUDA(cudaMalloc(&d_ref, 4 * nd.size()));
  LP_CUDA(cudaMalloc(&d_out, 4 * nd.size()));
  LP_CUDA(cudaMemcpy(d_hay, hay.data(), sizeof(T) * hay.size(), cudaMemcpyHostToDevice));
  LP_CUDA(cudaMemcpy(d_nd, nd.data(), sizeof(T) * nd.size(), cudaMemcpyHostToDevice));
  const float thrust_ms = time_ms([&] { thrust::lower_bound(thrust::cuda::par_nosync, d_hay, d_hay + n, d_nd, d_nd + count, d_ref); }, flush,
                                     flush_bytes);
  std::vector<std::uint32_t> ref(nd.size()), got(nd.size());
  LP_CUDA(cudaMemcpy(ref.data(), d_ref, 4 * ref.size(), cudaMemcpyDeviceToHost));
  auto check = [&](const char* form, float ms) {
    LP_CUDA(cudaMemcpy(got.data(), d_out, 4 * got.size(), cudaMemcpyDeviceToHost));
    const bool ok = got == ref;
    CHECK_MSG(ok, form << " n=" << n << " per=" << per);
    std::printf("%-6s n=%d needles=%d (1/%d) %-12s %.4f ms  thrust %.4f  ratio %.3f %s\n", sizeof(T) == 4 ? "int32" : "int64", n, count, per, form, ms,
                thrust_ms, ms / thrust_ms, ok ? "" : "WRONG");
    out.push_back({{"type", sizeof(T) == 4 ? "int32" : "int64"}, {"haystack", n}, {"needles", count}, {"form", form}, {"ms", ms},
                   {"thrust_ms", thrust_ms}, {"valid", ok}});
  };
  const int nt = 256;
  check("classic", time_ms([&] { classic_kernel<<<(count + nt - 1) / nt, nt>>>(d_nd, count, d_hay, n, d_out); }, flush, flush_bytes));
  check("branchless1", time_ms([&] { binary_search_lockstep<1>(d_nd, count, d_hay, n, d_out, nullptr); }, flush, flush_bytes));
  check("branchless2", time_ms([&] { binary_search_lockstep<2>(d_nd, count, d_hay, n, d_out, nullptr); }, flush, flush_bytes));
  check("branchless4", time_ms([&] { binary_search_lockstep<4>(d_nd, count, d_hay, n, d_out, nullptr); }, flush, flush_bytes));
  LP_CUDA(cudaFree(d_hay));
  LP_CUDA(cudaFree(d_nd));
  LP_CUDA(cudaFree(d_ref));
  LP_CUDA(cudaFree(d_out));
}

}  // namespace

int main(int argc, char** argv) {
  if (no_gpu("probe_binary_search")) return kSkipped;
  const std::size_t flush_bytes = std::size_t(512) << 20;
  void* flush = nullptr;
  LP_CUDA(cudaMalloc(&flush, flush_bytes));
  nlohmann::json out = nlohmann::json::array();
  for (int per : {8, 16, 32, 64}) {
    run<std::int32_t>(1 << 26, per, out, flush, flush_bytes);
    run<std::int64_t>(1 << 26, per, out, flush, flush_bytes);
  }
  LP_CUDA(cudaFree(flush));
  if (argc > 1) std::ofstream(argv[1]) << out.dump(1) << "\n";
  return test_summary("probe_binary_search");
}
