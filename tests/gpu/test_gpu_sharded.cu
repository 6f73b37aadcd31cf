// The sharded variants of multireduce, histogram and sorted search on `gpus` GPUs (the
// argument, 1 or more), through the studies' own points and validation: odd n not divisible by the
// GPU count, m larger than n, a GPU whose shard is empty, every operator (NCCL's reductions where it
// has them, the ordered fold everywhere), device-resident and streamed inputs with chunks that do
// not divide the shards; sorted search's merge-path cuts and replicated haystack at extreme ratios,
// runs of equal keys across the cuts, empty needles or haystack, every key type; in two orders.
// Exit 77 (CTest: skipped) without a GPU, or with fewer GPUs than asked.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "apps/harness/multigpu.hpp"
#include "apps/histogram/histogram_study.hpp"
#include "apps/multireduce/multireduce_study.hpp"
#include "apps/sortedsearch/sortedsearch_study.hpp"
#include "check.hpp"
#include "check_variant.hpp"
#include "gpu_test.hpp"

namespace lp::multireduce_study { const char* const kDefaultConfig = "{}"; }
namespace lp::histogram_study { const char* const kDefaultConfig = "{}"; }
namespace lp::sortedsearch_study { const char* const kDefaultConfig = "{}"; }

using harness::Params;
using harness::Value;
using I = std::int64_t;

namespace {

const std::vector<std::string> kShardedSearch = {"sharded_lower", "sharded_upper", "sharded_lower_replicated"};

struct Case {
  Params p;
  std::string what;
};

std::string describe(const Params& p) {
  std::string s;
  for (const char* k : {"n", "m", "bins", "a_size", "b_size", "keys", "distribution", "input", "sample", "op", "type", "source", "chunk", "gpus"})
    if (auto it = p.find(k); it != p.end()) s += std::string(s.empty() ? "" : " ") + k + "=" + harness::to_string(it->second);
  return s;
}

// The study's default point on `gpus` GPUs with the params `set`.
Params point(const harness::Study& study, int gpus, std::initializer_list<std::pair<const char*, Value>> set) {
  Params p = default_params(study);
  for (const auto& [k, v] : set) p[k] = v;
  p["gpus"] = I(gpus);
  return p;
}
using S = std::string;

// Every case with source device and with source host (small chunks: many of them, the last short).
void add_both_sources(std::vector<Case>& cases, Params p, I chunk) {
  p["source"] = std::string("device");
  cases.push_back({p, describe(p)});
  p["source"] = std::string("host");
  p["chunk"] = chunk;
  cases.push_back({p, describe(p)});
}

std::vector<Case> multireduce_cases(const harness::Study& study, int gpus, bool quick) {
  std::vector<Case> cases;
  auto at = [&](I n, I m, const char* dist, const char* op, const char* type) {
    return point(study, gpus, {{"n", n}, {"m", m}, {"distribution", S(dist)}, {"op", S(op)}, {"type", S(type)}});
  };
  add_both_sources(cases, at(1000003, 256, "uniform", "add", "int32"), 65536);  // odd n
  add_both_sources(cases, at(1000, 4096, "zipf", "add", "int64"), 1024);        // m > n
  add_both_sources(cases, at(1, 16, "uniform", "add", "int32"), 1024);          // n < gpus: an empty shard
  add_both_sources(cases, at(gpus + 1, 3, "degenerate", "affine", "uint32x2"), 1024);
  add_both_sources(cases, at(300007, 1000, "zipf", "min", "int32"), 4096);
  add_both_sources(cases, at(300007, 1000, "uniform", "max", "int32"), 4096);
  add_both_sources(cases, at(300007, 77, "zipf", "affine", "uint32x2"), 4096);   // non-commutative: shard order matters
  add_both_sources(cases, at(300007, 5000, "uniform", "last", "int32"), 4096);
  add_both_sources(cases, at(quick ? 70001 : (1 << 20) + 7, (1 << 16) + 3, "zipf", "add", "float32"), 1 << 16);
  if (!quick) {
    add_both_sources(cases, at((1 << 22) + 3, (1 << 20) + 3, "uniform", "add", "int32"), 1 << 20);
    add_both_sources(cases, at((1 << 21) + 1, 64, "sorted", "add", "int32"), 1 << 18);
    Params ones = at(123457, 256, "uniform", "add", "int32");
    ones["values"] = std::string("ones");
    add_both_sources(cases, ones, 8192);
  }
  return cases;
}

std::vector<Case> histogram_cases(const harness::Study& study, int gpus, bool quick) {
  std::vector<Case> cases;
  auto at = [&](I n, I bins, const char* sample, const char* input) {
    return point(study, gpus, {{"n", n}, {"bins", bins}, {"sample", S(sample)}, {"input", S(input)}});
  };
  add_both_sources(cases, at(1000003, 256, "u8", "uniform"), 65536);
  add_both_sources(cases, at(1, 256, "u8", "uniform"), 1024);
  add_both_sources(cases, at(999, 4096, "u32", "zipf"), 1024);
  add_both_sources(cases, at(300007, 7, "u8", "degenerate"), 4096 + 3);
  add_both_sources(cases, at(quick ? 70001 : (1 << 21) + 5, (1 << 17) + 3, "u32", "zipf"), 1 << 16);
  if (!quick) add_both_sources(cases, at((1 << 22) + 1, 256, "u8", "zipf"), 1 << 20);
  return cases;
}

std::vector<Case> sortedsearch_cases(const harness::Study& study, int gpus, bool quick) {
  std::vector<Case> cases;
  auto add = [&](I na, I nb, const char* keys, const char* type) {
    const Params p = point(study, gpus, {{"a_size", na}, {"b_size", nb}, {"keys", S(keys)}, {"type", S(type)}});
    cases.push_back({p, describe(p)});
  };
  add(1000003, 999983, "distinct", "int32");  // odd sizes
  add(1, 1000, "distinct", "int32");          // fewer needles than GPUs: empty parts
  add(1000, 0, "distinct", "int32");          // no haystack: every bound is 0
  add(0, 1000, "distinct", "int32");          // no needles
  add(300007, 300011, "dups", "int64");       // runs of equal keys across the cuts
  add(8, 1 << 16, "dups", "int32");           // a few needles among long runs
  add(1 << 12, (1 << 22) + 1, "distinct", "int32");  // |B| / |A| = 1024: one binary search per needle
  add((1 << 20) + 1, 1 << 12, "distinct", "float");  // 1/256: the windowed search's low end
  add(200003, 3000017, "dups", "double");
  if (!quick) {
    add((1 << 22) + 3, (1 << 22) + 5, "distinct", "int32");
    add((1 << 21) + 1, (1 << 21) + 1, "dups", "int32");
    add(1 << 16, (1 << 22) + 7, "dups", "int64");
  }
  return cases;
}

// The sharded variants through every case in two orders (check_variant.hpp), each passing
// somewhere; then one run's per-phase metrics, read outside the timed region as the runner reads
// them. False when a kernel failure lost the CUDA context.
bool run_cases(const harness::Study& study, const std::vector<Case>& cases, int gpus, const std::vector<std::string>& variants) {
  std::vector<TestCase> tests;
  for (std::size_t i = 0; i < cases.size(); ++i) tests.push_back({cases[i].p, 11 + i, study.name() + " " + cases[i].what});
  if (!run_cases_in_two_orders(study, tests, variants)) return false;
  const std::string& v = variants.front();
  auto point = study.make_point(cases.front().p, 11, true);
  point->prepare(v);
  point->run(v, nullptr);
  CHECK(cudaDeviceSynchronize() == cudaSuccess);
  const Params m = point->metrics(v);
  CHECK_MSG(m.count("local_ms") && m.count("collective_ms") && m.count("interconnect"), v << ": phase metrics missing");
  CHECK_MSG(m.count("gpus") && harness::as_int(m, "gpus") == gpus, v << ": metric gpus is not " << gpus);
  point->release(v);
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  const int gpus = argc > 1 ? std::atoi(argv[1]) : 1;
  const std::string test = "test_gpu_sharded " + std::to_string(gpus);
  if (no_gpu(test)) return kSkipped;
  int have = 0;
  cudaGetDeviceCount(&have);
  if (gpus > have) {
    std::printf("%s: %d GPUs asked, this machine has %d: skipped\n", test.c_str(), gpus, have);
    return kSkipped;
  }
  const bool quick = quick_mode();
  auto mr = lp::multireduce_study::make_study();
  auto hist = lp::histogram_study::make_study();
  // NCCL itself must be there: a machine with GPUs but no NCCL is a failure here, not a skip.
  try {
    harness::nccl();
  } catch (const std::exception& e) {
    CHECK_MSG(false, e.what());
    return test_summary(test.c_str());
  }
  auto search = lp::sortedsearch_study::make_study();
  const std::vector<std::string> buckets = {"sharded_ordered", "sharded_reduce", "sharded_allreduce", "sharded_auto", "h2d_stream"};
  if (run_cases(*mr, multireduce_cases(*mr, gpus, quick), gpus, buckets) && run_cases(*hist, histogram_cases(*hist, gpus, quick), gpus, buckets))
    run_cases(*search, sortedsearch_cases(*search, gpus, quick), gpus, kShardedSearch);
  return test_summary(test.c_str());
}
