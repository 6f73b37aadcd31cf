#include "rank_world.hpp"

#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>

#include "kernels/common/cuda_check.cuh"

namespace harness {

namespace rk = lp::harness::ranks;

namespace {
RankWorld* g_world = nullptr;
constexpr std::size_t kTextBytes = 1000;

// One line to stderr, whole, from any thread (the presence watch's included), then the exit: no
// destructor, no atexit handler, so no results file is written after it.
[[noreturn]] void end_now(const std::string& line, int code) {
  const std::string l = line + "\n";
  ssize_t ignored = ::write(2, l.data(), l.size());
  (void)ignored;
  std::_Exit(code);
}
}  // namespace

RankWorld* RankWorld::active() { return g_world; }

std::string RankWorld::bootstrap_path(const std::string& given, int world, const std::string& tag) {
  if (!given.empty()) return given;
  if (const char* e = std::getenv("LP_BOOTSTRAP"); e && *e) return e;
  const char* tmp = std::getenv("TMPDIR");
  std::string clean;
  for (char c : tag) clean.push_back(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' ? c : '_');
  return std::string(tmp && *tmp ? tmp : "/tmp") + "/lp-nccl-id-" + (clean.empty() ? "untagged" : clean) + "-w" + std::to_string(world);
}

RankWorld& RankWorld::join(const rk::Identity& id, int device, const Options& o) {
  if (g_world) throw std::logic_error("RankWorld::join: once per process");
  nccl();  // where NCCL cannot be loaded, the one line says so before any rank waits
  auto* w = new RankWorld();
  w->id_ = id;
  w->prog_ = o.prog;
  const std::string tag = rk::job_tag(rk::process_env());
  w->path_ = bootstrap_path(o.bootstrap, id.world, tag);
  const std::string who = o.prog + ": rank " + std::to_string(id.rank) + " of " + std::to_string(id.world);
  rk::PresenceLimits lim;
  lim.arrive_s = o.arrive_s;
  lim.stale_s = o.stale_s;
  w->arrive_s_ = o.arrive_s;
  w->presence_ = std::make_unique<rk::Presence>(w->path_, id.rank, id.world, tag, lim,
                                                [who](const std::string& line) { end_now(who + ": " + line + "; ending this rank", 5); });
  try {
    w->connect(device, tag);
  } catch (const std::exception& e) {
    w->presence_->failed(std::string("joining the job failed: ") + e.what());  // its peers end now, naming it
    throw;
  }
  set_rank_group(w->group_.get());
  g_world = w;
  return *w;
}

void RankWorld::connect(int device, const std::string& tag) {
  const NcclApi& api = nccl();
  const rk::Identity& id = id_;
  rk::UniqueId uid{};
  static_assert(sizeof(ncclUniqueId) == rk::kIdBytes, "NCCL's unique id size");
  if (id.rank == 0) {
    ncclUniqueId nid;
    nccl_check(api.GetUniqueId(&nid), "ncclGetUniqueId");
    std::memcpy(uid.data(), &nid, rk::kIdBytes);
    rk::publish_id(path_, uid, id.world, tag);
  } else {
    uid = rk::await_id(path_, id.world, tag, id.rank, arrive_s_);
  }
  ncclUniqueId nid;
  std::memcpy(&nid, uid.data(), rk::kIdBytes);
  LP_CUDA(cudaSetDevice(device));
  // Waits for every rank: one that never comes is named by the presence watch within arrive_s.
  nccl_check(api.CommInitRank(&comm_, id.world, nid, id.rank), "ncclCommInitRank");
  // Every rank has read the id by now (none could join without it).
  if (id.rank == 0) std::remove(path_.c_str());
  LP_CUDA(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking));
  LP_CUDA(cudaMalloc(&scratch_, kTextBytes * std::size_t(id.world)));
  group_ = std::make_unique<DeviceGroup>(device, id.rank, id.world, comm_);
}

void RankWorld::barrier(cudaStream_t s) {
  nccl_check(nccl().AllReduce(scratch_, scratch_, 1, ncclInt32, ncclSum, comm_, s), "ncclAllReduce (barrier)");
}

double RankWorld::max(double v) {
  std::vector<double> x{v};
  group_->across_ranks(x, ncclMax);
  return x[0];
}

std::vector<std::string> RankWorld::gather_text(const std::string& mine) {
  // Each rank's text in its own slot of zeros, summed: every rank gets every slot.
  std::vector<unsigned char> all(kTextBytes * std::size_t(world()), 0);
  std::memcpy(all.data() + kTextBytes * std::size_t(rank()), mine.data(), std::min(mine.size(), kTextBytes - 1));
  LP_CUDA(cudaMemcpyAsync(scratch_, all.data(), all.size(), cudaMemcpyHostToDevice, stream_));
  nccl_check(nccl().AllReduce(scratch_, scratch_, all.size(), ncclUint8, ncclSum, comm_, stream_), "ncclAllReduce (outcomes)");
  LP_CUDA(cudaMemcpyAsync(all.data(), scratch_, all.size(), cudaMemcpyDeviceToHost, stream_));
  LP_CUDA(cudaStreamSynchronize(stream_));
  std::vector<std::string> out;
  for (int r = 0; r < world(); ++r) {
    const char* p = reinterpret_cast<const char*>(all.data() + kTextBytes * std::size_t(r));
    out.emplace_back(p, strnlen(p, kTextBytes));
  }
  return out;
}

void RankWorld::fail(const std::string& line, int code) {
  if (presence_) presence_->failed(line);
  end_now(prog_ + ": rank " + std::to_string(rank()) + " of " + std::to_string(world()) + ": " + line, code);
}

void RankWorld::done() {
  if (!presence_) return;
  presence_->done();
  presence_.reset();  // stops the watch and removes this rank's file: its peers read that as a clean exit
}

}  // namespace harness
