// The driver every study executable runs: command line, config, points x variants, timing,
// validation, result files and the summary. It knows studies only through study.hpp.
#include "runner.hpp"

#include <algorithm>
#include <chrono>
#include <map>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <new>
#include <optional>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "config.hpp"
#include "errors.hpp"
#include "gpu.hpp"
#include "kernels/common/cuda_check.cuh"
#include "rank_world.hpp"
#include "ranks.hpp"
#include "results.hpp"

#include "git_commit.inc"  // generated at build time: LP_GIT_COMMIT

namespace harness {

using nlohmann::json;

namespace {

std::string utc_now(const char* fmt_str) {
  std::time_t t = std::time(nullptr);
  char buf[64];
  std::strftime(buf, sizeof buf, fmt_str, std::gmtime(&t));
  return buf;
}

std::string host_cpu() {
  std::ifstream f("/proc/cpuinfo");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("model name", 0) == 0) return line.substr(line.find(':') + 2);
  return "unknown";
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw UsageError("config: cannot read '" + path + "'");
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// Our DeviceBuffer's refusal, a checked CUDA call's, or a library's (Thrust throws a
// std::bad_alloc subclass when its own allocation fails).
bool is_oom(const std::exception& e) {
  if (dynamic_cast<const OutOfMemory*>(&e) || dynamic_cast<const std::bad_alloc*>(&e)) return true;
  auto c = dynamic_cast<const lp::CudaError*>(&e);
  return c && c->code == cudaErrorMemoryAllocation;
}

// SIGTERM or SIGINT (a time limit's `timeout`, a Ctrl-C): the record in progress finishes, the rest
// are recorded as not run, and the results written so far are kept (exit 3), so that a long sweep cut
// short loses nothing it measured.
volatile std::sig_atomic_t g_stop_signal = 0;
extern "C" void on_stop_signal(int sig) { g_stop_signal = sig; }
// The rank mode's: a rank cannot stop between records on its own (its peers would wait in the next
// record's collectives), so a signal ends it at once, with one line and no results file; the
// presence watch then ends its peers, naming it.
extern "C" void on_stop_signal_rank(int sig) {
  const char msg[] = "bench: a rank was interrupted (SIGTERM or SIGINT): ending it; no results are written\n";
  ssize_t ignored = ::write(2, msg, sizeof msg - 1);
  (void)ignored;
  std::_Exit(128 + sig);
}

class Progress {
 public:
  // On a terminal: one updating bar. Elsewhere, with LP_PROGRESS=1 (runs whose output goes to a
  // log, e.g. on a lent GPU machine): one line per record with the seconds since the start, so a
  // run cut off by a time limit still shows how far it got and what was slow.
  explicit Progress(size_t total)
      : total_(total), tty_(isatty(2)), lines_(!tty_ && std::getenv("LP_PROGRESS")), t0_(std::chrono::steady_clock::now()) {}
  void show(size_t done, const std::string& what) {
    if (lines_) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0_).count();
      fmt::print(stderr, "[{}/{} {:.1f}s] {}\n", done, total_, s, what);
      std::fflush(stderr);
    }
    if (!tty_) return;
    int width = 30;
    int fill = total_ ? static_cast<int>(width * done / total_) : width;
    std::string bar(fill, '#');
    bar.resize(width, '.');
    std::string line = fmt::format("\r[{}] {}/{} {}", bar, done, total_, what);
    if (line.size() > 110) line.resize(110);
    fmt::print(stderr, "{:<111}", line);
    std::fflush(stderr);
  }
  void done() {
    if (tty_) fmt::print(stderr, "\r{:<111}\r", "");
  }

 private:
  size_t total_;
  bool tty_, lines_;
  std::chrono::steady_clock::time_point t0_;
};

// Counts by reason, in order of first appearance.
using Tally = std::vector<std::pair<std::string, size_t>>;
void tally(Tally& t, const std::string& reason) {
  auto it = std::find_if(t.begin(), t.end(), [&](const auto& x) { return x.first == reason; });
  if (it == t.end()) t.emplace_back(reason, 1);
  else ++it->second;
}

// The records as a table. Records that did not run (skipped, not run) are folded into one line per
// reason unless `verbose`: without a GPU they are most of a study's rows, and the reason is the news.
void print_summary(const std::vector<Record>& records, std::ostream& os, bool verbose) {
  auto folded = [&](const Record& r) { return !verbose && !r.time && r.status == "skipped"; };
  size_t wv = 7, wp = 6;
  for (const auto& r : records) {
    if (folded(r)) continue;
    wv = std::max(wv, r.variant.size());
    wp = std::max(wp, format_params(r.params).size());
  }
  os << fmt::format("{:<{}}  {:<4}  {:<{}}  {:>10}  {:>6}  {:>9}  {:>8}  {:>6}  {}\n", "variant", wv, "kind", "params",
                    wp, "median ms", "rsd%", "ns/input", "GB/s", "%copy", "check");
  Tally reasons;
  for (const auto& r : records) {
    if (folded(r)) {
      tally(reasons, r.note);
    } else if (r.time) {
      os << fmt::format("{:<{}}  {:<4}  {:<{}}  {:>10.4f}  {:>6.1f}  {:>9.5f}  {:>8.1f}  {:>6}  {}\n", r.variant, wv,
                        to_string(r.kind), format_params(r.params), wp, r.time->median, 100 * r.time->rsd(),
                        r.ns_per_input, r.gbps,
                        r.fraction_of_copy > 0 ? fmt::format("{:.1f}", 100 * r.fraction_of_copy) : "-",
                        r.validation);
    } else {
      os << fmt::format("{:<{}}  {:<4}  {:<{}}  {:>10}  {:>6}  {:>9}  {:>8}  {:>6}  {} ({})\n", r.variant, wv,
                        to_string(r.kind), format_params(r.params), wp, "-", "-", "-", "-", "-", r.status, r.note);
    }
  }
  for (const auto& [note, count] : reasons)
    os << fmt::format("({} record{} skipped: {}; --verbose lists them)\n", count, count == 1 ? "" : "s", note);
}

// One line that ends every run: what validated, failed and was skipped, by reason.
std::string summary_line(const std::vector<Record>& records) {
  size_t validated = 0, unchecked = 0, failed = 0, skipped = 0;
  Tally reasons;
  for (const auto& r : records) {
    if (r.status == "failed") {
      ++failed;
    } else if (r.time) {
      ++(r.validation == "pass" ? validated : unchecked);
    } else {
      ++skipped;
      tally(reasons, r.note.substr(0, r.note.find_first_of(":(")));  // "not run: interrupted (...)": up to its first detail
    }
  }
  std::string line = fmt::format("summary: {} record{}: {} validated", records.size(), records.size() == 1 ? "" : "s", validated);
  if (unchecked) line += fmt::format(", {} measured without validation", unchecked);
  line += fmt::format(", {} failed, {} skipped", failed, skipped);
  if (!reasons.empty()) {
    line += " (";
    for (size_t i = 0; i < reasons.size(); ++i)
      line += fmt::format("{}{}: {}", i ? "; " : "", reasons[i].first.empty() ? "no reason given" : reasons[i].first, reasons[i].second);
    line += ")";
  }
  return line;
}

json gpu_json(const GpuInfo& g) {
  if (!g.present) return json{{"present", false}, {"reason", g.absent_reason}};
  return json{{"present", true},
              {"name", g.name},
              {"device", g.device},
              {"compute_capability", fmt::format("{}.{}", g.cc_major, g.cc_minor)},
              {"sms", g.sms},
              {"l2_bytes", g.l2_bytes},
              {"memory_bytes", g.memory_bytes},
              {"sm_clock_mhz", g.sm_clock_mhz},
              {"mem_clock_mhz", g.mem_clock_mhz},
              {"bus_width_bits", g.bus_width_bits}};
}


// Repeats `body` until the stopping rule of `reps` is met.
template <class Body>
std::vector<double> sample(const Repetitions& reps, Body&& body) {
  std::vector<double> s;
  double spent = 0;
  while (static_cast<int>(s.size()) < reps.max) {
    double ms = body();
    s.push_back(ms);
    spent += ms;
    if (static_cast<int>(s.size()) >= reps.min && (TimeStats::of(s).rsd() <= reps.target_rsd || spent >= reps.budget_ms))
      break;
  }
  return s;
}

// ---- a run that outlives a lost CUDA context ---------------------------------------------------
//
// After a sticky CUDA error (an illegal address, a trap) nothing more can run in the process. The
// run then saves what it has done (RunState) beside its results, replaces itself with a fresh
// process of the same executable and arguments (execv of /proc/self/exe, plus --resume), and the
// new process goes on with the next variant. The results file lists the processes and the points
// each ran (meta.processes).

constexpr int kMaxProcesses = 16;  // a run whose context is lost this often gives up on the rest

struct RunState {
  std::vector<Record> records;
  json processes = json::array();  // one object per process of this run, in order
  size_t next_point = 0, next_variant = 0;
  std::optional<Ceilings> ceilings;  // measured by the run's first process
  std::string out_dir;
};

json ceilings_json(const Ceilings& c) {
  return json{{"read_GBps", c.read_GBps},
              {"copy_GBps", c.copy_GBps},
              {"copy_kernel_GBps", c.copy_kernel_GBps},
              {"memcpy_GBps", c.memcpy_GBps},
              {"bytes", c.bytes}};
}

std::string state_path(const std::string& out_dir, const std::string& study) { return out_dir + "/." + study + ".resume.json"; }

void save_state(const RunState& st, const std::string& path) {
  json j;
  json recs = json::array();
  for (const auto& r : st.records) recs.push_back(record_to_json(r));
  j["records"] = recs;
  j["processes"] = st.processes;
  j["next_point"] = st.next_point;
  j["next_variant"] = st.next_variant;
  j["ceilings"] = st.ceilings ? ceilings_json(*st.ceilings) : json(nullptr);
  j["out_dir"] = st.out_dir;
  write_atomically(path, j.dump() + "\n");
}

RunState load_state(const std::string& path) {
  RunState st;
  try {
    const json j = json::parse(read_file(path));
    for (size_t i = 0; i < j.at("records").size(); ++i)
      st.records.push_back(record_from_json(j["records"][i], "records[" + std::to_string(i) + "]"));
    st.processes = j.at("processes");
    st.next_point = j.at("next_point").get<size_t>();
    st.next_variant = j.at("next_variant").get<size_t>();
    if (!j.at("ceilings").is_null()) {
      const json& c = j["ceilings"];
      Ceilings x;
      x.read_GBps = c.at("read_GBps"), x.copy_GBps = c.at("copy_GBps"), x.copy_kernel_GBps = c.at("copy_kernel_GBps");
      x.memcpy_GBps = c.at("memcpy_GBps"), x.bytes = c.at("bytes");
      st.ceilings = x;
    }
    st.out_dir = j.at("out_dir").get<std::string>();
  } catch (const UsageError&) {
    throw;
  } catch (const std::exception& e) {
    throw UsageError("--resume: " + path + " is not a run's saved state: " + e.what());
  }
  return st;
}

// Replaces this process with a new one of the same executable and arguments plus --resume; returns
// only if that fails, with the reason.
std::string restart(int argc, char** argv, const std::string& state) {
  std::vector<std::string> args;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--resume" && i + 1 < argc) {
      ++i;  // the previous process's own --resume
      continue;
    }
    args.emplace_back(argv[i]);
  }
  args.emplace_back("--resume");
  args.push_back(state);
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  std::fflush(stdout);
  std::fflush(stderr);
  cudaDeviceReset();  // best effort: the driver frees the lost context's memory at exec anyway
  execv("/proc/self/exe", cargs.data());
  return std::string("execv failed: ") + std::strerror(errno);
}

// LP_INJECT_FAULT="variant@point:kind[,...]" (the reliability tests): `variant` fails at point
// index `point` (0-based, in run order) with an injected fault (see gpu.hpp's inject_fault).
std::map<std::pair<size_t, std::string>, std::string> injected_faults(const RunConfig& cfg) {
  std::map<std::pair<size_t, std::string>, std::string> faults;
  const char* env = std::getenv("LP_INJECT_FAULT");
  if (!env || !*env) return faults;
  std::stringstream list(env);
  std::string item;
  while (std::getline(list, item, ',')) {
    const size_t at = item.find('@'), colon = item.find(':', at == std::string::npos ? 0 : at);
    if (at == std::string::npos || colon == std::string::npos)
      throw UsageError("LP_INJECT_FAULT: '" + item + "' is not variant@point:kind");
    const std::string variant = item.substr(0, at), kind = item.substr(colon + 1);
    size_t point = 0;
    try {
      point = std::stoul(item.substr(at + 1, colon - at - 1));
    } catch (const std::exception&) {
      throw UsageError("LP_INJECT_FAULT: '" + item + "': the point is not a number");
    }
    if (std::find(cfg.variants.begin(), cfg.variants.end(), variant) == cfg.variants.end())
      throw UsageError("LP_INJECT_FAULT: '" + variant + "' is not a variant of this run");
    if (kind != "launch" && kind != "trap") throw UsageError("LP_INJECT_FAULT: unknown fault kind '" + kind + "' (launch or trap)");
    faults[{point, variant}] = kind;
  }
  return faults;
}

// --dump-inputs: each point's inputs under dir/p<index>/ and a manifest (the study, the seed, the
// config as run, per point its parameters and what the point says of its files), written into a
// sibling directory first and renamed, so a refused or failed dump leaves nothing behind.
int dump_inputs(const Study& study, const RunConfig& cfg, const std::string& dir, bool force) {
  namespace fs = std::filesystem;
  const fs::path target(dir), tmp(dir + ".partial");
  if (fs::exists(target) && !force) throw UsageError("--dump-inputs: " + dir + " exists (use --force to overwrite, or another directory)");
  fs::remove_all(tmp);
  fs::create_directories(tmp);
  json points = json::array();
  auto bytes_under = [](const fs::path& d) {
    std::uintmax_t total = 0;
    for (const auto& e : fs::recursive_directory_iterator(d))
      if (e.is_regular_file()) total += e.file_size();
    return total;
  };
  auto gib = [](double b) { return fmt::format("{:.2f} GiB", b / double(1 << 30)); };
  std::uintmax_t written = 0;
  size_t pi = 0;
  try {
    for (; pi < cfg.points.size(); ++pi) {
      const std::string sub = "p" + std::to_string(pi);
      auto point = study.make_point(cfg.points[pi], cfg.seed, false);
      points.push_back({{"index", pi}, {"dir", sub}, {"params", params_to_json(cfg.points[pi])},
                        {"inputs", params_to_json(point->dump_inputs((tmp / sub).string()))}});
      // The size as it grows, and a stop before the disk fills: the points left, at the mean size so
      // far, must fit what is free.
      written += bytes_under(tmp / sub);
      const double left = double(written) / double(pi + 1) * double(cfg.points.size() - pi - 1);
      std::cout << fmt::format("--dump-inputs: point {} of {}: {} written\n", pi + 1, cfg.points.size(), gib(double(written))) << std::flush;
      if (left > double(fs::space(tmp).available))
        throw std::runtime_error(fmt::format("the remaining {} points need about {}, and {} is free under {}", cfg.points.size() - pi - 1,
                                             gib(left), gib(double(fs::space(tmp).available)), dir));
    }
  } catch (const Unsupported& e) {
    fs::remove_all(tmp);
    throw UsageError(fmt::format("--dump-inputs: point {} ({}): {}; every point of the config must be one this study dumps", pi,
                                 format_params(cfg.points[pi]), e.what()));
  } catch (...) {
    fs::remove_all(tmp);
    throw;
  }
  const json manifest = {{"study", study.name()}, {"seed", cfg.seed}, {"config", cfg.as_run}, {"points", points}};
  write_atomically((tmp / "manifest.json").string(), manifest.dump(1) + "\n");
  fs::remove_all(target);
  fs::rename(tmp, target);
  std::cout << "inputs of " << cfg.points.size() << " points (" << gib(double(written)) << "): " << dir << "/manifest.json\n";
  return 0;
}

}  // namespace

int study_main(int argc, char** argv, const Study& study) {
  const std::string prog = "bench " + study.name();
  CLI::App app{study.description(), prog};
  std::string config_path, out_dir, variants, resume, dump_dir;
  int device = 0, gpus = 0;
  std::string size_limit, bootstrap;
  bool ranks = false;
  bool quick = false, force = false, verbose = false, demo = false, describe = false, print_config = false, gpu_info = false;
  app.add_option("--config", config_path, "JSON config (default: the study's embedded default config)");
  app.add_option("--out", out_dir, "Directory for <study>.json and <study>.csv (default: runs/<study>-<UTC time>)");
  app.add_option("--variants", variants, "Comma-separated variants to run instead of the config's");
  // An ordinal's own message: CLI11's NonNegativeNumber names its range's upper end, the largest
  // double written out in full.
  const CLI::Validator ordinal(
      [](std::string& v) -> std::string {
        std::size_t used = 0;
        try {
          if (std::stoll(v, &used) >= 0 && used == v.size()) return "";
        } catch (const std::exception&) {
        }
        return "a CUDA device ordinal is 0 or more, got '" + v + "'";
      },
      "INT>=0");
  // A study whose variants all run on the CPU (cpu, cachesim) takes no GPU options and opens no GPU.
  const auto all_variants = study.variants();
  const bool uses_gpu = std::any_of(all_variants.begin(), all_variants.end(), [](const VariantSpec& v) { return v.kind != VariantKind::Cpu; });
  if (uses_gpu) {
    app.add_option("--device", device, "CUDA device ordinal")->check(ordinal);
    app.add_option("--gpus", gpus, "GPUs the multi-GPU variants use: sets the config's 'gpus' axis in every point")
        ->check(CLI::Range(1, 64));
    app.add_flag("--ranks", ranks,
                 "This process is one rank of a job, one GPU each (rank, world size and local rank from the launcher: srun, "
                 "mpirun, scripts/launch_ranks.sh); the multi-GPU variants run over the job's GPUs and rank 0 writes the results");
    app.add_option("--bootstrap", bootstrap,
                   "The rank mode's bootstrap file, on a path every rank sees (default: $LP_BOOTSTRAP, else a file in $TMPDIR: one host)");
  }
  app.add_flag("--quick", quick, "A smoke run, not a measurement: few repetitions, sizes cut to 2^20");
  app.add_option("--size-limit", size_limit,
                 "Cut every point's sizes to N (2^k allowed; each size axis of a point by one power of two), repetitions unchanged");
  app.add_flag("--force", force, "Overwrite existing result files");
  app.add_flag("--verbose", verbose, "List every record, the skipped ones too (default: one line per reason they were skipped)");
  app.add_flag("--print-config", print_config, "Print the embedded default config and exit");
  app.add_option("--dump-inputs", dump_dir,
                 "Write every point's inputs under this directory (p<index>/ and manifest.json) for an outside tool, run nothing");
  if (study.has_demo())
    app.add_flag("--demo", demo, "Print the reference's demonstrations, checked against the CPU reference");
  app.add_flag("--describe", describe, "Machine-readable study and variant list (for 'bench list')")->group("");
  // For bench reproduce's plan: whether this machine has a GPU the study can use, as one JSON line.
  app.add_flag("--gpu-info", gpu_info, "")->group("");
  // Set by the run itself when it goes on in a fresh process after a lost CUDA context.
  app.add_option("--resume", resume, "A run's saved state")->group("");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    std::cout << app.help();
    std::cout << "\nVariants:\n";
    for (const auto& v : study.variants()) std::cout << fmt::format("  {:<30} {:<4}  {}\n", v.name, to_string(v.kind), v.description);
    std::cout << "\nAxes:\n";
    for (const auto& a : study.axes()) std::cout << fmt::format("  {:<12} {}\n", a.name, a.help);
    return 0;
  } catch (const CLI::ParseError& e) {
    std::cerr << prog << ": " << e.what() << " (see --help)\n";
    return 2;
  }

  if (describe) {
    std::cout << study.name() << '\t' << study.description() << '\n';
    for (const auto& v : study.variants()) std::cout << v.name << '\t' << to_string(v.kind) << '\t' << v.description << '\n';
    return 0;
  }
  if (gpu_info) {
    json j{{"present", false}};
    if (uses_gpu) {
      const GpuInfo g = open_gpu(device);
      j = {{"present", g.present}, {"name", g.name}, {"reason", g.present ? "" : g.absent_reason}};
    }
    std::cout << j.dump() << '\n';
    return 0;
  }
  if (print_config) {
    std::cout << study.default_config();
    return 0;
  }

  RunConfig cfg;
  RunState state;
  lp::harness::ranks::Identity identity;  // the rank mode's
  std::string json_path, csv_path;
  std::map<std::pair<size_t, std::string>, std::string> faults;
  try {
    if (demo) {
      GpuInfo g = open_gpu(device);
      return study.demo(std::cout, g.present);
    }
    cfg = config_path.empty() ? load_config(study.default_config(), "the embedded default config", study)
                              : load_config(read_file(config_path), config_path, study);
    if (!dump_dir.empty()) {
      try {
        return dump_inputs(study, cfg, dump_dir, force);
      } catch (const UsageError&) {
        throw;
      } catch (const std::exception& e) {  // a full disk, a failed generator: one line, nothing left behind
        std::cerr << prog << ": --dump-inputs: " << e.what() << '\n';
        return 1;
      }
    }
    if (!variants.empty()) select_variants(cfg, variants, study);
    if (ranks) {
      std::optional<lp::harness::ranks::Identity> me;
      try {
        me = lp::harness::ranks::identity_from_env(lp::harness::ranks::process_env());
      } catch (const std::invalid_argument& e) {
        throw UsageError(std::string("--ranks: ") + e.what());
      }
      if (!me)
        throw UsageError("--ranks: no rank in the environment: start each rank with a launcher that sets RANK, WORLD_SIZE and "
                         "LOCAL_RANK (scripts/launch_ranks.sh), or Open MPI's, PMI's or Slurm's variables (mpirun, srun)");
      if (gpus > 0 && gpus != me->world)
        throw UsageError("--gpus " + std::to_string(gpus) + " with --ranks in a job of " + std::to_string(me->world) +
                         " ranks: the rank mode's GPUs are the job's ranks (leave --gpus out)");
      if (!resume.empty()) throw UsageError("--ranks: a rank does not resume (a lost CUDA context ends the job)");
      identity = *me;
      gpus = me->world;
    } else if (!bootstrap.empty()) {
      throw UsageError("--bootstrap: only with --ranks");
    }
    if (gpus > 0) set_axis(cfg, ranks ? "--ranks" : "--gpus", "gpus", Value(std::int64_t(gpus)), study);
    if (!size_limit.empty()) {
      std::int64_t limit = 0;
      try {
        limit = parse_size(json(size_limit), "--size-limit");
      } catch (const UsageError&) {
        throw UsageError("--size-limit: cannot read '" + size_limit + "' as a size (write an integer or 2^k)");
      }
      cut_sizes(cfg, study, limit);
    }
    if (quick) make_quick(cfg, study);
    faults = injected_faults(cfg);
    if (!resume.empty()) {
      state = load_state(resume);
      out_dir = state.out_dir;
    }
    if (out_dir.empty()) out_dir = "runs/" + study.name() + "-" + utc_now("%Y%m%dT%H%M%SZ");
    state.out_dir = out_dir;
    json_path = out_dir + "/" + study.name() + ".json";
    csv_path = out_dir + "/" + study.name() + ".csv";
    for (const auto& p : {json_path, csv_path})
      if (resume.empty() && identity.rank == 0 && std::filesystem::exists(p) && !force)
        throw UsageError("--out: " + p + " exists (use --force to overwrite, or another --out)");
  } catch (const UsageError& e) {
    std::cerr << prog << ": " << e.what() << '\n';
    return 2;
  }

  GpuInfo gpu;
  Ceilings ceil;
  std::unique_ptr<DeviceMemoryLimit> memory_limit;
  std::unique_ptr<GpuTimer> timer;
  RankWorld* world = nullptr;  // the rank mode's job
  if (ranks) {
    // The rank's GPU: its local rank, or the one GPU a launcher left it (CUDA_VISIBLE_DEVICES).
    int count = 0;
    if (cudaGetDeviceCount(&count) != cudaSuccess) count = 0, cudaGetLastError();
    if (count == 1) device = 0;
    else if (identity.local_rank < count) device = identity.local_rank;
    else if (count > 0) {
      std::cerr << prog << ": --ranks: local rank " << identity.local_rank << " but this node has " << count
                << " GPUs: start at most one rank per GPU\n";
      return 2;
    }
  }
  try {
    if (uses_gpu) {
      gpu = open_gpu(device);
    } else {
      gpu.absent_reason = "not needed: every variant of this study runs on the CPU";
    }
    if (gpu.present) {
      memory_limit = std::make_unique<DeviceMemoryLimit>(cfg.device_memory_limit);
      if (!state.ceilings) state.ceilings = measure_ceilings(gpu.l2_bytes, free_device_bytes());
      ceil = *state.ceilings;
      timer = std::make_unique<GpuTimer>(gpu.l2_bytes);
    } else if (resume.empty() && uses_gpu) {
      std::cerr << prog << ": " << gpu.absent_reason << "; running the CPU variants only\n";
    }
  } catch (const UsageError& e) {
    std::cerr << prog << ": " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << prog << ": GPU set-up failed: " << e.what() << '\n';
    return 1;
  }
  if (ranks) {
    if (!gpu.present) {
      std::cerr << prog << ": --ranks: rank " << identity.rank << " has no GPU (" << gpu.absent_reason << "); nothing ran\n";
      return kExitNothingRan;
    }
    auto seconds_from = [](const char* var, double fallback) {
      const char* v = std::getenv(var);
      char* end = nullptr;
      const double x = v ? std::strtod(v, &end) : 0;
      return v && end && *end == '\0' && x > 0 ? x : fallback;
    };
    RankWorld::Options o;
    o.prog = prog;
    o.bootstrap = bootstrap;
    o.arrive_s = seconds_from("LP_RANKS_TIMEOUT_S", 60);
    o.stale_s = seconds_from("LP_RANKS_STALE_S", 10);
    try {
      world = &RankWorld::join(identity, device, o);
    } catch (const std::exception& e) {
      std::cerr << prog << ": rank " << identity.rank << " of " << identity.world << ": joining the job failed: " << e.what() << '\n';
      return 1;
    }
  }
  const bool lead = identity.rank == 0;  // the one process that prints the table and writes the results

  const auto specs = study.variants();
  auto kind_of = [&](const std::string& name) {
    for (const auto& v : specs)
      if (v.name == name) return v.kind;
    return VariantKind::Ours;
  };

  std::vector<Record>& records = state.records;
  state.processes.push_back({{"index", state.processes.size()},
                             {"pid", ::getpid()},
                             {"first_point", state.next_point},
                             {"first_variant", state.next_variant},
                             {"device_free_bytes", gpu.present ? free_device_bytes() : 0}});
  Progress progress(cfg.points.size() * cfg.variants.size());
  size_t done = records.size();
  std::string lost;  // why the CUDA context was lost ("" while it works)
  size_t stop_point = cfg.points.size(), stop_variant = 0;

  const auto axes = study.axes();
  auto make_record = [&](const std::string& v, const Params& params) {
    Record r;
    r.study = study.name();
    r.variant = v;
    r.kind = kind_of(v);
    r.params = params;
    for (const AxisSpec& a : axes)
      if (a.omit_at_default && !a.defaults.empty()) {
        auto it = r.params.find(a.name);
        if (it != r.params.end() && it->second == a.defaults.front()) r.params.erase(it);
      }
    return r;
  };

  std::signal(SIGTERM, world ? on_stop_signal_rank : on_stop_signal);
  std::signal(SIGINT, world ? on_stop_signal_rank : on_stop_signal);
  // The rank mode keeps every rank in step: where one rank's outcome could differ from another's
  // (making the inputs, preparing a variant, validating), they agree before going on, so all take
  // the same branch and meet in the same collectives. `mine` is "" (fine), "S..." (skip: reason)
  // or "F..." (failed: reason); the answer is the first rank's that is not fine, its reason named
  // by rank, or "".
  auto agree = [&](const std::string& mine) -> std::string {
    if (!world) return mine;
    const std::vector<std::string> all = world->gather_text(mine);
    for (int r = 0; r < int(all.size()); ++r)
      if (!all[std::size_t(r)].empty()) {
        const std::string& t = all[std::size_t(r)];
        return t.substr(0, 1) + (r == world->rank() ? t.substr(1) : "rank " + std::to_string(r) + ": " + t.substr(1));
      }
    return "";
  };
  for (size_t pi = state.next_point; pi < cfg.points.size() && lost.empty() && !g_stop_signal; ++pi) {
    const Params& params = cfg.points[pi];
    const size_t first_variant = pi == state.next_point ? state.next_variant : 0;
    std::unique_ptr<Point> point;
    std::string point_skip;
    bool point_failed = false;
    try {
      point = study.make_point(params, cfg.seed, gpu.present);
    } catch (const std::exception& e) {
      const bool usable = !gpu.present || recover_context();
      if (is_oom(e)) {
        point_skip = std::string("out of memory generating the inputs: ") + e.what();
      } else {
        point_skip = e.what();
        point_failed = dynamic_cast<const lp::CudaError*>(&e) || !usable;
      }
      if (!usable) lost = e.what();
      if (!usable && world) world->fail("the CUDA context was lost making the inputs (" + lost + ")");
    }
    if (world) {
      const std::string all = agree(point ? "" : (point_failed ? "F" : "S") + point_skip);
      if (!all.empty()) point.reset(), point_skip = all.substr(1), point_failed = all[0] == 'F';
    }
    for (size_t vi = first_variant; vi < cfg.variants.size(); ++vi) {
      if (g_stop_signal) break;
      const std::string& v = cfg.variants[vi];
      if (lead) progress.show(done, v + " " + format_params(params));
      ++done;
      Record r = make_record(v, params);
      auto skip = [&](const std::string& why) {
        r.status = "skipped";
        r.validation = "skipped";
        r.note = why;
      };
      if (!point) {
        skip(point_skip);
        if (point_failed) r.status = "failed";
        records.push_back(r);
        continue;
      }
      bool on_gpu = r.kind != VariantKind::Cpu;
      if (on_gpu && !gpu.present) {
        skip("no GPU");
        records.push_back(r);
        continue;
      }
      if (world && !on_gpu) {
        skip("a CPU baseline: the rank mode runs the GPU variants (run the CPU baselines without --ranks)");
        records.push_back(r);
        continue;
      }
      auto fault = faults.find({pi, v});
      if (world) {
        // Prepared on every rank, or skipped (or failed) on every rank with the first one's reason.
        std::string mine;
        try {
          point->prepare(v);
          LP_CUDA(cudaDeviceSynchronize());
        } catch (const Unsupported& e) {
          mine = std::string("Sunsupported: ") + e.what();
        } catch (const std::exception& e) {
          if (!recover_context()) world->fail("the CUDA context was lost preparing " + v + " (" + e.what() + ")");
          mine = is_oom(e) ? std::string("Sout of memory: ") + e.what() : std::string("F") + e.what();
        }
        if (const std::string all = agree(mine); !all.empty()) {
          skip(all.substr(1));
          if (all[0] == 'F') r.status = "failed";
          if (mine.empty()) {
            try {
              point->release(v);
            } catch (...) {
            }
          }
          records.push_back(r);
          continue;
        }
      }
      try {
        if (!world) point->prepare(v);
        // Whatever prepare() enqueued (uploads, the outputs' poison fill on the legacy stream) is
        // finished before the variant runs on the timer's non-blocking stream, which does not wait
        // for the legacy stream: a poison fill still in flight once overwrote a histogram's zeroed
        // output (seen by the order test as one count missing).
        if (on_gpu) LP_CUDA(cudaDeviceSynchronize());
        auto once = [&]() -> double {
          if (on_gpu) {
            if (cfg.cold) timer->flush_l2();
            // Every rank's timed run starts on its GPU when all ranks have flushed and arrived; the
            // record's time is the slowest rank's (the job is done when its last rank is).
            if (world) world->barrier(static_cast<cudaStream_t>(timer->stream()));
            timer->start();
            if (fault != faults.end()) inject_fault(fault->second, timer->stream());
            else point->run(v, timer->stream());
            const double ms = timer->stop_ms();
            return world ? world->max(ms) : ms;
          }
          auto t0 = std::chrono::steady_clock::now();
          point->run(v, nullptr);
          return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        };
        // CPU baselines take seconds at the default sizes: one warm-up and at least three
        // samples keep a sweep in minutes (their run-to-run noise on a shared host dwarfs what
        // more samples would resolve; bench compare does not gate them by default).
        Repetitions reps = cfg.reps;
        if (!on_gpu) reps.warmup = std::min(reps.warmup, 1), reps.min = std::min(reps.min, 3);
        for (int w = 0; w < reps.warmup; ++w) once();
        r.time = TimeStats::of(sample(reps, once));
        double secs = r.time->median * 1e-3;
        r.ns_per_input = r.time->median * 1e6 / point->inputs();
        r.gbps = point->minimal_bytes(v) / secs / 1e9;
        if (gpu.present && ceil.copy_GBps > 0) r.fraction_of_copy = r.gbps / ceil.copy_GBps;
        if (cfg.validate) {
          Validation val = point->validate(v);
          if (world) {
            // Each rank checked what it holds: the record fails where any rank's check did.
            const char code = val.status == Validation::Status::Pass ? 'P' : val.status == Validation::Status::Fail ? 'F' : 'K';
            const std::vector<std::string> all = world->gather_text(std::string(1, code) + val.detail);
            for (int q = 0; q < int(all.size()); ++q)
              if (!all[std::size_t(q)].empty() && all[std::size_t(q)][0] == 'F' && val.status != Validation::Status::Fail) {
                val.status = Validation::Status::Fail;
                val.detail = "rank " + std::to_string(q) + ": " + all[std::size_t(q)].substr(1);
              }
          }
          r.validation = val.status == Validation::Status::Pass ? "pass" : val.status == Validation::Status::Fail ? "fail" : "skipped";
          r.note = val.detail;
          if (val.status == Validation::Status::Fail) {
            r.status = "failed";
            std::cerr << prog << ": VALIDATION FAILED: " << v << " at " << format_params(params) << ": " << val.detail << '\n';
          }
        } else {
          r.note = "validation off";
        }
        r.metrics = point->metrics(v);
        if (cfg.validate)
          if (const std::string sum = point->reference_checksum(v); !sum.empty()) r.metrics["reference_checksum"] = sum;
      } catch (const Unsupported& e) {
        skip(std::string("unsupported: ") + e.what());
        r.time.reset();
      } catch (const std::exception& e) {
        // A rank cannot fail a record alone: its peers would wait in the next one's collectives.
        if (world) world->fail("ERROR: " + v + " at " + format_params(params) + ": " + e.what());
        r.time.reset();
        // Whatever failed, a pending non-sticky error is cleared here, so that it cannot be
        // reported again by the next variant's first checked call.
        const bool usable = !gpu.present || recover_context();
        if (is_oom(e)) {
          skip(std::string("out of memory: ") + e.what());
        } else {
          r.status = "failed";
          r.validation = "skipped";
          r.note = e.what();
          std::cerr << prog << ": ERROR: " << v << " at " << format_params(params) << ": " << e.what() << '\n';
        }
        if (!usable) lost = e.what();
      }
      // Whatever happened, the variant's buffers go before the next one needs the memory (not
      // after a lost context: nothing can be freed then, and the process is replaced).
      if (lost.empty()) {
        try {
          point->release(v);
        } catch (...) {
        }
      }
      records.push_back(r);
      if (!lost.empty()) {
        stop_point = pi, stop_variant = vi + 1;
        break;
      }
    }
    if (!lost.empty() && stop_point == cfg.points.size()) stop_point = pi + 1, stop_variant = 0;  // lost making the point
  }
  if (stop_point < cfg.points.size() && stop_variant == cfg.variants.size()) ++stop_point, stop_variant = 0;

  std::string aborted, interrupted;
  // Where a run ends early, the records it did not run are kept as such, so that the file still
  // holds every (point, variant) of the config.
  auto mark_not_run = [&](const std::string& note) {
    for (size_t pi = stop_point; pi < cfg.points.size(); ++pi)
      for (size_t vi = pi == stop_point ? stop_variant : 0; vi < cfg.variants.size(); ++vi) {
        Record r = make_record(cfg.variants[vi], cfg.points[pi]);
        r.status = "skipped";
        r.validation = "skipped";
        r.note = "not run: " + note;
        records.push_back(r);
      }
  };
  if (!lost.empty()) {
    state.processes.back()["ended"] = "CUDA context lost: " + lost;
    state.processes.back()["last_point"] = stop_variant == 0 ? stop_point - 1 : stop_point;
    if (stop_point < cfg.points.size()) {
      std::string why;
      if (static_cast<int>(state.processes.size()) < kMaxProcesses) {
        state.next_point = stop_point, state.next_variant = stop_variant;
        const std::string path = state_path(out_dir, study.name());
        try {
          save_state(state, path);
          progress.done();
          std::cerr << prog << ": the CUDA context was lost (" << lost << "); going on in a fresh process from point " << stop_point
                    << ", variant " << cfg.variants[stop_variant] << '\n';
          why = restart(argc, argv, path);
        } catch (const std::exception& e) {
          why = e.what();
        }
      } else {
        why = "the CUDA context was lost in " + std::to_string(kMaxProcesses) + " processes";
      }
      // No fresh process: the rest is recorded as not run, and the run ends here.
      aborted = lost + " (" + why + ")";
      mark_not_run("the CUDA context was lost and no fresh process could go on (" + why + ")");
    }
  } else if (g_stop_signal) {
    // Every (point, variant) before the stop has its record, in order (those of earlier processes too).
    const size_t have = records.size();
    stop_point = have / cfg.variants.size(), stop_variant = have % cfg.variants.size();
    interrupted = std::string(g_stop_signal == SIGINT ? "SIGINT" : "SIGTERM") + " after " + std::to_string(have) + " of " +
                  std::to_string(cfg.points.size() * cfg.variants.size()) + " records";
    state.processes.back()["ended"] = "interrupted: " + interrupted;
    mark_not_run("the run was interrupted (" + interrupted + ")");
  } else {
    state.processes.back()["ended"] = "completed";
    state.processes.back()["last_point"] = cfg.points.empty() ? 0 : cfg.points.size() - 1;
  }
  progress.done();
  if (world) {
    world->done();  // every collective of the run is behind it
    if (!lead) {
      const bool failed = std::any_of(records.begin(), records.end(), [](const Record& r) { return r.status == "failed"; });
      std::cout << fmt::format("rank {} of {}: {} records run in step with rank 0, which writes the results{}\n", world->rank(),
                               world->world(), records.size(), failed ? " (some failed: see rank 0)" : "");
      return failed ? 1 : 0;
    }
  }
  if (!resume.empty()) {
    std::error_code ec;
    std::filesystem::remove(resume, ec);  // the saved state has served; a failure to remove it is harmless
  }

  json meta;
  meta["study"] = study.name();
  meta["config"] = cfg.as_run;
  meta["seed"] = cfg.seed;
  meta["variants"] = cfg.variants;
  meta["repetitions"] = {{"warmup", cfg.reps.warmup}, {"min", cfg.reps.min},         {"max", cfg.reps.max},
                         {"budget_ms", cfg.reps.budget_ms}, {"target_rsd", cfg.reps.target_rsd}};
  meta["cache"] = cfg.cold ? "cold" : "hot";
  if (cfg.cold && gpu.present) meta["l2_flush"] = l2_flush_method();
  meta["validate"] = cfg.validate;
  if (cfg.device_memory_limit > 0) meta["device_memory_limit"] = cfg.device_memory_limit;
  meta["git_commit"] = LP_GIT_COMMIT;
  meta["date"] = utc_now("%Y-%m-%dT%H:%M:%SZ");
  meta["gpu"] = gpu_json(gpu);
  meta["driver"] = gpu.present ? version_string(gpu.driver_version) : "";
  meta["cuda_runtime"] = gpu.present ? version_string(gpu.runtime_version) : "";
  meta["cccl"] = gpu.present ? gpu.cccl_version : "";
  meta["host"] = {{"cpu", host_cpu()}, {"cores", std::thread::hardware_concurrency()}};
  std::string cmd;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--resume" && i + 1 < argc) break;  // the restart's own arguments come last
    cmd += (i ? " " : "") + std::string(argv[i]);
  }
  meta["command"] = cmd;
  meta["processes"] = state.processes;
  if (world)
    meta["ranks"] = {{"world", world->world()},
                     {"launcher", world->identity().launcher},
                     {"bootstrap", world->bootstrap()},
                     {"timing", "each repetition starts on every rank's GPU after a barrier; its time is the slowest rank's"}};
  if (!aborted.empty()) meta["aborted"] = aborted;
  if (!interrupted.empty()) meta["interrupted"] = interrupted;

  add_scaling(records);
  json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["meta"] = meta;
  doc["ceilings"] = gpu.present ? ceilings_json(ceil) : json(nullptr);
  json recs = json::array();
  for (const auto& r : records) recs.push_back(record_to_json(r));
  doc["records"] = recs;

  print_summary(records, std::cout, verbose);
  if (gpu.present)
    std::cout << fmt::format("ceilings on {}: read {:.0f} GB/s; copy {:.0f} GB/s (read+write; kernel {:.0f}, cudaMemcpy {:.0f})\n",
                             gpu.name, ceil.read_GBps, ceil.copy_GBps, ceil.copy_kernel_GBps, ceil.memcpy_GBps);
  if (state.processes.size() > 1)
    std::cout << fmt::format("ran in {} processes: the CUDA context was lost {} time(s) (meta.processes)\n", state.processes.size(),
                             state.processes.size() - 1);
  try {
    write_atomically(json_path, doc.dump(1) + "\n");
    write_atomically(csv_path, records_to_csv(records));
    std::cout << "results: " << json_path << " and " << csv_path << '\n';
  } catch (const std::exception& e) {
    std::cerr << prog << ": " << e.what() << '\n';
    return 1;
  }
  if (!aborted.empty()) std::cerr << prog << ": run stopped after a CUDA error: " << aborted << '\n';
  const bool any_failed = std::any_of(records.begin(), records.end(), [](const Record& r) { return r.status == "failed"; });
  std::cout << summary_line(records) << '\n';
  if (any_failed || !aborted.empty()) return 1;
  if (!interrupted.empty()) {
    std::cerr << prog << ": interrupted (" << interrupted << "); the records measured so far are written, the rest marked not run\n";
    return 3;
  }
  // Nothing measured (every record skipped: no GPU for a GPU-only config, every point too large):
  // not a success, and not a failure either.
  if (std::none_of(records.begin(), records.end(), [](const Record& r) { return bool(r.time); })) {
    std::cerr << prog << ": nothing ran: every record was skipped (exit " << kExitNothingRan << ")\n";
    return kExitNothingRan;
  }
  return 0;
}

}  // namespace harness
