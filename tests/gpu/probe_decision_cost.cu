// What auto's decision on the device costs, piece by piece (beyond the documents): one plan timed as
// the benchmarks time a variant (L2 flushed, CUDA events around one launch, the median of 200),
// alone and behind each part of the mechanism of kernels/common/plan_graph.cuh: a graph, the
// profile pass (kernels/common/input_profile.cuh) before it, the conditional switch that runs it;
// and the alternatives to the switch: the deciding kernel launching the plan's graph itself (tail
// or fire-and-forget launch). Every case's output is checked. A probe, not a test: it prints a line
// per case and writes them as JSON (argument 1); docs/auto.md cites the committed run.
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "apps/harness/datagen.hpp"
#include "apps/harness/device_buffer.hpp"
#include "apps/harness/gpu.hpp"
#include "gpu_test.hpp"
#include "kernels/common/auto_launch.cuh"

namespace pf = lp::profile;

namespace {

// The plan: dst[i] = src[i] + *salt over n elements. The salt is a device word set before each
// timed launch, so one executable graph serves every launch and the check sees which one ran last.
__global__ void plan_kernel(const std::uint32_t* __restrict__ src, std::uint32_t* __restrict__ dst, std::int64_t n,
                            const std::uint32_t* salt) {
  const std::uint32_t k = *salt;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    dst[i] = src[i] + k;
}

__global__ void set_word_kernel(std::uint32_t* p, std::uint32_t v) { *p = v; }

// Counts the plan's outputs that do not hold src + *salt: enqueued right behind a launch, it sees
// whether the launched work (a device-side launch too) is ordered before later work on the stream.
__global__ void verify_kernel(const std::uint32_t* __restrict__ src, const std::uint32_t* __restrict__ dst, std::int64_t n,
                              const std::uint32_t* salt, unsigned* wrong) {
  const std::uint32_t k = *salt;
  unsigned bad = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n; i += std::int64_t(gridDim.x) * blockDim.x)
    bad += dst[i] != src[i] + k;
  if (bad) atomicAdd(wrong, bad);
}

struct Plan {
  const std::uint32_t* src;
  std::uint32_t* dst;
  std::int64_t n;
  const std::uint32_t* salt;
  void enqueue(cudaStream_t s) const {
    const int blocks = int(std::min<std::int64_t>((n + 255) / 256, 132 * 8));
    plan_kernel<<<blocks, 256, 0, s>>>(src, dst, n, salt);
    LP_CUDA_LAUNCH("plan_kernel");
  }
};

// A decision table that always answers `plan` (the profile pass still computes everything).
struct ConstRule {
  unsigned plan;
  LP_HD unsigned operator()(const pf::Profile&, const pf::Profile&, double) const { return plan; }
};

// The switch set without a look: the switch's own cost.
__global__ void set_only_kernel(cudaGraphConditionalHandle h, unsigned v) {
  if (threadIdx.x == 0) cudaGraphSetConditional(h, v);
}

// The alternative to the switch: the deciding kernel launches the plan's graph itself.
__device__ int g_launch_error;
__global__ void launch_from_device_kernel(cudaGraphExec_t body, int fire_and_forget) {
  if (threadIdx.x == 0) {
    const cudaError_t e = cudaGraphLaunch(body, fire_and_forget ? cudaStreamGraphFireAndForget : cudaStreamGraphTailLaunch);
    if (e != cudaSuccess) g_launch_error = int(e);
  }
}

struct Exec {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  Exec() = default;
  Exec(const Exec&) = delete;
  Exec& operator=(const Exec&) = delete;
  ~Exec() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
  }
};

// Captures `enqueue` on a stream of its own and instantiates it with `flags` (uploaded where it is
// to be launched from the device).
void capture(Exec& g, const std::function<void(cudaStream_t)>& enqueue, unsigned long long flags, cudaStream_t upload) {
  cudaStream_t s;
  LP_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  LP_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeRelaxed));
  try {
    enqueue(s);
  } catch (...) {
    cudaGraph_t dropped = nullptr;
    cudaStreamEndCapture(s, &dropped);
    if (dropped) cudaGraphDestroy(dropped);
    cudaStreamDestroy(s);
    throw;
  }
  LP_CUDA(cudaStreamEndCapture(s, &g.graph));
  LP_CUDA(cudaStreamDestroy(s));
  LP_CUDA(cudaGraphInstantiate(&g.exec, g.graph, flags));
  if (flags & cudaGraphInstantiateFlagDeviceLaunch) LP_CUDA(cudaGraphUpload(g.exec, upload));
}

double pick(std::vector<double> v, double q) {
  std::sort(v.begin(), v.end());
  return v[std::size_t(q * double(v.size() - 1) + 0.5)];
}

}  // namespace

int main(int argc, char** argv) {
  if (no_gpu("probe_decision_cost")) return kSkipped;
  const std::string out_path = argc > 1 ? argv[1] : "";
  int l2 = 0;
  LP_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  harness::GpuTimer timer(l2);
  const auto stream = static_cast<cudaStream_t>(timer.stream());

  // The profile's column: 2^24 uniform labels over 2^20 (a study's auto looks at such a column).
  const std::int64_t n_labels = std::int64_t(1) << 24;
  harness::DeviceBuffer<std::uint32_t> labels, salt;
  labels.upload(harness::labels(n_labels, 1u << 20, "uniform", 0.0, 7));
  salt.resize(1);
  harness::DeviceBuffer<pf::Slot> slot;
  slot.resize(1);
  harness::DeviceBuffer<unsigned> wrong;
  wrong.resize(1);
  const pf::Columns<std::uint32_t> cols{labels.get(), n_labels, 1u << 20};
  const ConstRule rule0{0};

  nlohmann::json out = nlohmann::json::array();
  bool all_ok = true;
  constexpr int kWarmup = 5, kTrials = 200;
  std::uint32_t epoch = 0;
  for (const std::int64_t n : {std::int64_t(1) << 10, std::int64_t(1) << 22}) {
    harness::DeviceBuffer<std::uint32_t> src, dst;
    std::vector<std::uint32_t> host(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) host[std::size_t(i)] = std::uint32_t(std::uint64_t(i) * 2654435761u);
    src.upload(host);
    dst.resize(std::size_t(n));
    const Plan plan{src.get(), dst.get(), n, salt.get()};
    const std::string size = n == 1024 ? "tiny" : "2^22";

    // One case: `launch` enqueues the timed work; the plan's output must hold the salt set before
    // the last launch (the switch ran the right body; a launch from the device finished in order).
    auto run_case = [&](const std::string& name, const std::string& what, const std::function<void()>& launch) {
      nlohmann::json r{{"case", name}, {"plan", size}, {"n", n}, {"what", what}};
      std::vector<double> us;
      std::string error;
      try {
        for (int t = 0; t < kWarmup + kTrials; ++t) {
          set_word_kernel<<<1, 1, 0, stream>>>(salt.get(), ++epoch);
          LP_CUDA_LAUNCH("set_word_kernel");
          timer.flush_l2();
          timer.start();
          launch();
          const double ms = timer.stop_ms();
          if (t >= kWarmup) us.push_back(ms * 1e3);
        }
        // One more launch, untimed, with the check enqueued right behind it on the stream.
        set_word_kernel<<<1, 1, 0, stream>>>(salt.get(), ++epoch);
        LP_CUDA_LAUNCH("set_word_kernel");
        LP_CUDA(cudaMemsetAsync(wrong.get(), 0, sizeof(unsigned), stream));
        launch();
        verify_kernel<<<264, 256, 0, stream>>>(plan.src, plan.dst, n, salt.get(), wrong.get());
        LP_CUDA_LAUNCH("verify_kernel");
        LP_CUDA(cudaStreamSynchronize(stream));
        // The check compares every output with src + the last salt: a wrong body, a launch that did
        // not run, or one not ordered before the check all show here.
        if (wrong.download()[0] != 0) error = "the output does not hold the last launch's salt when the stream's next work runs";
        int dev_err = 0;
        LP_CUDA(cudaMemcpyFromSymbol(&dev_err, g_launch_error, sizeof(int)));
        if (dev_err) error = std::string("device-side cudaGraphLaunch: ") + cudaGetErrorString(cudaError_t(dev_err));
      } catch (const std::exception& e) {
        error = e.what();
      }
      if (!error.empty()) {
        cudaGetLastError();
        all_ok = false;
        r["error"] = error;
      } else {
        r["median_us"] = pick(us, 0.5), r["p10_us"] = pick(us, 0.1), r["p90_us"] = pick(us, 0.9);
      }
      std::printf("%-22s %-5s %9.2f us (p10 %8.2f, p90 %8.2f)  %s\n", name.c_str(), size.c_str(), error.empty() ? pick(us, 0.5) : 0.0,
                  error.empty() ? pick(us, 0.1) : 0.0, error.empty() ? pick(us, 0.9) : 0.0, error.empty() ? "ok" : error.c_str());
      std::fflush(stdout);
      out.push_back(r);
    };
    // A case over a graph built once from `build` (instantiated with `flags`).
    auto graph_case = [&](const std::string& name, const std::string& what, const std::function<void(cudaStream_t)>& build,
                          unsigned long long flags = 0) {
      Exec g;
      try {
        capture(g, build, flags, stream);
        LP_CUDA(cudaStreamSynchronize(stream));
      } catch (const std::exception& e) {
        cudaGetLastError();
        all_ok = false;
        std::printf("%-22s %-5s build failed: %s\n", name.c_str(), size.c_str(), e.what());
        out.push_back({{"case", name}, {"plan", size}, {"n", n}, {"what", what}, {"error", std::string("build: ") + e.what()}});
        return;
      }
      run_case(name, what, [&] { LP_CUDA(cudaGraphLaunch(g.exec, stream)); });
    };

    run_case("stream", "the plan launched on the stream: a variant's own time", [&] { plan.enqueue(stream); });
    graph_case("graph", "the plan as a graph of one node", [&](cudaStream_t s) { plan.enqueue(s); });
    graph_case("look_then_plan", "graph: the profile pass (no switch), then the plan", [&](cudaStream_t s) {
      pf::launch_look(cols, rule0, slot.get(), s);
      plan.enqueue(s);
    });
    graph_case("switch_only", "graph: a one-thread kernel sets the switch, the switch runs the plan", [&](cudaStream_t s) {
      lp::enqueue_switch(
          s, [](cudaGraphConditionalHandle h, cudaStream_t cs) { set_only_kernel<<<1, 32, 0, cs>>>(h, 0u); },
          {[&](cudaStream_t cs) { plan.enqueue(cs); }, [](cudaStream_t) {}});
    });
    graph_case("look_switch", "graph: the profile pass sets the switch, the switch runs the plan (auto today)", [&](cudaStream_t s) {
      lp::enqueue_switch(s, pf::profile_look(cols, rule0, slot.get()), {[&](cudaStream_t cs) { plan.enqueue(cs); }, [](cudaStream_t) {}});
    });
    graph_case("look_switch_6", "the same with six bodies (the plan and five others of two kernels each)", [&](cudaStream_t s) {
      std::vector<lp::PlanBody> bodies{[&](cudaStream_t cs) { plan.enqueue(cs); }};
      for (int k = 0; k < 5; ++k)
        bodies.push_back([&](cudaStream_t cs) {
          plan.enqueue(cs);
          plan.enqueue(cs);
        });
      lp::enqueue_switch(s, pf::profile_look(cols, rule0, slot.get()), bodies);
    });

    // The plan's graph launched from the device by the kernel that decides.
    Exec body;
    bool body_ok = true;
    try {
      capture(body, [&](cudaStream_t s) { plan.enqueue(s); }, cudaGraphInstantiateFlagDeviceLaunch, stream);
      LP_CUDA(cudaStreamSynchronize(stream));
    } catch (const std::exception& e) {
      cudaGetLastError();
      body_ok = false, all_ok = false;
      std::printf("device launch: the plan's graph for device launch failed: %s\n", e.what());
      out.push_back({{"case", "device_launch"}, {"plan", size}, {"error", std::string("body: ") + e.what()}});
    }
    if (body_ok) {
      for (const int ff : {0, 1}) {
        const std::string how = ff ? "fire-and-forget" : "tail", tag = ff ? "ff" : "tail";
        auto launcher = [b = body.exec, ff](cudaStream_t s) {
          launch_from_device_kernel<<<1, 32, 0, s>>>(b, ff);
          LP_CUDA_LAUNCH("launch_from_device_kernel");
        };
        graph_case("launch_" + tag, "graph: a one-thread kernel launches the plan's graph (" + how + ")", launcher);
        graph_case("look_launch_" + tag, "graph: the profile pass, then a kernel launches the plan's graph (" + how + ")",
                   [&](cudaStream_t s) {
                     pf::launch_look(cols, rule0, slot.get(), s);
                     launcher(s);
                   });
        graph_case("launch_" + tag + "_devgraph", "the same launcher in a graph instantiated for device launch (" + how + ")", launcher,
                   cudaGraphInstantiateFlagDeviceLaunch);
      }
    }
  }
  // The profile pass alone as a graph node (what records carry as look_us).
  const double look_us = harness::time_enqueued_us([&](void* s) { pf::launch_look(cols, rule0, slot.get(), static_cast<cudaStream_t>(s)); });
  std::printf("profile pass as a graph node: %.2f us\n", look_us);
  out.push_back({{"case", "profile_node"}, {"what", "the profile pass alone, as one of 16 back-to-back graph nodes"}, {"median_us", look_us}});

  if (!out_path.empty()) {
    cudaDeviceProp prop{};
    LP_CUDA(cudaGetDeviceProperties(&prop, 0));
    std::ofstream f(out_path);
    f << nlohmann::json{{"probe", "decision_cost"}, {"gpu", prop.name}, {"trials", kTrials}, {"cases", out}}.dump(1) << "\n";
  }
  return all_ok ? 0 : 1;
}
