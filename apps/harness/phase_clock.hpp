// Per-GPU phase events of the multi-GPU engines: each run records, on every device,
// when its local step began and ended, when its combine or gather ended, and its copy stream's
// first and last copy. The events of the last kRing runs are kept and read outside the timed
// region (the harness synchronises after each run), so the records get per-phase medians without
// a synchronisation inside the interval they time.
#pragma once
#include <cuda_runtime_api.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstdio>
#include <string>
#include <vector>

#include "kernels/common/cuda_check.cuh"
#include "multigpu.hpp"

namespace harness {

// Milliseconds as a record's text ("0.5120 0.5154"): the per-rank phases.
inline std::string join_ms(const std::vector<double>& v) {
  std::string out;
  char b[32];
  for (double x : v) {
    std::snprintf(b, sizeof b, "%.4f", x);
    out += (out.empty() ? "" : " ") + std::string(b);
  }
  return out;
}

class PhaseClock {
 public:
  enum Mark { Begin, Local, End, CopyBegin, CopyEnd };

  PhaseClock() = default;
  ~PhaseClock() { destroy(); }
  PhaseClock(const PhaseClock&) = delete;
  PhaseClock& operator=(const PhaseClock&) = delete;

  // Events for the group's local slots (each made on its device).
  void create(const DeviceGroup& group) {
    group_ = &group;
    marks_.resize(std::size_t(group.size()));
    for (int k = 0; k < group.size(); ++k) {
      DeviceScope on(group.device(k));
      marks_[std::size_t(k)].resize(kRing);
      for (Slot& s : marks_[std::size_t(k)])
        for (cudaEvent_t& e : s) LP_CUDA(cudaEventCreate(&e));
    }
  }
  // Never throws (destructors, a lost context): each event is destroyed on its device.
  void destroy() noexcept {
    int previous = 0;
    cudaGetDevice(&previous);
    for (std::size_t k = 0; k < marks_.size(); ++k) {
      cudaSetDevice(group_->device(int(k)));
      for (Slot& s : marks_[k])
        for (cudaEvent_t& e : s)
          if (e) cudaEventDestroy(e), e = nullptr;
    }
    marks_.clear();
    cudaSetDevice(previous);
  }

  // Forget the runs so far (a new variant starts its statistics).
  void reset() {
    runs_ = harvested_ = 0;
    local_ms_.clear();
    collective_ms_.clear();
    transfer_ms_.clear();
  }
  // Before a run is enqueued: frees the slot it will use (reads the oldest run's events when the
  // ring is full: complete, since the harness synchronised after it).
  void begin_run(bool transfer) {
    if (runs_ - harvested_ >= kRing) harvest(transfer);
  }
  // Records `mark` of the run being enqueued on `stream` of device k (current).
  void record(int k, Mark mark, cudaStream_t stream) {
    LP_CUDA(cudaEventRecord(marks_[std::size_t(k)][std::size_t(runs_ % kRing)][mark], stream));
  }
  // The event of `mark` of the run being enqueued on device k (for a stream to wait on).
  cudaEvent_t event(int k, Mark mark) const { return marks_[std::size_t(k)][std::size_t(runs_ % kRing)][mark]; }
  void end_run() { ++runs_; }

  // The runs' phases (medians): local (the slowest GPU's local step, streamed copies included),
  // collective (the shortest of the GPUs' intervals from the end of their local step to the end
  // of the combine: the GPU that finished last waited least for the others), and where `transfer`,
  // transfer (the slowest GPU's copy stream, first copy to last). Synchronises every device. In
  // the rank mode the same over every rank's GPU, run by run (every rank calls it, in step), and
  // each rank's own local median besides.
  struct Phases {
    std::int64_t runs = 0;
    double local_ms = 0, collective_ms = 0, transfer_ms = 0;
    std::vector<double> local_ms_by_rank, collective_ms_by_rank;  // rank mode only: each rank's own median
    // What a record says of them (both engines' metrics): the medians, the runs, the ranks' own.
    void add_to(Params& p) const {
      if (runs == 0) return;
      p["local_ms"] = local_ms;
      p["collective_ms"] = collective_ms;
      p["phase_runs"] = runs;
      if (!local_ms_by_rank.empty()) p["local_ms_by_rank"] = join_ms(local_ms_by_rank);
      if (!collective_ms_by_rank.empty()) p["collective_ms_by_rank"] = join_ms(collective_ms_by_rank);
    }
  };
  Phases phases(bool transfer) {
    for (std::size_t k = 0; k < marks_.size(); ++k) {
      DeviceScope on(group_->device(int(k)));
      LP_CUDA(cudaDeviceSynchronize());
    }
    while (harvested_ < runs_) harvest(transfer);
    Phases p;
    p.runs = std::int64_t(local_ms_.size());
    if (p.runs == 0) return p;
    std::vector<double> local = local_ms_, collective = collective_ms_, copies = transfer_ms_;
    if (group_->ranks()) {
      p.local_ms_by_rank.assign(std::size_t(group_->world()), 0.0);
      p.local_ms_by_rank[std::size_t(group_->shard(0))] = median(local);
      group_->across_ranks(p.local_ms_by_rank, ncclSum);
      p.collective_ms_by_rank.assign(std::size_t(group_->world()), 0.0);
      p.collective_ms_by_rank[std::size_t(group_->shard(0))] = median(collective);
      group_->across_ranks(p.collective_ms_by_rank, ncclSum);
      group_->across_ranks(local, ncclMax);
      group_->across_ranks(collective, ncclMin);
      group_->across_ranks(copies, ncclMax);
    }
    p.local_ms = median(local);
    p.collective_ms = median(collective);
    p.transfer_ms = median(copies);
    return p;
  }

 private:
  static constexpr std::int64_t kRing = 64;  // runs whose events are kept before they are read
  using Slot = std::array<cudaEvent_t, 5>;

  static double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t h = v.size() / 2;
    return v.size() % 2 ? v[h] : (v[h - 1] + v[h]) / 2;
  }

  void harvest(bool transfer) {
    const std::size_t slot = std::size_t(harvested_ % kRing);
    double local = 0, collective = -1, copies = 0;
    for (std::size_t k = 0; k < marks_.size(); ++k) {
      DeviceScope on(group_->device(int(k)));
      const Slot& s = marks_[k][slot];
      float l = 0, c = 0, t = 0;
      LP_CUDA(cudaEventElapsedTime(&l, s[Begin], s[Local]));
      LP_CUDA(cudaEventElapsedTime(&c, s[Local], s[End]));
      if (transfer) LP_CUDA(cudaEventElapsedTime(&t, s[CopyBegin], s[CopyEnd]));
      local = std::max(local, double(l));
      collective = collective < 0 ? c : std::min(collective, double(c));
      copies = std::max(copies, double(t));
    }
    local_ms_.push_back(local);
    collective_ms_.push_back(collective);
    transfer_ms_.push_back(copies);
    ++harvested_;
  }

  const DeviceGroup* group_ = nullptr;
  std::vector<std::vector<Slot>> marks_;  // [local slot][ring slot]
  std::int64_t runs_ = 0, harvested_ = 0;
  std::vector<double> local_ms_, collective_ms_, transfer_ms_;
};

}  // namespace harness
