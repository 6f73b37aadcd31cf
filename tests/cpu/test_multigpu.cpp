// The host side of the multi-GPU harness, on any machine: the shards of n inputs, the
// link read from `nvidia-smi topo -m`, the scaling metrics added to records, and a missing NCCL
// reported as a reason (a skipped variant), not a crash.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "apps/harness/multigpu.hpp"
#include "apps/harness/results.hpp"
#include "apps/harness/study.hpp"
#include "check.hpp"

namespace {

void shards() {
  harness::Rng rng(5);
  for (int t = 0; t < 2000; ++t) {
    const std::int64_t n = t < 50 ? t : std::int64_t(rng.below(std::uint64_t(1) << (t % 34)));
    const int shards = 1 + int(rng.below(9));
    std::int64_t at = 0, lo = n, hi = 0;
    for (int k = 0; k < shards; ++k) {
      const harness::Range r = harness::shard_range(n, shards, k);
      CHECK_MSG(r.begin == at && r.end >= r.begin, "n=" << n << " shards=" << shards << " k=" << k);
      at = r.end;
      lo = std::min(lo, r.size());
      hi = std::max(hi, r.size());
    }
    CHECK_MSG(at == n, "shards of n=" << n << " end at " << at);
    CHECK_MSG(hi - lo <= 1, "n=" << n << " shards=" << shards << ": sizes " << lo << ".." << hi);
  }
  // One input over two GPUs: the second shard is empty.
  CHECK(harness::shard_range(1, 2, 0).size() == 1 && harness::shard_range(1, 2, 1).size() == 0);
}

void topology() {
  // The shape of `nvidia-smi topo -m` (tab-separated; legend after a blank line).
  const std::string two =
      "\tGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\n"
      "GPU0\t X \tNV18\t0-31\t0\t\tN/A\n"
      "GPU1\tNV18\t X \t0-31\t0\t\tN/A\n"
      "\n"
      "Legend:\n\n  X    = Self\n  SYS  = Connection traversing PCIe\n  NV#  = Connection traversing a bonded set of # NVLinks\n";
  CHECK(harness::topo_cell(two, 0, 1) == "NV18");
  // As the lent machine's nvidia-smi writes it into a file: the titles underlined with escapes.
  const std::string escaped = "\t\x1b[4mGPU0\tGPU1\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\nGPU0\t X \tNV18\t0-31\t0\t\tN/A\n";
  CHECK(harness::topo_cell(escaped, 0, 1) == "NV18");
  CHECK(harness::topo_cell(two, 1, 0) == "NV18");
  CHECK(harness::topo_cell(two, 0, 0) == "X");
  CHECK(harness::topo_cell(two, 0, 2) == "");
  CHECK(harness::topo_cell("", 0, 1) == "");
  CHECK(harness::topo_cell("No devices were found\n", 0, 1) == "");
  const std::string pcie = "\tGPU0\tGPU1\tGPU2\tCPU Affinity\nGPU0\t X \tPHB\tSYS\t0-15\nGPU1\tPHB\t X \tSYS\t0-15\n";
  CHECK(harness::topo_cell(pcie, 0, 2) == "SYS");
  CHECK(harness::link_kind("NV18") == "NVLink (NV18)");
  CHECK(harness::link_kind("PHB") == "PCIe (PHB)");
  CHECK(harness::link_kind("SYS") == "PCIe (SYS)");
  CHECK(harness::link_kind("X") == "");
  CHECK(harness::link_kind("") == "");
  CHECK(harness::link_kind("XYZ") == "unknown (XYZ)");
}

harness::Record timed(const std::string& variant, std::int64_t gpus, std::int64_t m, double ms) {
  harness::Record r;
  r.study = "multireduce";
  r.variant = variant;
  r.params = {{"gpus", gpus}, {"m", m}};
  r.time = harness::TimeStats::of({ms, ms, ms});
  return r;
}

void scaling() {
  std::vector<harness::Record> recs = {timed("sharded_reduce", 2, 256, 1.0), timed("sharded_reduce", 1, 256, 1.9),
                                       timed("sharded_reduce", 2, 512, 1.0), timed("sharded_ordered", 1, 512, 3.0),
                                       timed("sharded_reduce", 1, 1024, 2.0)};
  recs.push_back(recs[0]);
  recs.back().time.reset();  // a skipped record: no metrics
  harness::add_scaling(recs);
  CHECK(recs[0].metrics.count("speedup_vs_1_gpu") && std::abs(harness::as_real(recs[0].metrics, "speedup_vs_1_gpu") - 1.9) < 1e-12);
  CHECK(std::abs(harness::as_real(recs[0].metrics, "scaling_efficiency") - 0.95) < 1e-12);
  CHECK(recs[1].metrics.empty());  // the baseline itself
  CHECK(recs[2].metrics.empty());  // no one-GPU record of the same variant at m = 512
  CHECK(recs[5].metrics.empty());
}

void missing_nccl() {
  // Before anything loads NCCL in this process: a wrong path is a reason, not a crash.
  setenv("LP_NCCL_LIBRARY", "/nonexistent/libnccl.so.2", 1);
  bool refused = false;
  try {
    harness::nccl();
  } catch (const harness::Unsupported& e) {
    refused = std::string(e.what()).find("NCCL not available") != std::string::npos;
  }
  CHECK(refused);
  // And the reason is kept for the rest of the process (no second attempt with another library).
  refused = false;
  try {
    harness::nccl();
  } catch (const harness::Unsupported&) {
    refused = true;
  }
  CHECK(refused);
}

}  // namespace

int main() {
  shards();
  topology();
  scaling();
  missing_nccl();
  return test_summary("test_multigpu");
}
