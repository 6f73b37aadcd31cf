#include "ranks.hpp"

#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <vector>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace lp::harness::ranks {

namespace {

constexpr const char* kMagic = "lp-nccl-bootstrap v1";

// A variable's value as a non-negative int, or the one-line reason it is not one.
int parse_count(const Env& env, const char* name) {
  const char* v = env(name);
  const std::string s = v ? v : "";
  std::size_t used = 0;
  long long x = -1;
  try {
    x = std::stoll(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (s.empty() || used != s.size() || x < 0 || x > 1 << 30)
    throw std::invalid_argument(std::string(name) + "='" + s + "': not a count (a whole number from 0)");
  return int(x);
}

struct Names {
  const char* launcher;
  const char* rank;
  const char* world;
  const char* local[2];  // the local rank's variables, either
};

// In the order they are trusted (identity_from_env says why).
constexpr Names kSets[] = {
    {"env", "RANK", "WORLD_SIZE", {"LOCAL_RANK", nullptr}},
    {"openmpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE", {"OMPI_COMM_WORLD_LOCAL_RANK", nullptr}},
    {"pmi", "PMI_RANK", "PMI_SIZE", {"MPI_LOCALRANKID", "PMI_LOCAL_RANK"}},
    {"slurm", "SLURM_PROCID", "SLURM_NTASKS", {"SLURM_LOCALID", nullptr}},
};

std::string hex(const UniqueId& id) {
  static const char* digits = "0123456789abcdef";
  std::string out;
  out.reserve(2 * id.size());
  for (unsigned char b : id) {
    out.push_back(digits[b >> 4]);
    out.push_back(digits[b & 15]);
  }
  return out;
}

int nibble(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

Env process_env() {
  return [](const char* name) { return static_cast<const char*>(std::getenv(name)); };
}

std::optional<Identity> identity_from_env(const Env& env) {
  for (const Names& n : kSets) {
    if (!env(n.rank) && !env(n.world)) continue;
    if (!env(n.rank) || !env(n.world))
      throw std::invalid_argument(std::string(env(n.rank) ? n.world : n.rank) + " is not set, but " + (env(n.rank) ? n.rank : n.world) +
                                  " is: a launcher sets both");
    Identity id;
    id.launcher = n.launcher;
    id.rank = parse_count(env, n.rank);
    id.world = parse_count(env, n.world);
    if (id.world < 1) throw std::invalid_argument(std::string(n.world) + "=0: a job has at least one rank");
    if (id.rank >= id.world)
      throw std::invalid_argument(std::string(n.rank) + "=" + std::to_string(id.rank) + " is outside " + n.world + "=" + std::to_string(id.world));
    const char* local = nullptr;
    for (const char* l : n.local)
      if (l && env(l)) {
        local = l;
        break;
      }
    if (!local)
      throw std::invalid_argument(std::string("no local rank beside ") + n.rank + ": set " + n.local[0] +
                                  " (which GPU of its node the rank takes)");
    id.local_rank = parse_count(env, local);
    return id;
  }
  return std::nullopt;
}

std::string job_tag(const Env& env) {
  if (const char* t = env("LP_RANKS_TAG")) return t;
  if (const char* j = env("SLURM_JOB_ID")) {
    const char* step = env("SLURM_STEP_ID");
    return std::string("slurm-") + j + "." + (step ? step : "");
  }
  if (const char* j = env("OMPI_MCA_ess_base_jobid")) return std::string("ompi-") + j;
  return "";
}

std::string encode_file(const UniqueId& id, int world, const std::string& tag) {
  for (char c : tag)
    if (c == '\n' || c == ' ') throw std::invalid_argument("bootstrap tag '" + tag + "': no spaces or line breaks");
  return std::string(kMagic) + " world=" + std::to_string(world) + " tag=" + tag + "\n" + hex(id) + "\n";
}

Decoded decode_file(const std::string& text, int world, const std::string& tag) {
  Decoded d;
  const std::size_t eol = text.find('\n');
  const std::string head = text.substr(0, eol);
  if (head.rfind(kMagic, 0) != 0) {
    d.why = "its first line is not '" + std::string(kMagic) + " ...'";
    return d;
  }
  std::istringstream fields(head.substr(std::strlen(kMagic)));
  std::string w, t;
  fields >> w >> t;
  if (w.rfind("world=", 0) != 0 || t.rfind("tag=", 0) != 0) {
    d.why = "its header lacks world= and tag=";
    return d;
  }
  const std::string body = eol == std::string::npos ? "" : text.substr(eol + 1);
  if (body.size() < 2 * kIdBytes || (body.size() > 2 * kIdBytes && body.substr(2 * kIdBytes) != "\n")) {
    d.why = "its id is not " + std::to_string(2 * kIdBytes) + " hex digits";
    return d;
  }
  for (std::size_t i = 0; i < kIdBytes; ++i) {
    const int hi = nibble(body[2 * i]), lo = nibble(body[2 * i + 1]);
    if (hi < 0 || lo < 0) {
      d.why = "its id is not " + std::to_string(2 * kIdBytes) + " hex digits";
      return d;
    }
    d.id[i] = static_cast<unsigned char>(hi * 16 + lo);
  }
  if (w != "world=" + std::to_string(world) || t != "tag=" + tag) {
    d.kind = Decoded::Kind::OtherJob;
    d.why = "written for " + w + " " + t + ", this job is world=" + std::to_string(world) + " tag=" + tag;
    return d;
  }
  d.kind = Decoded::Kind::Ours;
  return d;
}

void publish_id(const std::string& path, const UniqueId& id, int world, const std::string& tag) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    f << encode_file(id, world, tag);
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      throw std::runtime_error("rank 0: cannot write the bootstrap file " + tmp + ": " + std::strerror(errno));
    }
  }
  // The rename is atomic: a waiting rank sees no file or the whole file, never half of one.
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string err = std::strerror(errno);
    std::remove(tmp.c_str());
    throw std::runtime_error("rank 0: cannot put the bootstrap file at " + path + ": " + err);
  }
}

UniqueId await_id(const std::string& path, int world, const std::string& tag, int rank, double timeout_s) {
  using clock = std::chrono::steady_clock;
  const auto end = clock::now() + std::chrono::duration<double>(timeout_s);
  std::string seen = "no file there";
  for (auto pause = std::chrono::milliseconds(2);; pause = std::min(pause * 2, std::chrono::milliseconds(100))) {
    std::ifstream f(path, std::ios::binary);
    if (f) {
      std::ostringstream text;
      text << f.rdbuf();
      const Decoded d = decode_file(text.str(), world, tag);
      if (d.kind == Decoded::Kind::Ours) return d.id;
      if (d.kind == Decoded::Kind::NotBootstrap)
        throw std::runtime_error("rank " + std::to_string(rank) + ": " + path + " is not a bootstrap file (" + d.why + ")");
      seen = "a file " + d.why;  // another job's: rank 0 of this one may be about to replace it
    }
    if (clock::now() >= end) break;
    std::this_thread::sleep_for(pause);
  }
  char limit[32];
  std::snprintf(limit, sizeof limit, "%g", timeout_s);
  throw std::runtime_error("rank " + std::to_string(rank) + ": rank 0 published no NCCL id at " + path + " within " + limit + " s (" + seen +
                           "): rank 0 never started, failed before it, or sees another path");
}

std::string presence_path(const std::string& base, int rank) { return base + ".rank" + std::to_string(rank); }

namespace {
constexpr const char* kBeatMagic = "lp-rank-presence v1";

std::string this_host() {
  char h[256] = {0};
  if (gethostname(h, sizeof h - 1) != 0) return "unknown";
  return h;
}

// The file's text, or nullopt where there is none.
std::optional<std::string> read_text(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return std::nullopt;
  std::ostringstream text;
  text << f.rdbuf();
  return text.str();
}

std::string seconds(double s) {
  char b[32];
  std::snprintf(b, sizeof b, "%g", s);
  return b;
}
}  // namespace

std::string encode_beat(const PresenceBeat& b) {
  // One line of fields; the reason (free text) last, to the end of the line.
  std::string why = b.why;
  for (char& c : why)
    if (c == '\n') c = ' ';
  return std::string(kBeatMagic) + " tag=" + (b.tag.empty() ? "-" : b.tag) + " pid=" + std::to_string(b.pid) + " host=" + b.host +
         " beat=" + std::to_string(b.beat) + " state=" + b.state + " why=" + why + "\n";
}

std::optional<PresenceBeat> decode_beat(const std::string& text) {
  if (text.rfind(kBeatMagic, 0) != 0 || text.empty() || text.back() != '\n') return std::nullopt;  // not one, or half written
  std::istringstream f(text.substr(std::strlen(kBeatMagic)));
  PresenceBeat b;
  std::string tag, pid, host, beat, state;
  f >> tag >> pid >> host >> beat >> state;
  auto value = [](const std::string& field, const char* key, std::string& out) {
    if (field.rfind(key, 0) != 0) return false;
    out = field.substr(std::strlen(key));
    return true;
  };
  std::string p, n;
  if (!value(tag, "tag=", b.tag) || !value(pid, "pid=", p) || !value(host, "host=", b.host) || !value(beat, "beat=", n) ||
      !value(state, "state=", b.state))
    return std::nullopt;
  if (b.tag == "-") b.tag.clear();
  try {
    b.pid = std::stol(p);
    b.beat = std::stoll(n);
  } catch (const std::exception&) {
    return std::nullopt;
  }
  std::string rest;
  std::getline(f, rest);
  const std::size_t at = rest.find("why=");
  if (at != std::string::npos) b.why = rest.substr(at + 4);
  return b;
}

// A pid of this host that is no longer a running process: none (ESRCH), or a zombie whose parent
// (a launcher, a test) has not reaped it yet.
static bool gone(long pid) {
  if (::kill(pid_t(pid), 0) != 0) return errno == ESRCH;
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  std::getline(f, stat);
  const std::size_t close = stat.rfind(')');  // the state follows the command's name in parentheses
  return close != std::string::npos && close + 2 < stat.size() && (stat[close + 2] == 'Z' || stat[close + 2] == 'X');
}

struct Presence::State {
  std::string base, tag, host;
  int rank = 0, world = 1;
  PresenceLimits limits;
  OnMissing on_missing;
  std::mutex mu;
  std::condition_variable wake;
  bool stop = false, watching = true;
  std::string state = "alive", why;
  long long beat = 0;
  std::thread thread;

  struct Peer {
    bool seen = false, gone = false;
    std::string last;  // the text of its file at the last change
    std::chrono::steady_clock::time_point changed;
  };
  std::vector<Peer> peers;

  void write_own() {
    PresenceBeat b{tag, host, state, why, long(::getpid()), beat++};
    const std::string path = presence_path(base, rank), tmp = path + ".tmp";
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      f << encode_beat(b);
    }
    std::rename(tmp.c_str(), path.c_str());  // best effort: a missed beat is made up by the next
  }

  // The line naming the first missing peer, or "".
  std::string judge(std::chrono::steady_clock::time_point start, std::chrono::steady_clock::time_point now) {
    using secs = std::chrono::duration<double>;
    for (int r = 0; r < world; ++r) {
      if (r == rank) continue;
      Peer& p = peers[std::size_t(r)];
      if (p.gone) continue;
      const std::string path = presence_path(base, r);
      const std::optional<std::string> text = read_text(path);
      std::optional<PresenceBeat> b = text ? decode_beat(*text) : std::nullopt;
      if (b && b->tag != tag) b.reset();  // another job's file on the same path: as if absent
      if (!b) {
        if (p.seen && !text) {
          p.gone = true;  // removed after it was seen: a clean exit
          continue;
        }
        if (!p.seen && secs(now - start).count() > limits.arrive_s)
          return "rank " + std::to_string(r) + " never arrived: no sign of it at " + path + " within " + seconds(limits.arrive_s) +
                 " s (it did not start, failed before it could, or sees another bootstrap path)";
        continue;
      }
      if (b->state == "done") {
        p.gone = true;
        continue;
      }
      if (b->state == "failed") return "rank " + std::to_string(r) + " failed (host " + b->host + ", pid " + std::to_string(b->pid) + "): " + b->why;
      if (!p.seen || *text != p.last) {
        p.seen = true;
        p.last = *text;
        p.changed = now;
      }
      if (b->host == host && gone(b->pid))
        return "rank " + std::to_string(r) + " (pid " + std::to_string(b->pid) + " on this host) is gone: it was killed or crashed";
      if (secs(now - p.changed).count() > limits.stale_s)
        return "rank " + std::to_string(r) + " stopped answering: its presence file " + path + " has not changed for " +
               seconds(limits.stale_s) + " s (host " + b->host + ", pid " + std::to_string(b->pid) + ": killed, hung, or its host is gone)";
    }
    return "";
  }

  void loop() {
    const auto start = std::chrono::steady_clock::now();
    std::unique_lock<std::mutex> lock(mu);
    while (!stop) {
      write_own();
      if (watching) {
        const std::string line = judge(start, std::chrono::steady_clock::now());
        if (!line.empty()) {
          watching = false;  // once
          lock.unlock();
          on_missing(line);
          lock.lock();
        }
      }
      wake.wait_for(lock, std::chrono::duration<double>(limits.beat_s), [this] { return stop; });
    }
    write_own();
  }
};

Presence::Presence(std::string base, int rank, int world, std::string tag, PresenceLimits limits, OnMissing on_missing) : s_(new State) {
  s_->base = std::move(base);
  s_->tag = std::move(tag);
  s_->host = this_host();
  s_->rank = rank;
  s_->world = world;
  s_->limits = limits;
  s_->on_missing = std::move(on_missing);
  s_->peers.resize(std::size_t(world));
  s_->thread = std::thread([this] { s_->loop(); });
}

Presence::~Presence() {
  {
    std::lock_guard<std::mutex> lock(s_->mu);
    s_->stop = true;
  }
  s_->wake.notify_all();
  if (s_->thread.joinable()) s_->thread.join();
  if (s_->state == "done") std::remove(presence_path(s_->base, s_->rank).c_str());
  delete s_;
}

void Presence::done() {
  std::lock_guard<std::mutex> lock(s_->mu);
  s_->state = "done";
  s_->watching = false;
  s_->write_own();
}

void Presence::failed(const std::string& why) {
  std::lock_guard<std::mutex> lock(s_->mu);
  s_->state = "failed";
  s_->why = why;
  s_->watching = false;
  s_->write_own();
}

}  // namespace lp::harness::ranks
