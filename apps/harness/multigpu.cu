#include <cuda_runtime.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "kernels/common/cuda_check.cuh"
#include "gpu.hpp"
#include "multigpu.hpp"
#include "study.hpp"

#ifndef LP_CUDA_LIB_DIR
#define LP_CUDA_LIB_DIR ""
#endif

namespace harness {

Range shard_range(std::int64_t n, int shards, int k) {
  const std::int64_t base = n / shards, extra = n % shards;
  Range r;
  r.begin = k * base + std::min<std::int64_t>(k, extra);
  r.end = r.begin + base + (k < extra ? 1 : 0);
  return r;
}

namespace {

template <class F>
void bind(void* lib, const char* name, F& f, std::string& missing) {
  f = reinterpret_cast<F>(dlsym(lib, name));
  if (!f) missing += std::string(missing.empty() ? "" : ", ") + name;
}

NcclApi load_nccl() {
  // NVLink multicast (NVLS) off unless the user says otherwise: on the shared lent machines a
  // program using it can take the host's GPUs out of service.
  setenv("NCCL_NVLS_ENABLE", "0", 0);
  std::vector<std::string> tries;
  if (const char* env = std::getenv("LP_NCCL_LIBRARY"); env && *env) {
    tries.push_back(env);  // the user's choice only: a wrong path is reported, not silently replaced
  } else {
    tries.push_back("libnccl.so.2");
    if (*LP_CUDA_LIB_DIR) tries.push_back(std::string(LP_CUDA_LIB_DIR) + "/libnccl.so.2");
  }
  std::string errors;
  for (const std::string& path : tries) {
    void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
      const char* e = dlerror();
      errors += std::string(errors.empty() ? "" : "; ") + (e ? e : path);
      continue;
    }
    NcclApi api;
    api.path = path;
    std::string missing;
    bind(lib, "ncclGetVersion", api.GetVersion, missing);
    bind(lib, "ncclGetErrorString", api.GetErrorString, missing);
    bind(lib, "ncclCommInitAll", api.CommInitAll, missing);
    bind(lib, "ncclGroupStart", api.GroupStart, missing);
    bind(lib, "ncclGroupEnd", api.GroupEnd, missing);
    bind(lib, "ncclReduce", api.Reduce, missing);
    bind(lib, "ncclAllReduce", api.AllReduce, missing);
    bind(lib, "ncclSend", api.Send, missing);
    bind(lib, "ncclRecv", api.Recv, missing);
    bind(lib, "ncclGetUniqueId", api.GetUniqueId, missing);
    bind(lib, "ncclCommInitRank", api.CommInitRank, missing);
    if (!missing.empty()) throw Unsupported("NCCL not available: " + path + " lacks " + missing);
    api.GetVersion(&api.version);
    return api;
  }
  throw Unsupported("NCCL not available (" + errors + "; set LP_NCCL_LIBRARY to libnccl.so.2's path)");
}

std::string run_command(const char* cmd) {
  std::string out;
  if (FILE* f = popen(cmd, "r")) {
    char buf[4096];
    std::size_t got;
    while ((got = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, got);
    pclose(f);
  }
  return out;
}

std::string probe_interconnect(int gpus) {
  if (gpus < 2) return "none (one GPU)";
  int have = 0;
  if (cudaGetDeviceCount(&have) != cudaSuccess) have = 0;
  gpus = std::min(gpus, have);  // the rank mode's world may span hosts: this host's GPUs are what can be asked
  if (gpus < 2) return "not known (one GPU on this host)";
  // Device 0 to each other device; where links differ, all of them are named.
  const std::string topo = run_command("nvidia-smi topo -m 2>/dev/null");
  std::string out;
  for (int b = 1; b < gpus; ++b) {
    std::string kind = link_kind(topo_cell(topo, 0, b));
    if (kind.empty()) {
      int can = 0;
      LP_CUDA(cudaDeviceCanAccessPeer(&can, 0, b));
      kind = can ? "peer access (link not reported)" : "no peer access (link not reported)";
    }
    if (out.find(kind) == std::string::npos) out += (out.empty() ? "" : ", ") + kind;
  }
  return out;
}

}  // namespace

const NcclApi& nccl() {
  static std::mutex mu;
  static std::unique_ptr<NcclApi> api;
  static std::string failure;
  std::lock_guard<std::mutex> lock(mu);
  if (api) return *api;
  if (!failure.empty()) throw Unsupported(failure);
  try {
    api = std::make_unique<NcclApi>(load_nccl());
  } catch (const Unsupported& e) {
    failure = e.what();
    throw;
  }
  return *api;
}

void nccl_check(ncclResult_t r, const char* what) {
  if (r == ncclSuccess || r == ncclInProgress) return;
  const char* why = nccl().GetErrorString ? nccl().GetErrorString(r) : "unknown";
  throw std::runtime_error(std::string(what) + " failed: NCCL error " + std::to_string(int(r)) + " (" + why + ")");
}

std::string topo_cell(const std::string& text, int a, int b) {
  std::istringstream lines(text);
  std::string line;
  std::vector<std::string> header;
  const std::string want_col = "GPU" + std::to_string(b), want_row = "GPU" + std::to_string(a);
  while (std::getline(lines, line)) {
    // nvidia-smi underlines the column titles with terminal escapes (ESC [ 4 m ... ESC [ 0 m) even
    // into a pipe: drop them.
    for (std::size_t at; (at = line.find('\x1b')) != std::string::npos;) {
      const std::size_t end = line.find('m', at);
      line.erase(at, end == std::string::npos ? std::string::npos : end - at + 1);
    }
    std::istringstream ws(line);
    std::vector<std::string> tok;
    for (std::string t; ws >> t;) tok.push_back(t);
    if (tok.empty()) continue;
    if (header.empty()) {
      if (tok[0] == "GPU0") header = tok;  // the column titles: GPU0 GPU1 ... CPU Affinity ...
      continue;
    }
    if (tok[0] != want_row) continue;
    for (std::size_t c = 0; c < header.size(); ++c)
      if (header[c] == want_col) return c + 1 < tok.size() ? tok[c + 1] : "";
    return "";
  }
  return "";
}

std::string link_kind(const std::string& cell) {
  if (cell.empty() || cell == "X") return "";
  if (cell.rfind("NV", 0) == 0) return "NVLink (" + cell + ")";
  for (const char* pcie : {"PIX", "PXB", "PHB", "NODE", "SYS"})
    if (cell == pcie) return "PCIe (" + cell + ")";
  return "unknown (" + cell + ")";
}

DeviceScope::DeviceScope(int device) {
  LP_CUDA(cudaGetDevice(&previous_));
  if (device != previous_) LP_CUDA(cudaSetDevice(device));
}
DeviceScope::~DeviceScope() { cudaSetDevice(previous_); }

PinnedRegion::PinnedRegion(const void* p, std::size_t bytes) {
  if (!p || bytes == 0) return;
  cudaError_t e = cudaHostRegister(const_cast<void*>(p), bytes, cudaHostRegisterPortable);
  if (e == cudaErrorMemoryAllocation || e == cudaErrorHostMemoryAlreadyRegistered) {
    cudaGetLastError();
    if (e == cudaErrorMemoryAllocation) throw OutOfMemory("cudaHostRegister of " + std::to_string(bytes >> 20) + " MiB");
    return;  // registered by an earlier region over the same memory: that one unregisters it
  }
  LP_CUDA(e);
  p_ = const_cast<void*>(p);
}
PinnedRegion::~PinnedRegion() {
  if (p_) cudaHostUnregister(p_);
}

DeviceGroup::DeviceGroup(int gpus) {
  const NcclApi& api = nccl();
  int have = 0;
  LP_CUDA(cudaGetDeviceCount(&have));
  if (gpus > have)
    throw Unsupported("gpus = " + std::to_string(gpus) + ": this machine has " + std::to_string(have) + " CUDA device" +
                      (have == 1 ? "" : "s"));
  int origin = 0;
  LP_CUDA(cudaGetDevice(&origin));
  streams_.resize(std::size_t(gpus));
  copy_streams_.resize(std::size_t(gpus));
  joined_.resize(std::size_t(gpus));
  for (int k = 0; k < gpus; ++k) {
    flush_l2_also(k);  // a cold repetition is cold on every GPU of the group
    DeviceScope on(k);
    LP_CUDA(cudaStreamCreateWithFlags(&streams_[std::size_t(k)], cudaStreamNonBlocking));
    LP_CUDA(cudaStreamCreateWithFlags(&copy_streams_[std::size_t(k)], cudaStreamNonBlocking));
    LP_CUDA(cudaEventCreateWithFlags(&joined_[std::size_t(k)], cudaEventDisableTiming));
  }
  LP_CUDA(cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming));  // on the origin device
  comms_.resize(std::size_t(gpus));
  for (int k = 0; k < gpus; ++k) devices_.push_back(k), shards_.push_back(k);
  world_ = gpus;
  nccl_check(api.CommInitAll(comms_.data(), gpus, devices_.data()), "ncclCommInitAll");
  LP_CUDA(cudaSetDevice(origin));
  interconnect_ = probe_interconnect(gpus);
}

DeviceGroup::DeviceGroup(int device, int rank, int world, ncclComm_t comm)
    : comms_{comm}, devices_{device}, shards_{rank}, world_(world), ranks_(true) {
  DeviceScope on(device);
  streams_.resize(1);
  copy_streams_.resize(1);
  joined_.resize(1);
  LP_CUDA(cudaStreamCreateWithFlags(&streams_[0], cudaStreamNonBlocking));
  LP_CUDA(cudaStreamCreateWithFlags(&copy_streams_[0], cudaStreamNonBlocking));
  LP_CUDA(cudaEventCreateWithFlags(&joined_[0], cudaEventDisableTiming));
  LP_CUDA(cudaEventCreateWithFlags(&forked_, cudaEventDisableTiming));
  interconnect_ = probe_interconnect(world);
  if (world > 1) interconnect_ += " (this host's GPUs; ranks on other hosts reach them over the network NCCL finds)";
}

int DeviceGroup::slot_of(int shard) const {
  for (int k = 0; k < size(); ++k)
    if (shards_[std::size_t(k)] == shard) return k;
  return -1;
}

void DeviceGroup::across_ranks(std::vector<double>& v, ncclRedOp_t op) const {
  if (!ranks_ || v.empty()) return;
  DeviceScope on(devices_[0]);
  double* d = nullptr;
  LP_CUDA(cudaMallocAsync(reinterpret_cast<void**>(&d), v.size() * sizeof(double), streams_[0]));
  LP_CUDA(cudaMemcpyAsync(d, v.data(), v.size() * sizeof(double), cudaMemcpyHostToDevice, streams_[0]));
  nccl_check(nccl().AllReduce(d, d, v.size(), ncclFloat64, op, comms_[0], streams_[0]), "ncclAllReduce");
  LP_CUDA(cudaMemcpyAsync(v.data(), d, v.size() * sizeof(double), cudaMemcpyDeviceToHost, streams_[0]));
  LP_CUDA(cudaFreeAsync(d, streams_[0]));
  LP_CUDA(cudaStreamSynchronize(streams_[0]));
}

Params DeviceGroup::describe() const {
  Params p;
  p["gpus"] = std::int64_t(world_);
  p["interconnect"] = interconnect_;
  p["nccl"] = std::to_string(nccl().version);
  p["mode"] = std::string(ranks_ ? "ranks" : "one process");
  return p;
}

namespace {
DeviceGroup* g_rank_group = nullptr;
}
DeviceGroup* rank_group() { return g_rank_group; }
void set_rank_group(DeviceGroup* g) { g_rank_group = g; }

DeviceGroup& DeviceGroup::of(int gpus) {
  if (DeviceGroup* g = rank_group()) {
    if (gpus != g->world())
      throw Unsupported("gpus = " + std::to_string(gpus) + " in a job of " + std::to_string(g->world()) +
                        " ranks (the rank mode's gpus is the world size)");
    return *g;
  }
  static std::mutex mu;
  // Kept until exit on purpose: destroying communicators in static destruction races the CUDA
  // runtime's own teardown.
  static std::map<int, DeviceGroup*> groups;
  std::lock_guard<std::mutex> lock(mu);
  auto it = groups.find(gpus);
  if (it != groups.end()) return *it->second;
  DeviceGroup* g = new DeviceGroup(gpus);
  groups[gpus] = g;
  return *g;
}

void DeviceGroup::fork(cudaStream_t origin) {
  // The fork event lives on the device that was current when the group was made; record it from
  // there (the origin stream belongs to that device: the harness made it there).
  LP_CUDA(cudaEventRecord(forked_, origin));
  if (ranks_) {
    run_stream_ = origin;
    LP_CUDA(cudaStreamWaitEvent(copy_streams_[0], forked_, 0));
    return;
  }
  for (int k = 0; k < size(); ++k) {
    DeviceScope on(device(k));
    LP_CUDA(cudaStreamWaitEvent(streams_[std::size_t(k)], forked_, 0));
    LP_CUDA(cudaStreamWaitEvent(copy_streams_[std::size_t(k)], forked_, 0));
  }
}

void DeviceGroup::join(cudaStream_t origin) {
  if (ranks_) return;  // the work was on origin (fork)
  for (int k = 0; k < size(); ++k) {
    DeviceScope on(device(k));
    LP_CUDA(cudaEventRecord(joined_[std::size_t(k)], streams_[std::size_t(k)]));
  }
  for (int k = 0; k < size(); ++k) LP_CUDA(cudaStreamWaitEvent(origin, joined_[std::size_t(k)], 0));
}

}  // namespace harness
