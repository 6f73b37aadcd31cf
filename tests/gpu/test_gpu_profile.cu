// The shared input profile on the device against its host twin (kernels/common/input_profile.*):
// every key type `auto` reads, sizes around the sample's geometry, every label distribution, and a
// join's two columns with their match estimate; and the plan graph (kernels/common/plan_graph.cuh):
// the switch runs the body the device chose, a switch nested in a body, the default of no body,
// graphs kept per key and replayed on the legacy stream. Exit 77 (skipped) without a GPU.
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <type_traits>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "apps/harness/device_buffer.hpp"
#include "check.hpp"
#include "gpu_test.hpp"
#include "kernels/common/auto_launch.cuh"

namespace pf = lp::profile;

namespace {

// A decision table for the tests: plan 1 where a label takes half the inputs, else 0.
struct HotRule {
  LP_HD unsigned operator()(const pf::Profile& a, const pf::Profile&, double) const { return a.heavy >= 0.5 ? 1u : 0u; }
};

bool same(double a, double b) { return a == b || std::fabs(a - b) <= 1e-12 * std::fmax(std::fabs(a), std::fabs(b)); }

void check_profile(const pf::Profile& dev, const pf::Profile& host, const std::string& where) {
  CHECK_MSG(same(dev.n, host.n) && same(dev.m, host.m) && same(dev.sample, host.sample) && dev.whole == host.whole, where << ": sizes");
  CHECK_MSG(same(dev.sorted, host.sorted), where << ": sorted " << dev.sorted << " vs " << host.sorted);
  CHECK_MSG(same(dev.run_mean, host.run_mean), where << ": run_mean " << dev.run_mean << " vs " << host.run_mean);
  CHECK_MSG(same(dev.sorted_global, host.sorted_global), where << ": sorted_global " << dev.sorted_global << " vs " << host.sorted_global);
  CHECK_MSG(same(dev.warp_runs, host.warp_runs), where << ": warp_runs " << dev.warp_runs << " vs " << host.warp_runs);
  // The estimate beyond the sample runs single-precision exp and log, whose last bits differ between
  // the device's and the host's libraries.
  CHECK_MSG(std::fabs(dev.distinct - host.distinct) <= 1e-3 * host.distinct, where << ": distinct " << dev.distinct << " vs " << host.distinct);
  CHECK_MSG(same(dev.heavy, host.heavy), where << ": heavy " << dev.heavy << " vs " << host.heavy);
  CHECK_MSG(same(dev.span, host.span) && same(dev.min, host.min) && same(dev.max, host.max), where << ": range");
}

// Keys of type K from labels (signed keys shifted below zero, floats scaled), so that every type
// sees the same structure.
template <class K>
std::vector<K> keys_from(const std::vector<std::uint32_t>& l) {
  std::vector<K> k(l.size());
  for (std::size_t i = 0; i < l.size(); ++i) {
    if constexpr (std::is_floating_point_v<K>) k[i] = K(l[i]) * K(0.25) - K(1000);
    else if constexpr (std::is_signed_v<K>) k[i] = K(std::int64_t(l[i]) - (std::int64_t(1) << 30));
    else k[i] = K(l[i]);
  }
  return k;
}

template <class K>
void profile_case(const std::vector<K>& a, const std::vector<K>& b, std::uint64_t m, const std::string& where) {
  harness::DeviceBuffer<K> da, db;
  da.upload(a);
  if (!b.empty()) db.upload(b);
  harness::DeviceBuffer<pf::Slot> slot;
  slot.resize(1);
  const pf::Columns<K> cols{da.get(), std::int64_t(a.size()), m, b.empty() ? nullptr : db.get(), std::int64_t(b.size()), 0};
  pf::launch_look(cols, HotRule{}, slot.get(), nullptr);
  LP_CUDA(cudaDeviceSynchronize());
  const pf::Slot got = slot.download()[0];
  pf::Counts ca = pf::count_column_host(a.data(), std::int64_t(a.size()));
  const pf::Profile pa = pf::finish(ca, std::int64_t(a.size()), m);
  check_profile(got.first, pa, where + " first");
  CHECK_MSG(got.plan == HotRule{}(pa, pf::Profile{}, 0), where << ": plan " << got.plan);
  if (!b.empty()) {
    pf::Counts cb = pf::count_column_host(b.data(), std::int64_t(b.size()));
    pf::probe_column_host(cb, a.data(), std::int64_t(a.size()), b.data(), std::int64_t(b.size()));
    check_profile(got.second, pf::finish(cb, std::int64_t(b.size()), 0), where + " second");
    CHECK_MSG(same(got.match, pf::match_estimate(cb, pa)), where << ": match " << got.match << " vs " << pf::match_estimate(cb, pa));
    CHECK(got.columns == 2);
  } else {
    CHECK(got.columns == 1);
  }
}

void test_profiles(bool quick) {
  const std::vector<std::int64_t> sizes = quick ? std::vector<std::int64_t>{1, 33, 8193, 100003}
                                                : std::vector<std::int64_t>{1, 2, 31, 32, 33, 8191, 8192, 8193, 100003, (1 << 22) + 5};
  const std::vector<std::string> dists = {"uniform", "sorted", "degenerate", "zipf", "runs", "equal_runs", "permutation"};
  std::uint64_t seed = 1;
  for (std::int64_t n : sizes)
    for (const std::string& d : dists)
      for (std::uint32_t m : {1u, 1000u, 1u << 20}) {
        const std::uint32_t mm = d == "permutation" ? std::uint32_t(n) : m;
        if (d == "permutation" && m != 1000u) continue;
        const auto l = harness::labels(n, mm, d, 2.0, ++seed, 7.0);
        const std::string where = d + " n=" + std::to_string(n) + " m=" + std::to_string(mm);
        if (std::getenv("LP_GPU_TEST_TRACE")) std::fprintf(stderr, "  %s\n", where.c_str());
        profile_case(l, std::vector<std::uint32_t>{}, mm, where + " u32");
        if (n == 100003) {
          profile_case(keys_from<std::int32_t>(l), std::vector<std::int32_t>{}, mm, where + " i32");
          profile_case(keys_from<std::int64_t>(l), std::vector<std::int64_t>{}, mm, where + " i64");
          profile_case(keys_from<float>(l), std::vector<float>{}, mm, where + " float");
          profile_case(keys_from<double>(l), std::vector<double>{}, mm, where + " double");
        }
      }
  // Two columns (a join's build and probe sides): R read whole and sampled, S matching half, none, all.
  for (std::int64_t nr : {std::int64_t(1), std::int64_t(5000), std::int64_t(1) << 20})
    for (std::int64_t ns : {std::int64_t(1), std::int64_t(777), std::int64_t(300001)}) {
      std::vector<std::int64_t> r(std::size_t(nr), 0), s(std::size_t(ns), 0);
      const auto perm = harness::permutation(nr, std::uint64_t(nr));
      for (std::int64_t i = 0; i < nr; ++i) r[std::size_t(i)] = std::int64_t(perm[std::size_t(i)]) * 3 - (std::int64_t(1) << 40);
      harness::Rng g(std::uint64_t(nr * 7 + ns));
      for (std::int64_t i = 0; i < ns; ++i) s[std::size_t(i)] = std::int64_t(g.below(std::uint64_t(2 * nr))) * 3 / 2 * 2 - (std::int64_t(1) << 40);
      profile_case(r, s, 0, "join nr=" + std::to_string(nr) + " ns=" + std::to_string(ns));
    }
}

__global__ void mark_kernel(int* out, int value) { *out = value; }
__global__ void set_kernel(const int* in, cudaGraphConditionalHandle h) { cudaGraphSetConditional(h, unsigned(*in)); }

// The plan graph: each input picks its body; a body's own switch; a value beyond the bodies runs none.
void test_plan_graph() {
  harness::DeviceBuffer<int> choice, out;
  choice.resize(2);
  out.resize(1);
  for (int outer = 0; outer < 3; ++outer)
    for (int inner = 0; inner < 2; ++inner) {
      choice.upload(std::vector<int>{outer, inner});
      out.upload(std::vector<int>{-1});
      int* o = out.get();
      const int* c = choice.get();
      const lp::PlanLook set_outer = [c](cudaGraphConditionalHandle h, cudaStream_t s) { set_kernel<<<1, 1, 0, s>>>(c, h); };
      const lp::PlanLook set_inner = [c](cudaGraphConditionalHandle h, cudaStream_t s) { set_kernel<<<1, 1, 0, s>>>(c + 1, h); };
      const std::vector<lp::PlanBody> bodies = {
          [o](cudaStream_t s) { mark_kernel<<<1, 1, 0, s>>>(o, 10); },
          [o, set_inner](cudaStream_t s) {
            lp::enqueue_switch(s, set_inner, {[o](cudaStream_t t) { mark_kernel<<<1, 1, 0, t>>>(o, 20); },
                                              [o](cudaStream_t t) { mark_kernel<<<1, 1, 0, t>>>(o, 21); }});
          }};
      // One key for all six runs: the graph is built once and the device's choice differs per run.
      lp::launch_planned(lp::plan_key("test/plan_graph", c, o), set_outer, bodies, nullptr);
      LP_CUDA(cudaDeviceSynchronize());
      const int want = outer == 0 ? 10 : outer == 1 ? 20 + inner : -1;
      CHECK_MSG(out.download()[0] == want, "outer " << outer << " inner " << inner << ": got " << out.download()[0] << ", want " << want);
    }
}

// auto's launcher end to end: the profile decides on the device, the slot says what it saw.
void test_run_auto() {
  for (const char* dist : {"uniform", "degenerate"}) {
    const std::int64_t n = 1 << 20;
    const auto l = harness::labels(n, 4096, dist, 1.0, 9);
    harness::DeviceBuffer<std::uint32_t> d;
    d.upload(l);
    harness::DeviceBuffer<char> scratch;
    scratch.resize(pf::kSlotBytes);
    harness::DeviceBuffer<int> out;
    out.upload(std::vector<int>{-1});
    int* o = out.get();
    const std::vector<lp::PlanBody> plans = {[o](cudaStream_t s) { mark_kernel<<<1, 1, 0, s>>>(o, 0); },
                                             [o](cudaStream_t s) { mark_kernel<<<1, 1, 0, s>>>(o, 1); }};
    const pf::Columns<std::uint32_t> cols{d.get(), n, 4096};
    pf::launch_auto(lp::plan_key("test/run_auto", o), cols, HotRule{}, pf::slot_in(scratch.get(), scratch.size()), plans, nullptr);
    LP_CUDA(cudaDeviceSynchronize());
    const int want = std::string(dist) == "degenerate" ? 1 : 0;
    CHECK_MSG(out.download()[0] == want, dist << ": plan " << out.download()[0]);
    pf::Slot slot;
    LP_CUDA(cudaMemcpy(&slot, pf::slot_in(scratch.get(), scratch.size()), sizeof slot, cudaMemcpyDeviceToHost));
    CHECK(slot.plan == unsigned(want));
  }
}

}  // namespace

int main() {
  if (no_gpu("test_gpu_profile")) return kSkipped;
  std::printf("profiles\n");
  std::fflush(stdout);
  test_profiles(quick_mode());
  std::printf("plan graph\n");
  std::fflush(stdout);
  test_plan_graph();
  std::printf("run_auto\n");
  std::fflush(stdout);
  test_run_auto();
  return test_summary("test_gpu_profile");
}
