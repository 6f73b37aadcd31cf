// The rank mode's CPU layer (apps/harness/ranks.hpp): the identity each launcher's variables give,
// and the errors for wrong ones; the bootstrap file's format both ways; rank 0 publishing while the
// others wait (threads standing in for processes: the protocol is the file's), a stale file of
// another job replaced under a waiting rank, the time limit, and a file that is no bootstrap file;
// the presence files that name a missing rank: never arrived, stale, failed, gone from this host,
// and the ranks that are not missing (alive, done, removed after a clean exit, another job's file).
#include <unistd.h>

#include <sys/wait.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <sstream>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "apps/harness/ranks.hpp"
#include "check.hpp"

namespace rk = lp::harness::ranks;
namespace fs = std::filesystem;

namespace {

rk::Env env_of(const std::map<std::string, std::string>& vars) {
  return [vars](const char* name) -> const char* {
    const auto it = vars.find(name);
    return it == vars.end() ? nullptr : it->second.c_str();
  };
}

// The one-line error identity_from_env throws, or "" where it does not.
std::string identity_error(const std::map<std::string, std::string>& vars) {
  try {
    rk::identity_from_env(env_of(vars));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "";
}

void identities() {
  CHECK(!rk::identity_from_env(env_of({})).has_value());
  CHECK(!rk::identity_from_env(env_of({{"LOCAL_RANK", "1"}, {"SLURM_JOB_ID", "7"}})).has_value());  // no rank: not a rank job

  struct Want {
    std::map<std::string, std::string> vars;
    const char* launcher;
    int rank, world, local;
  };
  const std::vector<Want> wants = {
      {{{"RANK", "3"}, {"WORLD_SIZE", "8"}, {"LOCAL_RANK", "1"}}, "env", 3, 8, 1},
      {{{"OMPI_COMM_WORLD_RANK", "5"}, {"OMPI_COMM_WORLD_SIZE", "16"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "1"}}, "openmpi", 5, 16, 1},
      {{{"PMI_RANK", "2"}, {"PMI_SIZE", "4"}, {"MPI_LOCALRANKID", "0"}}, "pmi", 2, 4, 0},
      {{{"PMI_RANK", "2"}, {"PMI_SIZE", "4"}, {"PMI_LOCAL_RANK", "2"}}, "pmi", 2, 4, 2},
      {{{"SLURM_PROCID", "9"}, {"SLURM_NTASKS", "12"}, {"SLURM_LOCALID", "1"}}, "slurm", 9, 12, 1},
      // mpirun inside a Slurm allocation: the allocation's SLURM_PROCID (0) must lose to Open MPI's.
      {{{"SLURM_PROCID", "0"}, {"SLURM_NTASKS", "1"}, {"SLURM_LOCALID", "0"}, {"OMPI_COMM_WORLD_RANK", "3"}, {"OMPI_COMM_WORLD_SIZE", "4"},
        {"OMPI_COMM_WORLD_LOCAL_RANK", "3"}},
       "openmpi", 3, 4, 3},
      // Set by hand over a launcher's: the hand wins.
      {{{"RANK", "1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}, {"SLURM_PROCID", "5"}, {"SLURM_NTASKS", "6"}, {"SLURM_LOCALID", "1"}},
       "env", 1, 2, 0},
      {{{"RANK", "0"}, {"WORLD_SIZE", "1"}, {"LOCAL_RANK", "0"}}, "env", 0, 1, 0},
  };
  for (const Want& w : wants) {
    const auto id = rk::identity_from_env(env_of(w.vars));
    CHECK_MSG(id.has_value(), w.launcher);
    if (!id) continue;
    CHECK_MSG(id->launcher == w.launcher, id->launcher << " for " << w.launcher);
    CHECK_MSG(id->rank == w.rank && id->world == w.world && id->local_rank == w.local, w.launcher << ": " << id->rank << "/" << id->world << " local " << id->local_rank);
  }

  struct Bad {
    std::map<std::string, std::string> vars;
    const char* names;  // what the one line must name
  };
  const std::vector<Bad> bads = {
      {{{"RANK", "2"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}}, "RANK=2 is outside WORLD_SIZE=2"},
      {{{"RANK", "0"}, {"WORLD_SIZE", "0"}, {"LOCAL_RANK", "0"}}, "WORLD_SIZE=0"},
      {{{"RANK", "one"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}}, "RANK='one'"},
      {{{"RANK", "-1"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}}, "RANK='-1'"},
      {{{"RANK", "1x"}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}}, "RANK='1x'"},
      {{{"RANK", ""}, {"WORLD_SIZE", "2"}, {"LOCAL_RANK", "0"}}, "RANK=''"},
      {{{"RANK", "1"}, {"LOCAL_RANK", "0"}}, "WORLD_SIZE is not set, but RANK is"},
      {{{"SLURM_NTASKS", "4"}}, "SLURM_PROCID is not set, but SLURM_NTASKS is"},
      {{{"RANK", "1"}, {"WORLD_SIZE", "2"}}, "set LOCAL_RANK"},
      {{{"OMPI_COMM_WORLD_RANK", "1"}, {"OMPI_COMM_WORLD_SIZE", "2"}, {"OMPI_COMM_WORLD_LOCAL_RANK", "z"}}, "OMPI_COMM_WORLD_LOCAL_RANK='z'"},
  };
  for (const Bad& b : bads) {
    const std::string e = identity_error(b.vars);
    CHECK_MSG(e.find(b.names) != std::string::npos, "want '" << b.names << "', got '" << e << "'");
    CHECK_MSG(e.find('\n') == std::string::npos, e);
  }

  CHECK(rk::job_tag(env_of({{"LP_RANKS_TAG", "t1"}, {"SLURM_JOB_ID", "77"}})) == "t1");
  CHECK(rk::job_tag(env_of({{"SLURM_JOB_ID", "77"}, {"SLURM_STEP_ID", "2"}})) == "slurm-77.2");
  CHECK(rk::job_tag(env_of({{"OMPI_MCA_ess_base_jobid", "123"}})) == "ompi-123");
  CHECK(rk::job_tag(env_of({})).empty());
}

rk::UniqueId some_id(unsigned seed) {
  std::mt19937 g(seed);
  rk::UniqueId id;
  for (auto& b : id) b = static_cast<unsigned char>(g());
  return id;
}

void file_format() {
  const rk::UniqueId id = some_id(1);
  const std::string text = rk::encode_file(id, 4, "job-a");
  rk::Decoded d = rk::decode_file(text, 4, "job-a");
  CHECK(d.kind == rk::Decoded::Kind::Ours && d.id == id);
  d = rk::decode_file(text, 2, "job-a");
  CHECK_MSG(d.kind == rk::Decoded::Kind::OtherJob && d.why.find("world=4") != std::string::npos, d.why);
  d = rk::decode_file(text, 4, "job-b");
  CHECK_MSG(d.kind == rk::Decoded::Kind::OtherJob && d.why.find("tag=job-a") != std::string::npos, d.why);
  CHECK(rk::decode_file(rk::encode_file(id, 1, ""), 1, "").kind == rk::Decoded::Kind::Ours);  // no tag: the world size alone
  for (const std::string& bad : {std::string(""), std::string("hello\n"), text.substr(0, text.size() / 2), text.substr(0, text.find('\n') + 1),
                                std::string("lp-nccl-bootstrap v1 world=4\n") + text.substr(text.find('\n') + 1), text + "extra",
                                text.substr(0, text.size() - 3) + "zz\n"}) {
    d = rk::decode_file(bad, 4, "job-a");
    CHECK_MSG(d.kind == rk::Decoded::Kind::NotBootstrap && !d.why.empty(), "'" << bad << "'");
  }
  bool threw = false;
  try {
    rk::encode_file(id, 2, "a b");
  } catch (const std::invalid_argument&) {
    threw = true;
  }
  CHECK(threw);
}

struct TempDir {
  fs::path path;
  TempDir() {
    path = fs::temp_directory_path() / ("test_ranks_" + std::to_string(::getpid()) + "_" + std::to_string(std::random_device{}()));
    fs::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path, ec);
  }
};

// What await_id throws (or "" where it returns), and how long it took.
std::string await_error(const std::string& path, int world, const std::string& tag, int rank, double timeout_s, double* took_s = nullptr) {
  const auto t0 = std::chrono::steady_clock::now();
  std::string what;
  try {
    rk::await_id(path, world, tag, rank, timeout_s);
  } catch (const std::runtime_error& e) {
    what = e.what();
  }
  if (took_s) *took_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return what;
}

void bootstrap(const TempDir& dir) {
  // Rank 0 publishes after the others started waiting; every one gets the id.
  {
    const std::string path = (dir.path / "id1").string();
    const rk::UniqueId id = some_id(2);
    const int world = 6;
    std::vector<rk::UniqueId> got(world);
    std::vector<std::string> errors(world);
    std::vector<std::thread> ranks;
    for (int r = 1; r < world; ++r)
      ranks.emplace_back([&, r] {
        try {
          got[std::size_t(r)] = rk::await_id(path, world, "job", r, 20.0);
        } catch (const std::exception& e) {
          errors[std::size_t(r)] = e.what();
        }
      });
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    rk::publish_id(path, id, world, "job");
    for (auto& t : ranks) t.join();
    for (int r = 1; r < world; ++r) CHECK_MSG(errors[std::size_t(r)].empty() && got[std::size_t(r)] == id, "rank " << r << ": " << errors[std::size_t(r)]);
    // No temporary file left beside it.
    int files = 0;
    for (const auto& e : fs::directory_iterator(dir.path)) files += e.path().filename().string().rfind("id1", 0) == 0;
    CHECK(files == 1);
  }
  // A stale file of an earlier job is there first: the waiting rank waits past it for this job's.
  {
    const std::string path = (dir.path / "id2").string();
    rk::publish_id(path, some_id(3), 4, "old-job");
    const rk::UniqueId fresh = some_id(4);
    rk::UniqueId got{};
    std::string error;
    std::thread waiter([&] {
      try {
        got = rk::await_id(path, 4, "new-job", 2, 20.0);
      } catch (const std::exception& e) {
        error = e.what();
      }
    });
    std::this_thread::sleep_for(std::chrono::milliseconds(80));
    rk::publish_id(path, fresh, 4, "new-job");
    waiter.join();
    CHECK_MSG(error.empty() && got == fresh, error);
  }
  // Nobody publishes: one line at the limit naming the rank, the path and the stale file it saw.
  {
    const std::string path = (dir.path / "id3").string();
    double took = 0;
    std::string e = await_error(path, 2, "job", 1, 0.3, &took);
    CHECK_MSG(e.find("rank 1") != std::string::npos && e.find(path) != std::string::npos && e.find("no file there") != std::string::npos, e);
    CHECK_MSG(took >= 0.29 && took < 5.0, took);
    rk::publish_id(path, some_id(5), 3, "job");
    e = await_error(path, 2, "job", 1, 0.2);
    CHECK_MSG(e.find("world=3") != std::string::npos && e.find('\n') == std::string::npos, e);
  }
  // A file that is no bootstrap file: at once, not at the limit.
  {
    const std::string path = (dir.path / "id4").string();
    std::ofstream(path) << "something else\n";
    double took = 0;
    const std::string e = await_error(path, 2, "job", 1, 30.0, &took);
    CHECK_MSG(e.find("not a bootstrap file") != std::string::npos, e);
    CHECK_MSG(took < 5.0, took);
  }
  // Rank 0 cannot write there: one line naming the path.
  {
    const std::string path = (dir.path / "no-such-dir" / "id").string();
    std::string e;
    try {
      rk::publish_id(path, some_id(6), 2, "job");
    } catch (const std::runtime_error& x) {
      e = x.what();
    }
    CHECK_MSG(e.find("rank 0") != std::string::npos && e.find("no-such-dir") != std::string::npos, e);
  }
}

// What a Presence of rank 0 in a world of `world` reports within `wait_s` while `act` plays the
// other ranks' files: the line, or "".
std::string missing_within(const TempDir& dir, const std::string& name, int world, double wait_s,
                           const std::function<void(const std::string& base)>& act) {
  const std::string base = (fs::path(dir.path) / name).string();
  std::mutex mu;
  std::string line;
  rk::PresenceLimits lim;
  lim.beat_s = 0.02, lim.arrive_s = 0.4, lim.stale_s = 0.3;
  {
    rk::Presence me(base, 0, world, "job", lim, [&](const std::string& l) {
      std::lock_guard<std::mutex> g(mu);
      line = l;
    });
    act(base);
    std::this_thread::sleep_for(std::chrono::duration<double>(wait_s));
  }
  std::lock_guard<std::mutex> g(mu);
  return line;
}

rk::PresenceBeat beat_of(long pid, long long n, const std::string& state = "alive", const std::string& tag = "job") {
  rk::PresenceBeat b;
  b.tag = tag;
  char h[256] = {0};
  gethostname(h, sizeof h - 1);
  b.host = h;
  b.pid = pid;
  b.beat = n;
  b.state = state;
  return b;
}
void put(const std::string& path, const rk::PresenceBeat& b) { std::ofstream(path) << rk::encode_beat(b); }

void presence(const TempDir& dir) {
  {  // the line's format, both ways, and what is not one
    rk::PresenceBeat b = beat_of(123, 7, "failed");
    b.why = "VALIDATION FAILED: sharded_auto at m=16\nsecond line";
    const auto d = rk::decode_beat(rk::encode_beat(b));
    CHECK(d && d->pid == 123 && d->beat == 7 && d->state == "failed" && d->tag == "job");
    CHECK_MSG(d && d->why == "VALIDATION FAILED: sharded_auto at m=16 second line", (d ? d->why : std::string("none")));
    CHECK(!rk::decode_beat("lp-rank-presence v1 tag=job pid=1"));  // half written
    CHECK(!rk::decode_beat("something else\n"));
  }
  // A peer that keeps beating (a thread standing in for the process) is not missing.
  CHECK_MSG(missing_within(dir, "alive", 2, 0.8, [](const std::string& base) {
              std::thread([base] {
                for (int i = 0; i < 50; ++i) {
                  put(rk::presence_path(base, 1), beat_of(long(getpid()), i));
                  std::this_thread::sleep_for(std::chrono::milliseconds(20));
                }
              }).detach();
            }).empty(), "a beating peer was called missing");
  // Never arrives: named, with the path.
  {
    const std::string l = missing_within(dir, "never", 3, 0.8, [](const std::string& base) { put(rk::presence_path(base, 1), beat_of(long(getpid()), 1, "done")); });
    CHECK_MSG(l.find("rank 2 never arrived") != std::string::npos && l.find(".rank2") != std::string::npos, l);
  }
  // Beats once, then stops (killed on another host: its pid is not ours to ask).
  {
    const std::string l = missing_within(dir, "stale", 2, 0.8, [](const std::string& base) {
      rk::PresenceBeat b = beat_of(long(getpid()), 1);
      b.host = "another-host";
      put(rk::presence_path(base, 1), b);
    });
    CHECK_MSG(l.find("rank 1 stopped answering") != std::string::npos && l.find("another-host") != std::string::npos, l);
  }
  // Says it failed: its reason in the line, at once.
  {
    const std::string l = missing_within(dir, "failed", 2, 0.15, [](const std::string& base) {
      rk::PresenceBeat b = beat_of(long(getpid()), 1, "failed");
      b.why = "out of memory placing the shard";
      put(rk::presence_path(base, 1), b);
    });
    CHECK_MSG(l.find("rank 1 failed") != std::string::npos && l.find("out of memory placing the shard") != std::string::npos, l);
  }
  // Its pid on this host is gone: named within a beat, before it could go stale.
  {
    const pid_t child = fork();
    if (child == 0) _exit(0);
    waitpid(child, nullptr, 0);
    const std::string l = missing_within(dir, "gone", 2, 0.15, [child](const std::string& base) { put(rk::presence_path(base, 1), beat_of(long(child), 1)); });
    CHECK_MSG(l.find("rank 1 (pid " + std::to_string(child) + " on this host) is gone") != std::string::npos, l);
  }
  {  // killed but not yet reaped by its parent (a zombie): gone too
    const pid_t child = fork();
    if (child == 0) _exit(0);
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    const std::string l = missing_within(dir, "zombie", 2, 0.15, [child](const std::string& base) { put(rk::presence_path(base, 1), beat_of(long(child), 1)); });
    waitpid(child, nullptr, 0);
    CHECK_MSG(l.find("rank 1 (pid " + std::to_string(child) + " on this host) is gone") != std::string::npos, l);
  }
  // Done, or removed after it was seen: not missing. Another job's file: as if absent (so arrival counts).
  CHECK(missing_within(dir, "done", 2, 0.8, [](const std::string& base) { put(rk::presence_path(base, 1), beat_of(long(getpid()), 1, "done")); }).empty());
  CHECK(missing_within(dir, "removed", 2, 0.8, [](const std::string& base) {
          put(rk::presence_path(base, 1), beat_of(long(getpid()), 1));
          std::thread([base] {
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
            std::remove(rk::presence_path(base, 1).c_str());
          }).detach();
        }).empty());
  {
    const std::string l = missing_within(dir, "otherjob", 2, 0.8, [](const std::string& base) { put(rk::presence_path(base, 1), beat_of(long(getpid()), 1, "alive", "old-job")); });
    CHECK_MSG(l.find("rank 1 never arrived") != std::string::npos, l);
  }
  // A done rank's own file goes with it; rank 0's Presence wrote its own while it lived.
  CHECK(!fs::exists(rk::presence_path((fs::path(dir.path) / "alive").string(), 0)) ||
        rk::decode_beat([&] { std::ifstream f(rk::presence_path((fs::path(dir.path) / "alive").string(), 0)); std::stringstream t; t << f.rdbuf(); return t.str(); }()));
}

}  // namespace

int main() {
  identities();
  file_format();
  {
    const TempDir dir;
    bootstrap(dir);
    presence(dir);
  }
  return test_summary("test_ranks");
}
