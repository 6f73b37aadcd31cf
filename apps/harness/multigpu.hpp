// Several GPUs of one host driven by one process: the shards of an input, NCCL loaded at
// run time, a cached group of devices with their streams and communicators, and the link between
// them. It knows no algorithm: a study hands it inputs and a local step (sharded_buckets.cuh).
//
// Two ways to hold the shards, one interface (DeviceGroup): one process drives every device
// (ncclCommInitAll; the default: a variant's timed region is one CUDA-event interval on the origin
// GPU that brackets every device's work, and no launcher joins the dependencies, at the cost of one
// host thread enqueueing for all devices), or, in the rank mode (rank_world.hpp), this process is
// one rank of a job and holds one shard on one GPU, its communicator spanning the job's ranks. The
// engines loop over the group's local slots and ask each slot which shard of the world it is.
#pragma once
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <cstdint>
#include <string>
#include <vector>

#include "study.hpp"

namespace harness {

// Input positions [begin, end) of shard k of n inputs over `shards` devices: contiguous, in
// order, sizes differing by at most one (the first n % shards shards take one more).
struct Range {
  std::int64_t begin = 0, end = 0;
  std::int64_t size() const { return end - begin; }
};
Range shard_range(std::int64_t n, int shards, int k);

// NCCL, found at run time: $LP_NCCL_LIBRARY if set, else libnccl.so.2 on the loader's path, else
// the CUDA toolkit's lib directory this build was configured with. Loading it (not linking) keeps
// every executable starting on machines without NCCL; only the multi-GPU variants need it, and
// they are skipped there with the reason. Before the first use, NCCL_NVLS_ENABLE=0 is set unless
// the environment sets it (NVLink multicast stays off on the shared lent machines).
struct NcclApi {
  std::string path;  // the file loaded
  int version = 0;   // ncclGetVersion: 22809 is 2.28.9
  decltype(&ncclGetVersion) GetVersion = nullptr;
  decltype(&ncclGetErrorString) GetErrorString = nullptr;
  decltype(&ncclCommInitAll) CommInitAll = nullptr;
  decltype(&ncclGroupStart) GroupStart = nullptr;
  decltype(&ncclGroupEnd) GroupEnd = nullptr;
  decltype(&ncclReduce) Reduce = nullptr;
  decltype(&ncclAllReduce) AllReduce = nullptr;
  decltype(&ncclSend) Send = nullptr;
  decltype(&ncclRecv) Recv = nullptr;
  decltype(&ncclGetUniqueId) GetUniqueId = nullptr;  // the rank mode's
  decltype(&ncclCommInitRank) CommInitRank = nullptr;
};
// Throws Unsupported("NCCL not available: ...") where it cannot be loaded.
const NcclApi& nccl();
// Throws std::runtime_error naming the call where NCCL reports an error.
void nccl_check(ncclResult_t r, const char* what);

// The cell of `nvidia-smi topo -m` output for GPU a and GPU b ("NV18", "PIX", "SYS", ...), or ""
// where the text does not have it.
std::string topo_cell(const std::string& topo_text, int a, int b);
// What a cell means: "NVLink (NV18)", "PCIe (PHB)", ...
std::string link_kind(const std::string& cell);

// The shards of a world of `world()` GPUs that this process holds: its local slots 0..size()-1,
// each a device with a compute stream, a copy stream and its NCCL communicator. One process:
// devices 0..gpus-1 are shards 0..gpus-1, created once per process and gpus (NCCL's set-up takes a
// second; the group is keyed on the device count, the only thing it depends on) and kept until
// exit. Rank mode: one slot, this rank's GPU, shard = rank (RankWorld::group).
class DeviceGroup {
 public:
  // Throws Unsupported when the machine has fewer devices or NCCL is missing, or, in the rank
  // mode, when gpus is not the job's world size.
  static DeviceGroup& of(int gpus);
  // The rank mode's group: one slot on `device`, shard `rank` of `world`, over `comm`.
  DeviceGroup(int device, int rank, int world, ncclComm_t comm);
  int size() const { return int(streams_.size()); }  // local slots
  int world() const { return world_; }              // shards of the whole job
  int device(int k) const { return devices_[std::size_t(k)]; }
  int shard(int k) const { return shards_[std::size_t(k)]; }
  int slot_of(int shard) const;  // the local slot holding `shard`, or -1
  bool ranks() const { return ranks_; }
  // Rank mode: every rank's values combined element-wise (ncclMax, ncclMin, ncclSum) on every
  // rank; one process: unchanged. Blocks the host. All ranks call it in the same order.
  void across_ranks(std::vector<double>& v, ncclRedOp_t op) const;
  cudaStream_t stream(int k) const { return run_stream_ ? run_stream_ : streams_[std::size_t(k)]; }
  cudaStream_t copy_stream(int k) const { return copy_streams_[std::size_t(k)]; }
  ncclComm_t comm(int k) const { return comms_[std::size_t(k)]; }
  // How device 0 reaches the others: "none (one GPU)", "NVLink (NV18)", "PCIe (SYS)", or what
  // CUDA's peer query gives where nvidia-smi does not answer.
  const std::string& interconnect() const { return interconnect_; }
  // What a record says of the group: gpus, interconnect and the NCCL version.
  Params describe() const;
  // Every stream of the group waits for the work enqueued on `origin` (of the current device) so
  // far; `join` makes `origin` wait for every compute stream. Neither blocks the host. In the rank
  // mode the one slot's device is origin's: its compute work goes on origin itself (stream(0) is
  // origin from the fork on), so no event wait stands between the timer's events and the work, and
  // only the copy stream waits on origin.
  void fork(cudaStream_t origin);
  void join(cudaStream_t origin);

 private:
  explicit DeviceGroup(int gpus);
  std::vector<cudaStream_t> streams_, copy_streams_;
  std::vector<cudaEvent_t> joined_;
  cudaEvent_t forked_ = nullptr;
  cudaStream_t run_stream_ = nullptr;  // the rank mode's: origin, from the first fork on
  std::vector<ncclComm_t> comms_;
  std::vector<int> devices_, shards_;
  int world_ = 0;
  bool ranks_ = false;
  std::string interconnect_;
};

// The rank mode's group, where this process is a rank of a job (RankWorld sets it), else null:
// DeviceGroup::of then returns it.
DeviceGroup* rank_group();
void set_rank_group(DeviceGroup* g);

// Makes device k current for the scope, then restores the previous one.
class DeviceScope {
 public:
  explicit DeviceScope(int device);
  ~DeviceScope();
  DeviceScope(const DeviceScope&) = delete;
  DeviceScope& operator=(const DeviceScope&) = delete;

 private:
  int previous_ = 0;
};

// Host memory the GPUs copy from asynchronously (cudaHostRegister, portable to every device) for
// the life of the object; a no-op for zero bytes.
class PinnedRegion {
 public:
  PinnedRegion() = default;
  PinnedRegion(const void* p, std::size_t bytes);
  ~PinnedRegion();
  PinnedRegion(const PinnedRegion&) = delete;
  PinnedRegion& operator=(const PinnedRegion&) = delete;

 private:
  void* p_ = nullptr;
};

}  // namespace harness
