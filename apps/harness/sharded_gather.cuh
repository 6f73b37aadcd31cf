// Work spread over several GPUs whose result is one array in input order (the multi-GPU sorted
// search), knowing no algorithm: GPU k holds the slices of the input columns the study assigns it
// (its needles and the part of the haystack they need, say), runs the study's local step on them
// and writes part k of the output; the parts are gathered into GPU 0's output with
// ncclSend/ncclRecv. Which slices a GPU needs is the study's business (splitters, replication).
//
// Timing as ShardedBuckets: run(origin) forks every device's streams from the harness's stream and
// joins them back, so the harness's one CUDA-event interval brackets every device's work and the
// gather; the per-device phase events (local step, gather) are read outside the timed region.
//
// As ShardedBuckets, it loops over the DeviceGroup's local slots (every GPU in one process, this
// rank's in the rank mode). Where the parts stay on their GPUs (Leave: what a distributed pipeline
// consumes), there is no gather and each GPU's part is checked where it is.
#pragma once
#include <cuda_runtime.h>
#include <nccl.h>

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "device_buffer.hpp"
#include "multigpu.hpp"
#include "phase_clock.hpp"
#include "study.hpp"

namespace harness {

template <class Out>
class ShardedGather {
 public:
  // An input array on the host; `device0`, where not null, is the same array already on GPU 0,
  // used in place when one GPU holds all of it.
  struct Column {
    const void* host = nullptr;
    std::int64_t count = 0;
    std::size_t elem_bytes = 0;
    const void* device0 = nullptr;
  };
  // What GPU k holds and writes: a range of each column, and its part of the output. The output
  // parts are contiguous and in order (part k + 1 begins where part k ends) and cover the output.
  struct Part {
    std::vector<Range> cols;
    Range out;
  };
  // What a local step sees on GPU `shard`: its slices (device pointers, with the ranges they are
  // of), where its part of the output goes, its scratch and its stream. Called only for a
  // non-empty part of the output.
  struct Local {
    int shard = 0;
    std::vector<const void*> cols;
    const Part* part = nullptr;
    Out* out = nullptr;
    void* scratch = nullptr;
    std::size_t scratch_bytes = 0;
    cudaStream_t stream = nullptr;
  };
  using LocalFn = std::function<void(const Local&)>;
  using ScratchFn = std::function<std::size_t(const Part&)>;

  // Copies each GPU's slices to it. Throws Unsupported (too few GPUs, no NCCL), OutOfMemory, or
  // std::logic_error where the parts are not contiguous.
  ShardedGather(std::vector<Column> cols, std::vector<Part> parts, std::int64_t n_out)
      : cols_(std::move(cols)), parts_(std::move(parts)), n_out_(n_out), group_(DeviceGroup::of(int(parts_.size()))) {
    std::int64_t next = 0;
    for (const Part& p : parts_) {
      if (p.out.begin != next || p.out.end < p.out.begin || p.cols.size() != cols_.size())
        throw std::logic_error("ShardedGather: the output parts must be contiguous and in order");
      next = p.out.end;
    }
    if (next != n_out_) throw std::logic_error("ShardedGather: the output parts must cover the output");
    try {
      place();
    } catch (...) {
      release();
      throw;
    }
  }
  ~ShardedGather() { release(); }
  ShardedGather(const ShardedGather&) = delete;
  ShardedGather& operator=(const ShardedGather&) = delete;

  int gpus() const { return int(parts_.size()); }   // the parts of the world
  int slots() const { return int(per_.size()); }   // the ones this process holds
  const std::vector<Part>& parts() const { return parts_; }
  const Part& part_of(int k) const { return parts_[std::size_t(group_.shard(k))]; }

  // Whether run() gathers the parts into shard 0's output, or leaves each on its GPU.
  enum class Outputs { Gather, Leave };

  // The local step the next runs use, with its scratch on each GPU. Poison-fills the output, so an
  // element never written shows, and starts the phase statistics afresh.
  void set_local(const ScratchFn& scratch, LocalFn local, Outputs outputs = Outputs::Gather) {
    local_ = std::move(local);
    outputs_ = outputs;
    for (int k = 0; k < slots(); ++k) {
      DeviceScope on(group_.device(k));
      Dev& d = per_[std::size_t(k)];
      d.scratch.resize(scratch && part_of(k).out.size() > 0 ? scratch(part_of(k)) : 0);
      d.out.poison();
      LP_CUDA(cudaDeviceSynchronize());  // the poison fill is on the legacy stream, not the group's
    }
    clock_.reset();
  }

  // The timed region: enqueue only. `origin` is the harness's stream on GPU 0.
  void run(cudaStream_t origin) {
    const NcclApi& api = nccl();
    clock_.begin_run(false);
    group_.fork(origin);
    for (int k = 0; k < slots(); ++k) {
      DeviceScope on(group_.device(k));
      Dev& d = per_[std::size_t(k)];
      const Part& p = part_of(k);
      clock_.record(k, PhaseClock::Begin, group_.stream(k));
      if (p.out.size() > 0)
        local_(Local{group_.shard(k), device_cols(k), &p, out_of(k), d.scratch.get(), d.scratch.size(), group_.stream(k)});
      clock_.record(k, PhaseClock::Local, group_.stream(k));
    }
    if (gpus() > 1 && outputs_ == Outputs::Gather) {
      // Part g > 0 goes from its GPU to shard 0's output at its offset: the sends of the parts this
      // process holds, the receives where it holds shard 0.
      const int root = group_.slot_of(0);
      nccl_check(api.GroupStart(), "ncclGroupStart");
      for (int g = 1; g < gpus(); ++g) {
        const Range& r = parts_[std::size_t(g)].out;
        if (r.size() == 0) continue;
        const std::size_t bytes = std::size_t(r.size()) * sizeof(Out);
        if (const int k = group_.slot_of(g); k >= 0)
          nccl_check(api.Send(per_[std::size_t(k)].out.get(), bytes, ncclUint8, 0, group_.comm(k), group_.stream(k)), "ncclSend");
        if (root >= 0)
          nccl_check(api.Recv(per_[std::size_t(root)].out.get() + r.begin, bytes, ncclUint8, g, group_.comm(root), group_.stream(root)),
                     "ncclRecv");
      }
      nccl_check(api.GroupEnd(), "ncclGroupEnd");
    }
    for (int k = 0; k < slots(); ++k) {
      DeviceScope on(group_.device(k));
      clock_.record(k, PhaseClock::End, group_.stream(k));
    }
    group_.join(origin);
    clock_.end_run();
  }

  // The last run's outcome against the whole output `want`: "" where it is right, else the first
  // difference (`mismatch(want, got)` names it, against a slice where it is a part's). Gathered: shard 0's whole output, where
  // this process holds it; left on the GPUs: each part this process holds, against its slice.
  std::string validate(const std::vector<Out>& want,
                       const std::function<std::string(const std::vector<Out>& want, const std::vector<Out>& got)>& mismatch) const {
    for (int k = 0; k < slots(); ++k) {
      const int g = group_.shard(k);
      DeviceScope on(group_.device(k));
      const Dev& d = per_[std::size_t(k)];
      if (outputs_ == Outputs::Gather || gpus() == 1) {
        if (g == 0)
          if (std::string bad = mismatch(want, d.out.download()); !bad.empty()) return bad;
        continue;
      }
      const Range& r = parts_[std::size_t(g)].out;
      std::vector<Out> got = d.out.download();
      if (g == 0) got = std::vector<Out>(got.begin() + r.begin, got.begin() + r.end);
      const std::vector<Out> slice(want.begin() + r.begin, want.begin() + r.end);
      if (std::string bad = mismatch(slice, got); !bad.empty())
        return "GPU " + std::to_string(g) + "'s part (from index " + std::to_string(r.begin) + "): " + bad;
    }
    return "";
  }

  // The record's metrics: the group, and the phases of the runs since set_local (medians): local
  // (the slowest GPU's local step) and collective (the gather).
  Params metrics() {
    const PhaseClock::Phases ph = clock_.phases(false);
    Params p = group_.describe();
    if (ph.runs == 0) return p;
    ph.add_to(p);
    p["outputs"] = std::string(outputs_ == Outputs::Gather ? "gathered to GPU 0" : "left on each GPU");
    return p;
  }

 private:
  struct Dev {
    std::vector<DeviceBuffer<char>> cols;  // the slices (empty where GPU 0 uses a column in place)
    DeviceBuffer<Out> out;                 // shard 0: the whole output; shard g > 0: its part
    DeviceBuffer<char> scratch;
  };

  // Shard 0 of one process uses a column in place where it needs all of it and the point has it
  // there (on GPU 0, the only device the point knows).
  bool in_place(int k, std::size_t c) const {
    const Range& r = part_of(k).cols[c];
    return group_.shard(k) == 0 && (group_.ranks() || group_.device(k) == 0) && cols_[c].device0 && r.begin == 0 && r.end == cols_[c].count;
  }

  void place() {
    per_.resize(std::size_t(group_.size()));
    for (int k = 0; k < slots(); ++k) {
      DeviceScope on(group_.device(k));
      Dev& d = per_[std::size_t(k)];
      const Part& p = part_of(k);
      d.cols.resize(cols_.size());
      for (std::size_t c = 0; c < cols_.size(); ++c) {
        const Range& r = p.cols[c];
        if (r.size() == 0 || in_place(k, c)) continue;
        const std::size_t e = cols_[c].elem_bytes;
        d.cols[c].resize(std::size_t(r.size()) * e);
        LP_CUDA(cudaMemcpy(d.cols[c].get(), static_cast<const char*>(cols_[c].host) + std::size_t(r.begin) * e, std::size_t(r.size()) * e,
                           cudaMemcpyHostToDevice));
      }
      d.out.resize(std::size_t(group_.shard(k) == 0 ? n_out_ : p.out.size()));
    }
    clock_.create(group_);
  }

  // Never throws (destructor, a lost context): each GPU's buffers are freed on it.
  void release() noexcept {
    int previous = 0;
    cudaGetDevice(&previous);
    for (int k = 0; k < int(per_.size()); ++k) {
      cudaSetDevice(group_.device(k));
      cudaStreamSynchronize(group_.stream(k));
      Dev& d = per_[std::size_t(k)];
      for (auto& b : d.cols) b.reset();
      d.out.reset();
      d.scratch.reset();
    }
    cudaSetDevice(previous);
    clock_.destroy();
  }

  std::vector<const void*> device_cols(int k) const {
    std::vector<const void*> p(cols_.size());
    for (std::size_t c = 0; c < cols_.size(); ++c) p[c] = in_place(k, c) ? cols_[c].device0 : per_[std::size_t(k)].cols[c].get();
    return p;
  }
  Out* out_of(int k) { return group_.shard(k) == 0 ? per_[std::size_t(k)].out.get() + parts_[0].out.begin : per_[std::size_t(k)].out.get(); }

  std::vector<Column> cols_;
  std::vector<Part> parts_;
  std::int64_t n_out_ = 0;
  DeviceGroup& group_;
  std::vector<Dev> per_;
  LocalFn local_;
  Outputs outputs_ = Outputs::Gather;
  PhaseClock clock_;
};

}  // namespace harness
