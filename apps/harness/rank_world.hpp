// The rank mode's GPU side: this process as one rank of a job, one GPU, NCCL's communicator over
// the job's ranks bootstrapped through a shared file (ranks.hpp), a presence watch that ends this
// rank with one line when a peer dies or never comes, and the few collectives the runner needs to
// keep every rank in step (a barrier before each timed run, the slowest rank's time, every rank's
// outcome). The engines see the job through DeviceGroup (one slot, shard = rank).
#pragma once
#include <cuda_runtime_api.h>
#include <nccl.h>

#include <memory>
#include <string>
#include <vector>

#include "multigpu.hpp"
#include "ranks.hpp"

namespace harness {

class RankWorld {
 public:
  struct Options {
    std::string prog;       // what the lines this rank prints start with ("bench multireduce")
    std::string bootstrap;  // the id's file; "" for the default (bootstrap_path)
    double arrive_s = 60;   // LP_RANKS_TIMEOUT_S: a peer not there by then is named and the job ends
    double stale_s = 10;    // LP_RANKS_STALE_S: a peer silent this long is named and the job ends
  };
  // Joins the job as `id` on `device` (current already): starts the presence watch, publishes or
  // awaits NCCL's id, and makes the communicator (which waits for every rank). Once per process.
  // Throws std::runtime_error with one line where the bootstrap fails.
  static RankWorld& join(const lp::harness::ranks::Identity& id, int device, const Options& o);
  static RankWorld* active();  // null outside the rank mode

  // --bootstrap, else $LP_BOOTSTRAP, else a file in $TMPDIR (or /tmp) named after the job tag and
  // the world: good on one host only (say so where there is no tag).
  static std::string bootstrap_path(const std::string& given, int world, const std::string& tag);

  int rank() const { return id_.rank; }
  int world() const { return id_.world; }
  const lp::harness::ranks::Identity& identity() const { return id_; }
  const std::string& bootstrap() const { return path_; }
  DeviceGroup& group() { return *group_; }

  // Enqueues on `s` a collective every rank must reach: the next work on `s` starts when all have.
  void barrier(cudaStream_t s);
  // The largest of every rank's `v` (host-blocking).
  double max(double v);
  // Every rank's text, on every rank, in rank order (each cut to 1000 bytes).
  std::vector<std::string> gather_text(const std::string& mine);
  // Ends this rank now: one line on stderr, the others told why (presence), exit status `code`.
  // No files are written after it.
  [[noreturn]] void fail(const std::string& line, int code = 1);
  // This rank's collectives are over: its peers stop watching it.
  void done();

 private:
  RankWorld() = default;
  void connect(int device, const std::string& tag);  // the id through the bootstrap file, then the communicator
  double arrive_s_ = 60;
  lp::harness::ranks::Identity id_;
  std::string path_, prog_;
  ncclComm_t comm_ = nullptr;
  cudaStream_t stream_ = nullptr;
  void* scratch_ = nullptr;  // the barrier's and max's device word
  std::unique_ptr<lp::harness::ranks::Presence> presence_;
  std::unique_ptr<DeviceGroup> group_;
};

}  // namespace harness
