#include "ranks.hpp"

#include <unistd.h>

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

}  // namespace lp::harness::ranks
