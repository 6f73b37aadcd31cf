// The rank mode's process-level plumbing: a process per GPU, started by a cluster's launcher
// (Slurm's srun, Open MPI's mpirun, a PMI launcher) or by scripts/launch_ranks.sh, with NCCL as the
// engine. Two pieces that need no GPU and no MPI:
//   - who this process is: its rank, the world's size and its local rank (which GPU of its node),
//     from the variables the launchers set;
//   - the bootstrap file: rank 0 publishes NCCL's unique id (ncclUniqueId, 128 opaque bytes) in a
//     file on a path every rank sees; the others wait for it, within a time limit, and refuse a file
//     written for another job. NCCL then needs no MPI to find its peers.
// Plain C++ (the CPU tests run it in CI); the GPU side builds on it.
#pragma once
#include <array>
#include <cstddef>
#include <functional>
#include <optional>
#include <string>

namespace lp::harness::ranks {

// This process's place in the job.
struct Identity {
  int rank = 0;
  int world = 1;
  int local_rank = 0;    // its GPU on its node
  std::string launcher;  // which variables said so: "env" (RANK, WORLD_SIZE, LOCAL_RANK), "openmpi", "pmi", "slurm"
};

// Reads a variable; null where it is not set. The process's environment by default; tests pass their own.
using Env = std::function<const char*(const char*)>;
Env process_env();

// The identity the launcher's variables give, looked for in this order, the first complete set
// winning: RANK / WORLD_SIZE / LOCAL_RANK (set by hand or by launch_ranks.sh), Open MPI's
// OMPI_COMM_WORLD_{RANK,SIZE,LOCAL_RANK}, PMI's PMI_RANK / PMI_SIZE with MPI_LOCALRANKID or
// PMI_LOCAL_RANK, Slurm's SLURM_PROCID / SLURM_NTASKS / SLURM_LOCALID. Slurm comes last: mpirun
// inside an allocation inherits the allocation's SLURM_PROCID (0 for every process), while srun
// sets no MPI variable. nullopt where no set is present (not launched as ranks). A set that is
// present but wrong (not an integer, a rank outside the world, a missing local rank) throws
// std::invalid_argument with one line naming the variable.
std::optional<Identity> identity_from_env(const Env& env);

// A tag that tells this job's bootstrap file from a stale one of an earlier job on the same path:
// $LP_RANKS_TAG (launch_ranks.sh sets one per launch), else $SLURM_JOB_ID and $SLURM_STEP_ID, else
// $OMPI_MCA_ess_base_jobid, else "" (then only the world size is checked).
std::string job_tag(const Env& env);

constexpr std::size_t kIdBytes = 128;  // sizeof(ncclUniqueId)
using UniqueId = std::array<unsigned char, kIdBytes>;

// Rank 0: writes the id for a world of `world` ranks with `tag` to `path`, whole or not at all (a
// temporary file beside it, then a rename), replacing any earlier file. Throws std::runtime_error
// naming the path where it cannot.
void publish_id(const std::string& path, const UniqueId& id, int world, const std::string& tag);

// Every other rank: waits up to timeout_s for a file at `path` written for this world and tag, and
// returns its id. A file of another job (other world size or tag) is waited past, as one that is
// about to be replaced. Throws std::runtime_error with one line, naming this rank, the path and what
// it saw, at the limit or at once for a file that is not a bootstrap file at all.
UniqueId await_id(const std::string& path, int world, const std::string& tag, int rank, double timeout_s);

// The file's text for an id: a header line naming the format, the world size and the tag, then the
// id in hex. And the reverse: the id, or why not (another job's file, or not a bootstrap file).
std::string encode_file(const UniqueId& id, int world, const std::string& tag);
struct Decoded {
  enum class Kind { Ours, OtherJob, NotBootstrap } kind = Kind::NotBootstrap;
  UniqueId id{};
  std::string why;  // for OtherJob and NotBootstrap
};
Decoded decode_file(const std::string& text, int world, const std::string& tag);

}  // namespace lp::harness::ranks

namespace lp::harness::ranks {

// Who of the job is still there. NCCL's own error reporting does not name a peer that died or
// never came (a collective on an NVLink peer that is gone waits forever), so each rank keeps a small
// file beside the bootstrap file (presence_path) that a thread rewrites every beat: its pid, host,
// a counter and its state. The same thread reads the others' and calls `on_missing` once, with one
// line naming the rank, when
//   - its file has not appeared within arrive_s of this rank's start (it never started, or sees
//     another path),
//   - its counter has not changed for stale_s by this rank's own clock (so other nodes' clocks do
//     not matter; a killed rank, or a host that is gone),
//   - it says it failed (its reason is in the line),
//   - or it ran on this host and its pid is gone (seen within a beat).
// A rank that says it is done, or whose file was removed after it was seen (a clean exit), is no
// longer watched. Plain C++ over files: the CPU tests run it.
struct PresenceLimits {
  double beat_s = 0.5;
  double arrive_s = 60;
  double stale_s = 10;
};
std::string presence_path(const std::string& base, int rank);

class Presence {
 public:
  using OnMissing = std::function<void(const std::string& line)>;
  Presence(std::string base, int rank, int world, std::string tag, PresenceLimits limits, OnMissing on_missing);
  ~Presence();  // stops the thread; a done rank's file is removed
  Presence(const Presence&) = delete;
  Presence& operator=(const Presence&) = delete;
  // This rank needs no peer any more: it says so and stops watching.
  void done();
  // This rank is ending on an error: the others end with `why`, naming this rank.
  void failed(const std::string& why);

 private:
  struct State;
  State* s_;
};

// One presence file's text, and its reading (for the tests and the watcher).
struct PresenceBeat {
  std::string tag, host, state, why;  // state: alive, done or failed
  long pid = 0;
  long long beat = 0;
};
std::string encode_beat(const PresenceBeat& b);
std::optional<PresenceBeat> decode_beat(const std::string& text);

}  // namespace lp::harness::ranks
