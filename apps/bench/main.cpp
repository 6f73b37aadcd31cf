// `bench`: the front end. `bench list`, `bench compare`, `bench export`, `bench reproduce` (the
// thesis or every default sweep on this machine: scripts/reproduce.py), and `bench <study> ...`,
// which runs the study's own executable (bench-<study>, found beside this one) with the remaining
// arguments.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "compare.hpp"
#include "errors.hpp"
#include "nvbench_export.hpp"

namespace fs = std::filesystem;

namespace {

const char* kUsage =
    "usage: bench list\n"
    "       bench <study> [--config x.json] [--out DIR] [--variants a,b] [--device N] [--quick] [--force]\n"
    "       bench <study> --help\n"
    "       bench compare BASE.json NEW.json [--threshold 5%] [--include-cpu] [--exact PREFIX,...]\n"
    "       bench export --nvbench [--force] RESULTS.json OUT.json\n"
    "       bench reproduce thesis|all [--out DIR] [--quick] [--budget-min N] [--device N] [--plan]\n";

fs::path self_dir() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? fs::path(".") : p.parent_path();
}

std::vector<std::string> studies() {
  std::vector<std::string> out;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(self_dir(), ec)) {
    std::string n = e.path().filename().string();
    if (n.rfind("bench-", 0) == 0 && access(e.path().c_str(), X_OK) == 0) out.push_back(n.substr(6));
  }
  std::sort(out.begin(), out.end());
  return out;
}

int list() {
  auto all = studies();
  if (all.empty()) {
    std::cerr << "bench: no study executables (bench-*) beside " << self_dir() << "\n";
    return 2;
  }
  for (const auto& s : all) {
    std::string cmd = (self_dir() / ("bench-" + s)).string() + " --describe";
    FILE* f = popen(cmd.c_str(), "r");
    if (!f) continue;
    char buf[4096];
    bool first = true;
    while (fgets(buf, sizeof buf, f)) {
      std::string line(buf);
      if (!line.empty() && line.back() == '\n') line.pop_back();
      auto t1 = line.find('\t');
      if (first) {
        std::cout << line.substr(0, t1) << "  —  " << line.substr(t1 + 1) << "\n";
        first = false;
      } else {
        auto t2 = line.find('\t', t1 + 1);
        std::printf("  %-30s %-4s  %s\n", line.substr(0, t1).c_str(), line.substr(t1 + 1, t2 - t1 - 1).c_str(),
                    line.substr(t2 + 1).c_str());
      }
    }
    pclose(f);
    std::cout << "\n";
  }
  return 0;
}

int compare(int argc, char** argv) {
  std::vector<std::string> files;
  std::string threshold = "5%";
  bool gate_cpu = false;
  std::vector<std::string> exact;
  for (int i = 2; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--include-cpu")
      gate_cpu = true;
    else if (a == "--exact" && i + 1 < argc) {
      std::stringstream list(argv[++i]);
      for (std::string p; std::getline(list, p, ',');)
        if (!p.empty()) exact.push_back(p);
      if (exact.empty()) {
        std::cerr << "bench compare: --exact needs metric-name prefixes (a,b)\n";
        return 2;
      }
    }
    else if (a == "--threshold" && i + 1 < argc)
      threshold = argv[++i];
    else if (a.rfind("--threshold=", 0) == 0)
      threshold = a.substr(12);
    else if (a == "--help" || a == "-h") {
      std::cout << "usage: bench compare BASE.json NEW.json [--threshold 5%] [--include-cpu] [--exact PREFIX,...]\n"
                   "Matches records by study, variant and parameters; exit 0 = no slow-down, 1 = slow-down or a\n"
                   "record that no longer validates, 2 = error. Speed-ups never fail. CPU baselines are\n"
                   "compared but fail the gate only with --include-cpu (a shared host makes them noisy).\n"
                   "--exact PREFIX,...: a determinism gate instead: no times; the outcome and every metric whose\n"
                   "name starts with a PREFIX must be unchanged (e.g. served_per_input.,reference_checksum).\n";
      return 0;
    } else if (a.rfind("--", 0) == 0) {
      std::cerr << "bench compare: unknown option '" << a << "' (see bench compare --help)\n";
      return 2;
    } else
      files.push_back(a);
  }
  if (files.size() != 2) {
    std::cerr << "bench compare: expected BASE.json and NEW.json (see bench compare --help)\n";
    return 2;
  }
  double t;
  try {
    t = harness::parse_threshold(threshold);
  } catch (const std::exception& e) {
    std::cerr << "bench compare: " << e.what() << "\n";
    return 2;
  }
  return harness::compare_results(files[0], files[1], t, std::cout, std::cerr, gate_cpu, exact);
}

// The reproduce driver is a script of the source tree (it plots with matplotlib and writes the
// report): found beside the binaries' tree (build/bin -> scripts/) or where CMake configured it.
int reproduce(int argc, char** argv) {
  std::vector<fs::path> candidates{self_dir() / ".." / ".." / "scripts" / "reproduce.py"};
#ifdef LP_SOURCE_DIR
  candidates.push_back(fs::path(LP_SOURCE_DIR) / "scripts" / "reproduce.py");
#endif
  fs::path script;
  for (const auto& c : candidates)
    if (fs::exists(c)) {
      script = fs::canonical(c);
      break;
    }
  if (script.empty()) {
    std::cerr << "bench reproduce: scripts/reproduce.py not found beside " << self_dir() << " (run from a source tree's build)\n";
    return 2;
  }
  // Debian's python3 has matplotlib (python3-matplotlib); another Python on PATH may not. LP_PYTHON chooses.
  const char* env = std::getenv("LP_PYTHON");
  std::string python = env && *env ? env : (access("/usr/bin/python3", X_OK) == 0 ? "/usr/bin/python3" : "python3");
  std::string bin = self_dir().string();
  std::vector<std::string> args{python, script.string()};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back("--bin");
  args.push_back(bin);
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  execvp(python.c_str(), cargs.data());
  std::perror(("bench reproduce: cannot run " + python).c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << kUsage;
    return 2;
  }
  std::string cmd = argv[1];
  if (cmd == "--help" || cmd == "-h" || cmd == "help") {
    std::cout << kUsage;
    return 0;
  }
  if (cmd == "list") return list();
  if (cmd == "compare") return compare(argc, argv);
  if (cmd == "reproduce") return reproduce(argc, argv);
  if (cmd == "export") {
    // One format so far; the flag names it so that others can join without changing the command.
    // Like a run's results, an existing output is kept unless --force says otherwise.
    bool nvbench = false, force = false;
    std::vector<std::string> files;
    for (int i = 2; i < argc; ++i) {
      const std::string a = argv[i];
      if (a == "--nvbench") nvbench = true;
      else if (a == "--force") force = true;
      else files.push_back(a);
    }
    if (!nvbench || files.size() != 2) {
      std::cerr << "bench export: usage: bench export --nvbench [--force] RESULTS.json OUT.json\n";
      return 2;
    }
    if (!force && std::filesystem::exists(files[1])) {
      std::cerr << "bench export: " << files[1] << " exists (--force overwrites it)\n";
      return 2;
    }
    return harness::export_nvbench(files[0], files[1], std::cerr);
  }
  auto all = studies();
  if (std::find(all.begin(), all.end(), cmd) == all.end()) {
    std::cerr << "bench: unknown study '" << cmd << "'" << harness::did_you_mean(cmd, all) << " (see 'bench list')\n";
    return 2;
  }
  std::string exe = (self_dir() / ("bench-" + cmd)).string();
  std::vector<char*> args{const_cast<char*>(exe.c_str())};
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  execv(exe.c_str(), args.data());
  std::perror(("bench: cannot run " + exe).c_str());
  return 2;
}
