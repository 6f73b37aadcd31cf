// The decision on the device (beyond the documents): a CUDA graph of the input profile pass and a
// switch node whose bodies are the plans, each captured from its ordinary launcher. The
// profile pass evaluates the decision table and sets the switch, so no host round trip lies between
// the look and the chosen work, and any plan may be a library call (CUB, Thrust) as long as it
// enqueues without synchronising.
//
// A graph bakes in every pointer, size and knob its launches were captured with, so the process keeps
// each one under a key that names all of them (plan_key), and replays it only for the same key;
// a launch with other arguments builds its own. Building happens in the first call (a benchmark's
// warm-up), never again for the same arguments.
#pragma once
#include <cuda_runtime.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <stdexcept>
#include <utility>
#include <vector>

#include "cuda_check.cuh"
#include "launch_cache.cuh"

namespace lp {

// A key from trivially copyable values: their bytes, in order (every graph's key starts with the
// launcher's own tag, so two launchers with the same arguments never share a graph).
inline void append_key(std::string&) {}
template <class T, class... Rest>
void append_key(std::string& k, const T& v, const Rest&... rest) {
  static_assert(std::is_trivially_copyable_v<T>, "plan keys are made of plain values");
  k.append(reinterpret_cast<const char*>(&v), sizeof(T));
  append_key(k, rest...);
}
template <class... Args>
std::string plan_key(const char* tag, const Args&... args) {
  std::string k(tag);
  k.push_back('\0');
  append_key(k, args...);
  return k;
}

using PlanLook = std::function<void(cudaGraphConditionalHandle, cudaStream_t)>;  // enqueues a kernel that sets the switch
using PlanBody = std::function<void(cudaStream_t)>;                              // enqueues one plan's launches

namespace plan_graph_detail {

struct Graph {
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  ~Graph() {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
  }
};

// Captures run on streams of their own per device and nesting depth (a switch inside a plan is
// captured while its plan's capture is open): non-blocking, so that nothing on the legacy stream
// joins a capture, and never a stream a caller times on.
inline thread_local int capture_depth = 0;
inline cudaStream_t capture_stream(int depth) {
  static std::mutex mu;
  static std::map<std::pair<int, int>, cudaStream_t> streams;
  std::lock_guard<std::mutex> lock(mu);
  cudaStream_t& s = streams[{current_device(), depth}];
  if (!s) LP_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  return s;
}

// Captures `enqueue` into `graph` (appending to what it holds).
inline void capture_into(cudaGraph_t graph, const std::function<void(cudaStream_t)>& enqueue) {
  cudaStream_t s = capture_stream(capture_depth);
  LP_CUDA(cudaStreamBeginCaptureToGraph(s, graph, nullptr, nullptr, 0, cudaStreamCaptureModeRelaxed));
  ++capture_depth;
  try {
    enqueue(s);
  } catch (...) {
    --capture_depth;
    // The capture ends either way; the graph it built belongs to the caller's (destroyed with it).
    cudaGraph_t dropped = nullptr;
    cudaStreamEndCapture(s, &dropped);
    cudaGetLastError();
    throw;
  }
  --capture_depth;
  cudaGraph_t same = nullptr;
  LP_CUDA(cudaStreamEndCapture(s, &same));
}

// The process's graphs, least recently used out beyond kKept (a graph holds nothing beyond its nodes;
// the buffers it names belong to the caller).
struct Cache {
  static constexpr std::size_t kKept = 64;
  std::mutex mu;
  std::list<std::pair<std::string, std::unique_ptr<Graph>>> graphs;  // most recent first
  std::unordered_map<std::string, std::list<std::pair<std::string, std::unique_ptr<Graph>>>::iterator> index;
};
inline Cache& cache() {
  static Cache c;
  return c;
}

}  // namespace plan_graph_detail

// While `s` is being captured (inside a plan body, or by launch_planned): enqueues `set` (a kernel
// that calls cudaGraphSetConditional on the handle it is given) and then a switch node that runs
// bodies[i] where the kernel set i, and nothing for any other value. The work enqueued on `s` after
// this call depends on the switch node.
inline void enqueue_switch(cudaStream_t s, const PlanLook& set, const std::vector<PlanBody>& bodies) {
  namespace d = plan_graph_detail;
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  cudaGraph_t graph = nullptr;
  LP_CUDA(cudaStreamGetCaptureInfo(s, &status, nullptr, &graph, nullptr, nullptr, nullptr));
  if (status != cudaStreamCaptureStatusActive) throw std::logic_error("enqueue_switch: the stream is not being captured");
  cudaGraphConditionalHandle handle{};
  // The switch runs no body unless the kernel sets it: an unset plan shows as a wrong answer in
  // validation, never as a silently different plan.
  LP_CUDA(cudaGraphConditionalHandleCreate(&handle, graph, unsigned(bodies.size()), cudaGraphCondAssignDefault));
  set(handle, s);
  const cudaGraphNode_t* deps = nullptr;
  std::size_t ndeps = 0;
  LP_CUDA(cudaStreamGetCaptureInfo(s, &status, nullptr, &graph, &deps, nullptr, &ndeps));
  cudaGraphNodeParams params{};
  params.type = cudaGraphNodeTypeConditional;
  params.conditional.handle = handle;
  params.conditional.type = cudaGraphCondTypeSwitch;
  params.conditional.size = unsigned(bodies.size());
  cudaGraphNode_t node = nullptr;
  LP_CUDA(cudaGraphAddNode(&node, graph, deps, nullptr, ndeps, &params));
  for (std::size_t i = 0; i < bodies.size(); ++i) d::capture_into(params.conditional.phGraph_out[i], bodies[i]);
  LP_CUDA(cudaStreamUpdateCaptureDependencies(s, &node, nullptr, 1, cudaStreamSetCaptureDependencies));
}

// Enqueues on `stream` the graph kept for `key` (the current device added) and returns true, or
// returns false where there is none yet: a caller tries this before it builds anything a capture
// would need, so that a replay costs the host one lookup.
inline bool launch_cached(const std::string& key, cudaStream_t stream) {
  namespace d = plan_graph_detail;
  const std::string full = key + plan_key("device", current_device());
  d::Cache& c = d::cache();
  std::lock_guard<std::mutex> lock(c.mu);
  auto at = c.index.find(full);
  if (at == c.index.end()) return false;
  if (at->second != c.graphs.begin()) c.graphs.splice(c.graphs.begin(), c.graphs, at->second);
  LP_CUDA(cudaGraphLaunch(c.graphs.front().second->exec, stream));
  return true;
}

// Enqueues on `stream` the graph for `key` (the current device added), captured from `enqueue` on
// first use (`enqueue` may call enqueue_switch: the decision then stays on the device).
inline void launch_graph(const std::string& key, const std::function<void(cudaStream_t)>& enqueue, cudaStream_t stream) {
  namespace d = plan_graph_detail;
  const std::string full = key + plan_key("device", current_device());
  d::Cache& c = d::cache();
  std::lock_guard<std::mutex> lock(c.mu);
  auto at = c.index.find(full);
  if (at == c.index.end()) {
    auto g = std::make_unique<d::Graph>();
    LP_CUDA(cudaGraphCreate(&g->graph, 0));
    d::capture_into(g->graph, enqueue);
    LP_CUDA(cudaGraphInstantiate(&g->exec, g->graph, 0));
    c.graphs.emplace_front(full, std::move(g));
    c.index[full] = c.graphs.begin();
    while (c.graphs.size() > d::Cache::kKept) {
      c.index.erase(c.graphs.back().first);
      c.graphs.pop_back();
    }
  } else if (at->second != c.graphs.begin()) {
    c.graphs.splice(c.graphs.begin(), c.graphs, at->second);
  }
  LP_CUDA(cudaGraphLaunch(c.graphs.front().second->exec, stream));
}

// The graph of `look` (the profile pass, input_profile.cuh, setting the switch) and the switch over
// `plans`, for `key`.
inline void launch_planned(const std::string& key, const PlanLook& look, const std::vector<PlanBody>& plans, cudaStream_t stream) {
  launch_graph(key, [&](cudaStream_t s) { enqueue_switch(s, look, plans); }, stream);
}

}  // namespace lp
