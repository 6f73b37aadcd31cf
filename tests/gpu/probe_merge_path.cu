// Where the merge-path sorted search's time goes (ModernGPU's MergePathPartitions + KernelSortedSearch,
// kernels/sortedsearch/mergepath_sorted_search.cuh), at |A| = |B| = 2^26, per tile shape: the
// partition kernel alone, the search kernel alone, and the whole launcher (the study's
// mergepath_lower and mergepath_complete), beside a two-level partition (every 32nd diagonal first,
// the rest searched between their neighbours' cuts). Why: the study's times exceed the search
// kernel's profile by 70 us, and the partition's binary searches along cross diagonals touch a
// distinct sector of A and of B at nearly every step (each diagonal's range differs), where the
// windowed search's share their first levels. Each case's output is checked against the default
// shape's; times are CUDA events around one launch after the harness's L2 flush, the median of 10.
// A probe, not a test: it prints a line per case and writes them as JSON (argument 1).
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/harness/gpu.hpp"
#include "check.hpp"
#include "gpu_test.hpp"
#include "kernels/common/cuda_check.cuh"
#include "kernels/sortedsearch/mergepath_sorted_search.cuh"

namespace {

namespace ss = lp::sortedsearch;

// The merge path's A count at `diag`, searched only in [lo, hi] (the caller's bracket).
template <class T>
__device__ std::int64_t merge_path_between(const T* a, const T* b, std::int64_t diag, std::int64_t lo, std::int64_t hi) {
  while (lo < hi) {
    const std::int64_t mid = (lo + hi) >> 1;
    if (ss::take_a<ss::Bounds::Lower>(a[mid], b[diag - 1 - mid], ss::Less{})) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

constexpr int kGroup = 32;

// Level one: every kGroup-th boundary (and the last), searched over the whole diagonal.
template <class T>
__global__ void coarse_kernel(const T* a, int na, const T* b, int nb, int nv, int boundaries, int* mp) {
  const int c = blockIdx.x * blockDim.x + threadIdx.x;
  const int t = std::min(c * kGroup, boundaries - 1);
  if (c * kGroup >= boundaries + kGroup - 1) return;
  const std::int64_t diag = std::min<std::int64_t>(std::int64_t(t) * nv, std::int64_t(na) + nb);
  mp[t] = int(ss::merge_path<ss::Bounds::Lower>(a, na, b, nb, diag, ss::Less{}));
}

// Level two: boundary t between its group's cuts t0 and t1 (the path is monotone in both
// coordinates, so A's count lies in [a(t0), a(t1)] and B's in [b(t0), b(t1)]).
template <class T>
__global__ void fine_kernel(const T* a, int na, const T* b, int nb, int nv, int boundaries, int* mp) {
  const int t = blockIdx.x * blockDim.x + threadIdx.x;
  if (t >= boundaries || t % kGroup == 0 || t == boundaries - 1) return;
  const int t0 = t / kGroup * kGroup, t1 = std::min(t0 + kGroup, boundaries - 1);
  const std::int64_t total = std::int64_t(na) + nb;
  const std::int64_t d0 = std::min<std::int64_t>(std::int64_t(t0) * nv, total), d1 = std::min<std::int64_t>(std::int64_t(t1) * nv, total);
  const std::int64_t diag = std::min<std::int64_t>(std::int64_t(t) * nv, total);
  const std::int64_t a0 = mp[t0], a1 = mp[t1], b0 = d0 - a0, b1 = d1 - a1;
  const std::int64_t lo = std::max(a0, diag - b1), hi = std::min(a1, diag - b0);
  mp[t] = int(merge_path_between(a, b, diag, lo, hi));
}

template <class T>
void two_level_partition(const T* a, int na, const T* b, int nb, int nv, int boundaries, int* mp, cudaStream_t s) {
  const int coarse = (boundaries + kGroup - 1) / kGroup + 1;
  coarse_kernel<<<(coarse + 127) / 128, 128, 0, s>>>(a, na, b, nb, nv, boundaries, mp);
  LP_CUDA_LAUNCH("coarse_kernel");
  fine_kernel<<<(boundaries + 127) / 128, 128, 0, s>>>(a, na, b, nb, nv, boundaries, mp);
  LP_CUDA_LAUNCH("fine_kernel");
}

struct Bufs {
  void* a = nullptr;
  void* b = nullptr;
  std::uint32_t *out_a = nullptr, *out_b = nullptr;
  void* scratch = nullptr;
  unsigned long long* counts = nullptr;
};

double median_ms(harness::GpuTimer& timer, const std::function<void(cudaStream_t)>& launch) {
  auto s = static_cast<cudaStream_t>(timer.stream());
  launch(s);  // warm-up
  std::vector<double> t;
  for (int rep = 0; rep < 10; ++rep) {
    timer.flush_l2();
    timer.start();
    launch(s);
    t.push_back(timer.stop_ms());
  }
  std::sort(t.begin(), t.end());
  return (t[4] + t[5]) / 2;
}

std::vector<std::uint32_t> download(const void* d, int n) {
  std::vector<std::uint32_t> h(static_cast<std::size_t>(n));
  LP_CUDA(cudaMemcpy(h.data(), d, 4 * h.size(), cudaMemcpyDeviceToHost));
  return h;
}

struct Reference {
  std::vector<std::uint32_t> lower, complete_a, complete_b;
  unsigned long long counts[2] = {0, 0};
};

template <class Tuning, class T>
void run_shape(harness::GpuTimer& timer, const Bufs& d, int n, const char* keys, Reference& ref, bool first, nlohmann::json& out) {
  const T* a = static_cast<const T*>(d.a);
  const T* b = static_cast<const T*>(d.b);
  const int tiles = int((std::int64_t(n) * 2 + Tuning::nv - 1) / Tuning::nv);
  int* mp = static_cast<int*>(d.scratch);
  unsigned* tile_counts = reinterpret_cast<unsigned*>(mp + tiles + 2);
  auto partition = [&](cudaStream_t s) {
    ss::merge_partition_kernel<ss::Bounds::Lower><<<(tiles + 1 + 127) / 128, 128, 0, s>>>(a, n, b, n, Tuning::nv, tiles + 1, mp, ss::Less{});
    LP_CUDA_LAUNCH("merge_partition_kernel");
  };
  const double part_ms = median_ms(timer, partition);
  const std::vector<std::uint32_t> mp_ref = download(mp, tiles + 1);
  LP_CUDA(cudaMemset(mp, 0xff, 4 * std::size_t(tiles + 1)));
  const double two_ms = median_ms(timer, [&](cudaStream_t s) { two_level_partition(a, n, b, n, Tuning::nv, tiles + 1, mp, s); });
  const bool two_ok = download(mp, tiles + 1) == mp_ref;
  CHECK_MSG(two_ok, "two-level partition " << keys << " nv=" << Tuning::nv);
  const double lower_kernel_ms = median_ms(timer, [&](cudaStream_t s) {
    ss::sorted_search_kernel<Tuning::nt, Tuning::vt, ss::Bounds::Lower, ss::Output::Index, ss::Output::None>
        <<<tiles, Tuning::nt, 0, s>>>(a, n, b, n, mp, d.out_a, nullptr, nullptr, nullptr, ss::Less{}, 0u);
    LP_CUDA_LAUNCH("sorted_search_kernel");
  });
  const double complete_kernel_ms = median_ms(timer, [&](cudaStream_t s) {
    ss::sorted_search_kernel<Tuning::nt, Tuning::vt, ss::Bounds::Lower, ss::Output::IndexMatch, ss::Output::IndexMatch>
        <<<tiles, Tuning::nt, 0, s>>>(a, n, b, n, mp, d.out_a, d.out_b, nullptr, tile_counts, ss::Less{}, 0u);
    LP_CUDA_LAUNCH("sorted_search_kernel");
  });
  const double lower_ms = median_ms(timer, [&](cudaStream_t s) {
    ss::mergepath_sorted_search<Tuning, ss::Bounds::Lower, ss::Output::Index, ss::Output::None>(a, n, b, n, d.out_a, nullptr, d.scratch, nullptr, s);
  });
  std::vector<std::uint32_t> lower = download(d.out_a, n);
  const double complete_ms = median_ms(timer, [&](cudaStream_t s) {
    ss::mergepath_sorted_search<Tuning, ss::Bounds::Lower, ss::Output::IndexMatch, ss::Output::IndexMatch>(a, n, b, n, d.out_a, d.out_b, d.scratch,
                                                                                                         d.counts, s);
  });
  std::vector<std::uint32_t> ca = download(d.out_a, n), cb = download(d.out_b, n);
  unsigned long long counts[2];
  LP_CUDA(cudaMemcpy(counts, d.counts, sizeof counts, cudaMemcpyDeviceToHost));
  if (first) {
    ref.lower = std::move(lower), ref.complete_a = std::move(ca), ref.complete_b = std::move(cb);
    ref.counts[0] = counts[0], ref.counts[1] = counts[1];
  } else {
    CHECK_MSG(lower == ref.lower, "lower " << keys << " nv=" << Tuning::nv);
    CHECK_MSG(ca == ref.complete_a && cb == ref.complete_b && counts[0] == ref.counts[0] && counts[1] == ref.counts[1],
              "complete " << keys << " nv=" << Tuning::nv);
  }
  const char* type = sizeof(T) == 4 ? "int32" : "int64";
  std::printf("%s %-8s %3dx%-2d tiles %6d  partition %.4f  two-level %.4f%s  lower kernel %.4f whole %.4f  complete kernel %.4f whole %.4f ms\n", type,
              keys, Tuning::nt, Tuning::vt, tiles, part_ms, two_ms, two_ok ? "" : " WRONG", lower_kernel_ms, lower_ms, complete_kernel_ms, complete_ms);
  std::fflush(stdout);
  out.push_back({{"type", type},
                 {"keys", keys},
                 {"a_size", n},
                 {"b_size", n},
                 {"nt", Tuning::nt},
                 {"vt", Tuning::vt},
                 {"tiles", tiles},
                 {"partition_ms", part_ms},
                 {"two_level_partition_ms", two_ms},
                 {"lower_kernel_ms", lower_kernel_ms},
                 {"lower_ms", lower_ms},
                 {"complete_kernel_ms", complete_kernel_ms},
                 {"complete_ms", complete_ms}});
}

template <class T>
void run_type(harness::GpuTimer& timer, int n, nlohmann::json& out) {
  Bufs d;
  LP_CUDA(cudaMalloc(&d.a, sizeof(T) * std::size_t(n)));
  LP_CUDA(cudaMalloc(&d.b, sizeof(T) * std::size_t(n)));
  LP_CUDA(cudaMalloc(&d.out_a, 4 * std::size_t(n)));
  LP_CUDA(cudaMalloc(&d.out_b, 4 * std::size_t(n)));
  LP_CUDA(cudaMalloc(&d.scratch, ss::mergepath_scratch_bytes<ss::MergePathTuning<32, 7>>(n, n)));
  LP_CUDA(cudaMalloc(&d.counts, 2 * sizeof(unsigned long long)));
  for (const char* keys : {"distinct", "dups"}) {
    // distinct: keys drawn from a range 32x the keys (few repeats); dups: from one 8x smaller than
    // the keys (about 8 copies of each).
    const std::uint64_t range = std::string(keys) == "dups" ? std::uint64_t(n) / 4 : std::uint64_t(n) * 64;
    std::mt19937_64 g(std::uint64_t(n) + sizeof(T) + range);
    std::vector<T> ha(static_cast<std::size_t>(n)), hb(static_cast<std::size_t>(n));
    for (auto& x : ha) x = T(g() % range);
    for (auto& x : hb) x = T(g() % range);
    std::sort(ha.begin(), ha.end());
    std::sort(hb.begin(), hb.end());
    LP_CUDA(cudaMemcpy(d.a, ha.data(), sizeof(T) * ha.size(), cudaMemcpyHostToDevice));
    LP_CUDA(cudaMemcpy(d.b, hb.data(), sizeof(T) * hb.size(), cudaMemcpyHostToDevice));
    Reference ref;
    if constexpr (sizeof(T) == 4) {
      run_shape<ss::MergePathTuning<128, 15>, T>(timer, d, n, keys, ref, true, out);  // the default
      run_shape<ss::MergePathTuning<256, 15>, T>(timer, d, n, keys, ref, false, out);
      run_shape<ss::MergePathTuning<512, 15>, T>(timer, d, n, keys, ref, false, out);
      run_shape<ss::MergePathTuning<128, 23>, T>(timer, d, n, keys, ref, false, out);
      run_shape<ss::MergePathTuning<256, 23>, T>(timer, d, n, keys, ref, false, out);
      run_shape<ss::MergePathTuning<128, 31>, T>(timer, d, n, keys, ref, false, out);
    } else {
      run_shape<ss::MergePathTuning<128, 11>, T>(timer, d, n, keys, ref, true, out);  // the default
      run_shape<ss::MergePathTuning<256, 11>, T>(timer, d, n, keys, ref, false, out);
      run_shape<ss::MergePathTuning<512, 11>, T>(timer, d, n, keys, ref, false, out);
      run_shape<ss::MergePathTuning<128, 15>, T>(timer, d, n, keys, ref, false, out);
      run_shape<ss::MergePathTuning<256, 15>, T>(timer, d, n, keys, ref, false, out);
    }
  }
  LP_CUDA(cudaFree(d.a));
  LP_CUDA(cudaFree(d.b));
  LP_CUDA(cudaFree(d.out_a));
  LP_CUDA(cudaFree(d.out_b));
  LP_CUDA(cudaFree(d.scratch));
  LP_CUDA(cudaFree(d.counts));
}

}  // namespace

int main(int argc, char** argv) {
  if (no_gpu("probe_merge_path")) return kSkipped;
  const harness::GpuInfo gpu = harness::open_gpu(0);
  harness::GpuTimer timer(gpu.l2_bytes);
  nlohmann::json out = nlohmann::json::array();
  run_type<std::int32_t>(timer, 1 << 26, out);
  run_type<std::int64_t>(timer, 1 << 26, out);
  if (argc > 1) std::ofstream(argv[1]) << out.dump(1) << "\n";
  return test_summary("probe_merge_path");
}
