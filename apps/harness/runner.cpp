// The driver every study executable runs: command line, config, points x variants, timing,
// validation, result files and the summary. It knows studies only through study.hpp.
#include "runner.hpp"

#include <chrono>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "config.hpp"
#include "errors.hpp"
#include "gpu.hpp"
#include "kernels/common/cuda_check.cuh"
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

bool is_oom(const std::exception& e) {
  if (dynamic_cast<const OutOfMemory*>(&e)) return true;
  auto c = dynamic_cast<const lp::CudaError*>(&e);
  return c && c->code == cudaErrorMemoryAllocation;
}

// A sticky CUDA error (an illegal address, a trap) poisons the context: nothing after it can be
// trusted, so the run stops and keeps what it has.
bool is_fatal(const std::exception& e) {
  auto c = dynamic_cast<const lp::CudaError*>(&e);
  return c && !is_oom(e);
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

void print_summary(const std::vector<Record>& records, std::ostream& os) {
  size_t wv = 7, wp = 6;
  for (const auto& r : records) {
    wv = std::max(wv, r.variant.size());
    wp = std::max(wp, format_params(r.params).size());
  }
  os << fmt::format("{:<{}}  {:<4}  {:<{}}  {:>10}  {:>6}  {:>9}  {:>8}  {:>6}  {}\n", "variant", wv, "kind", "params",
                    wp, "median ms", "rsd%", "ns/input", "GB/s", "%copy", "check");
  for (const auto& r : records) {
    if (r.time)
      os << fmt::format("{:<{}}  {:<4}  {:<{}}  {:>10.4f}  {:>6.1f}  {:>9.5f}  {:>8.1f}  {:>6}  {}\n", r.variant, wv,
                        to_string(r.kind), format_params(r.params), wp, r.time->median, 100 * r.time->rsd(),
                        r.ns_per_input, r.gbps,
                        r.fraction_of_copy > 0 ? fmt::format("{:.1f}", 100 * r.fraction_of_copy) : "-",
                        r.validation);
    else
      os << fmt::format("{:<{}}  {:<4}  {:<{}}  {:>10}  {:>6}  {:>9}  {:>8}  {:>6}  {} ({})\n", r.variant, wv,
                        to_string(r.kind), format_params(r.params), wp, "-", "-", "-", "-", "-", r.status, r.note);
  }
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

std::string version_string(int v) { return fmt::format("{}.{}", v / 1000, (v % 1000) / 10); }

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

}  // namespace

int study_main(int argc, char** argv, const Study& study) {
  const std::string prog = "bench " + study.name();
  CLI::App app{study.description(), prog};
  std::string config_path, out_dir, variants;
  int device = 0;
  bool quick = false, force = false, demo = false, describe = false, print_config = false;
  app.add_option("--config", config_path, "JSON config (default: the study's embedded default config)");
  app.add_option("--out", out_dir, "Directory for <study>.json and <study>.csv (default: runs/<study>-<UTC time>)");
  app.add_option("--variants", variants, "Comma-separated variants to run instead of the config's");
  app.add_option("--device", device, "CUDA device ordinal")->check(CLI::NonNegativeNumber);
  app.add_flag("--quick", quick, "Few repetitions: a smoke run, not a measurement");
  app.add_flag("--force", force, "Overwrite existing result files");
  app.add_flag("--print-config", print_config, "Print the embedded default config and exit");
  if (study.has_demo())
    app.add_flag("--demo", demo, "Print the reference's demonstrations, checked against the CPU reference");
  app.add_flag("--describe", describe, "Machine-readable study and variant list (for 'bench list')")->group("");
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
  if (print_config) {
    std::cout << study.default_config();
    return 0;
  }

  RunConfig cfg;
  std::string json_path, csv_path;
  try {
    if (demo) {
      GpuInfo g = open_gpu(device);
      return study.demo(std::cout, g.present);
    }
    cfg = config_path.empty() ? load_config(study.default_config(), "the embedded default config", study)
                              : load_config(read_file(config_path), config_path, study);
    if (!variants.empty()) select_variants(cfg, variants, study);
    if (quick) make_quick(cfg);
    if (out_dir.empty()) out_dir = "runs/" + study.name() + "-" + utc_now("%Y%m%dT%H%M%SZ");
    json_path = out_dir + "/" + study.name() + ".json";
    csv_path = out_dir + "/" + study.name() + ".csv";
    for (const auto& p : {json_path, csv_path})
      if (std::filesystem::exists(p) && !force)
        throw UsageError("--out: " + p + " exists (use --force to overwrite, or another --out)");
  } catch (const UsageError& e) {
    std::cerr << prog << ": " << e.what() << '\n';
    return 2;
  }

  GpuInfo gpu;
  Ceilings ceil;
  std::unique_ptr<GpuTimer> timer;
  try {
    gpu = open_gpu(device);
    if (gpu.present) {
      ceil = measure_ceilings(gpu.l2_bytes, free_device_bytes());
      timer = std::make_unique<GpuTimer>(gpu.l2_bytes);
    } else {
      std::cerr << prog << ": no GPU (" << gpu.absent_reason << "); running the CPU variants only\n";
    }
  } catch (const UsageError& e) {
    std::cerr << prog << ": " << e.what() << '\n';
    return 2;
  } catch (const std::exception& e) {
    std::cerr << prog << ": GPU set-up failed: " << e.what() << '\n';
    return 1;
  }

  const auto specs = study.variants();
  auto kind_of = [&](const std::string& name) {
    for (const auto& v : specs)
      if (v.name == name) return v.kind;
    return VariantKind::Ours;
  };

  std::vector<Record> records;
  Progress progress(cfg.points.size() * cfg.variants.size());
  size_t done = 0;
  bool fatal = false, any_failed = false;
  std::string fatal_msg;

  for (const auto& params : cfg.points) {
    std::unique_ptr<Point> point;
    std::string point_skip;
    if (!fatal) {
      try {
        point = study.make_point(params, cfg.seed, gpu.present);
      } catch (const std::exception& e) {
        if (is_oom(e))
          point_skip = std::string("out of memory generating the inputs: ") + e.what();
        else if (is_fatal(e))
          fatal = true, fatal_msg = e.what();
        else
          point_skip = e.what();
      }
    }
    for (const auto& v : cfg.variants) {
      progress.show(done++, v + " " + format_params(params));
      Record r;
      r.study = study.name();
      r.variant = v;
      r.kind = kind_of(v);
      r.params = params;
      auto skip = [&](const std::string& why) {
        r.status = "skipped";
        r.validation = "skipped";
        r.note = why;
      };
      if (fatal) {
        skip("not run: an earlier CUDA error stopped the run");
        records.push_back(r);
        continue;
      }
      if (!point) {
        skip(point_skip);
        records.push_back(r);
        continue;
      }
      bool on_gpu = r.kind != VariantKind::Cpu;
      if (on_gpu && !gpu.present) {
        skip("no GPU");
        records.push_back(r);
        continue;
      }
      try {
        point->prepare(v);
        auto once = [&]() -> double {
          if (on_gpu) {
            if (cfg.cold) timer->flush_l2();
            timer->start();
            point->run(v, timer->stream());
            return timer->stop_ms();
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
          r.validation = val.status == Validation::Status::Pass ? "pass" : val.status == Validation::Status::Fail ? "fail" : "skipped";
          r.note = val.detail;
          if (val.status == Validation::Status::Fail) {
            r.status = "failed";
            any_failed = true;
            std::cerr << prog << ": VALIDATION FAILED: " << v << " at " << format_params(params) << ": " << val.detail << '\n';
          }
        } else {
          r.note = "validation off";
        }
        r.metrics = point->metrics(v);
      } catch (const Unsupported& e) {
        skip(std::string("unsupported: ") + e.what());
        r.time.reset();
      } catch (const std::exception& e) {
        r.time.reset();
        if (is_oom(e)) {
          skip(std::string("out of memory: ") + e.what());
        } else {
          r.status = "failed";
          r.validation = "skipped";
          r.note = e.what();
          any_failed = true;
          std::cerr << prog << ": ERROR: " << v << " at " << format_params(params) << ": " << e.what() << '\n';
          if (is_fatal(e)) fatal = true, fatal_msg = e.what();
        }
      }
      // Whatever happened, the variant's buffers go before the next one needs the memory.
      try {
        point->release(v);
      } catch (...) {
      }
      records.push_back(r);
    }
  }
  progress.done();

  json meta;
  meta["study"] = study.name();
  meta["config"] = cfg.as_run;
  meta["seed"] = cfg.seed;
  meta["variants"] = cfg.variants;
  meta["repetitions"] = {{"warmup", cfg.reps.warmup}, {"min", cfg.reps.min},         {"max", cfg.reps.max},
                         {"budget_ms", cfg.reps.budget_ms}, {"target_rsd", cfg.reps.target_rsd}};
  meta["cache"] = cfg.cold ? "cold" : "hot";
  meta["validate"] = cfg.validate;
  meta["git_commit"] = LP_GIT_COMMIT;
  meta["date"] = utc_now("%Y-%m-%dT%H:%M:%SZ");
  meta["gpu"] = gpu_json(gpu);
  meta["driver"] = gpu.present ? version_string(gpu.driver_version) : "";
  meta["cuda_runtime"] = gpu.present ? version_string(gpu.runtime_version) : "";
  meta["cccl"] = gpu.present ? gpu.cccl_version : "";
  meta["host"] = {{"cpu", host_cpu()}, {"cores", std::thread::hardware_concurrency()}};
  std::string cmd;
  for (int i = 0; i < argc; ++i) cmd += (i ? " " : "") + std::string(argv[i]);
  meta["command"] = cmd;
  if (fatal) meta["aborted"] = fatal_msg;

  json doc;
  doc["schema_version"] = kSchemaVersion;
  doc["meta"] = meta;
  doc["ceilings"] = gpu.present ? json{{"read_GBps", ceil.read_GBps},
                                       {"copy_GBps", ceil.copy_GBps},
                                       {"copy_kernel_GBps", ceil.copy_kernel_GBps},
                                       {"memcpy_GBps", ceil.memcpy_GBps},
                                       {"bytes", ceil.bytes}}
                                : json(nullptr);
  json recs = json::array();
  for (const auto& r : records) recs.push_back(record_to_json(r));
  doc["records"] = recs;

  print_summary(records, std::cout);
  if (gpu.present)
    std::cout << fmt::format("ceilings on {}: read {:.0f} GB/s; copy {:.0f} GB/s (read+write; kernel {:.0f}, cudaMemcpy {:.0f})\n",
                             gpu.name, ceil.read_GBps, ceil.copy_GBps, ceil.copy_kernel_GBps, ceil.memcpy_GBps);
  try {
    write_atomically(json_path, doc.dump(1) + "\n");
    write_atomically(csv_path, records_to_csv(records));
    std::cout << "results: " << json_path << " and " << csv_path << '\n';
  } catch (const std::exception& e) {
    std::cerr << prog << ": " << e.what() << '\n';
    return 1;
  }
  if (fatal) std::cerr << prog << ": run stopped after a CUDA error: " << fatal_msg << '\n';
  return any_failed || fatal ? 1 : 0;
}

}  // namespace harness
