// GPU fuzz tests of the GPU studies (scatter, patched, join and primitives too): `test_gpu_fuzz <study>` draws random points
// (sizes 0 and 1 where the study allows them, odd sizes, sizes at and around the tiles, blocks,
// chunks, waves and shared-memory capacities the variants use; random m, distributions, operators,
// types and knobs) and runs every GPU variant on each, validated against the CPU reference.
// Exit 77 (CTest: skipped) without a GPU; fuzz.hpp says how to replay a case.
#include <cuda_runtime.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "apps/decimal/decimal_study.hpp"
#include "apps/histogram/histogram_study.hpp"
#include "apps/multireduce/multireduce_study.hpp"
#include "apps/multiscan/multiscan_study.hpp"
#include "apps/join/join_study.hpp"
#include "apps/patched/patched_study.hpp"
#include "apps/primitives/primitives_study.hpp"
#include "apps/scatter/scatter_study.hpp"
#include "apps/sortedsearch/sortedsearch_study.hpp"
#include "fuzz.hpp"
#include "gpu_test.hpp"

namespace lp::multireduce_study { const char* const kDefaultConfig = "{}"; }
namespace lp::multiscan_study { const char* const kDefaultConfig = "{}"; }
namespace lp::histogram_study { const char* const kDefaultConfig = "{}"; }
namespace lp::sortedsearch_study { const char* const kDefaultConfig = "{}"; }
namespace lp::scatter_study { const char* const kDefaultConfig = "{}"; }
namespace lp::patched_study { const char* const kDefaultConfig = "{}"; }
namespace lp::join_study { const char* const kDefaultConfig = "{}"; }
namespace lp::primitives_study { const char* const kDefaultConfig = "{}"; }
namespace lp::decimal_study { const char* const kDefaultConfig = "{}"; }

using harness::Params;
using harness::Value;
using I = std::int64_t;

namespace {

constexpr I kSms = 132;  // H100; other GPUs' waves fall elsewhere, which random sizes cover

// Inputs: vector widths, warp steps (64 quads), the thesis kernels' tiles (384 x 8, 256 x 8,
// 192 x 63 x 4), single_pass's 512 x 32 tile, whole-GPU waves of 1024-thread blocks.
const std::vector<I> kLabelN = {4, 32, 64, 128, 256, 1024, 2048, 3072, 4096, 8192, 16384, 1 << 15, 48384, 1 << 16, 1 << 17,
                                kSms * 1024, kSms * 2048, kSms * 4096, 1 << 20, kSms * 8192, 1 << 21, 1 << 22};
// Buckets: warp and bank widths, the thresholds of auto and of the partials' placement, what one
// block's shared memory holds of 4- and 8-byte buckets, up to where sorting takes over.
const std::vector<I> kLabelM = {1, 2, 8, 16, 32, 64, 256, 1024, 2048, 4096, 8192, 1 << 14, 28672, 29056, 56832, 58112, 1 << 16, 1 << 17,
                                1 << 18, 1 << 20};

// Every distribution of harness::labels: runs of consecutive and of equal labels, short and long
// (auto's profile sees them as ordered), zipf up to 3 (one hot label), the permutation (m = n).
const std::vector<std::string> kDistributions = {"uniform", "degenerate", "sorted", "zipf", "runs", "equal_runs", "permutation"};

void draw_labels(FuzzRng& r, Params& p, bool quick) {
  p["n"] = r.size(1, quick ? 1 << 15 : 1 << 22, kLabelN);
  const I m_max = quick ? 1 << 12 : r.chance(0.05) ? 1 << 24 : (1 << 20) + 3;
  p["m"] = r.size(1, m_max, kLabelM);
  p["distribution"] = r.pick(kDistributions);
  p["zipf_s"] = r.pick(std::vector<double>{0.6, 1.0, 1.5, 2.5, 3.0});
  p["run_length"] = r.pick(std::vector<double>{2.0, 16.0, 300.0});
  if (std::get<std::string>(p["distribution"]) == "permutation") p["m"] = p["n"];
}

// One knob of the values the GPU tests exercise, on about one case in six.
void draw_knob(FuzzRng& r, Params& p, const std::vector<std::pair<std::string, std::vector<Value>>>& knobs) {
  if (!r.chance(1.0 / 6)) return;
  const auto [name, values] = r.pick(knobs);
  p[name] = r.pick(values);
}

// The multi-GPU axes on about one case in four each: two GPUs (refused where the machine has one),
// inputs streamed from host memory in chunks that rarely divide the shards.
void draw_sharding(FuzzRng& r, Params& p) {
  if (r.chance(0.25)) p["gpus"] = I(2);
  if (r.chance(0.25)) {
    p["source"] = std::string("host");
    p["chunk"] = r.pick(std::vector<Value>{I(1024), I(4099), I(1 << 16), I(1 << 20)});
  }
}

void draw_multireduce(FuzzRng& r, Params& p, bool quick) {
  draw_labels(r, p, quick);
  const auto [op, type] = r.pick(std::vector<std::pair<std::string, std::string>>{
      {"add", "int32"}, {"add", "int32"}, {"add", "int64"}, {"add", "float32"}, {"min", "int32"}, {"max", "int32"}, {"affine", "uint32x2"}, {"last", "int32"}});
  p["op"] = op;
  p["type"] = type;
  if (op == "add" && r.chance(0.15)) p["values"] = std::string("ones");
  draw_knob(r, p, {{"threads", {I(128), I(512)}}, {"n_items", {I(3), I(8), I(16)}}, {"blocks_per_sm", {I(1)}},
                   {"transpose", {std::string("segment"), std::string("baxter")}}, {"n_sets", {I(1), I(32)}},
                   {"sort_bits", {I(3), I(8)}}, {"cluster", {I(2)}}});
  draw_sharding(r, p);
}

void draw_multiscan(FuzzRng& r, Params& p, bool quick) {
  draw_labels(r, p, quick);
  const auto [op, type] = r.pick(std::vector<std::pair<std::string, std::string>>{
      {"add", "int32"}, {"add", "int32"}, {"add", "int64"}, {"add", "float32"}, {"min", "int32"}, {"max", "int32"}, {"affine", "uint32x2"}});
  p["op"] = op;
  p["type"] = type;
  p["mode"] = r.pick(std::vector<std::string>{"exclusive", "inclusive", "multitag"});
  if (r.chance(0.15)) p["values"] = std::string("mostly_identity");
  draw_knob(r, p, {{"side", {I(1), I(3), I(33)}}, {"threads", {I(64), I(128), I(256)}}, {"n_items", {I(8), I(16), I(32)}},
                   {"blocks_per_sm", {I(1), I(3), I(4)}}, {"partials_switch", {I(0), I(1) << 30}},
                   {"transpose", {std::string("segment"), std::string("baxter")}}});
}

void draw_histogram(FuzzRng& r, Params& p, bool quick) {
  const bool u8 = r.chance(0.6);
  p["sample"] = std::string(u8 ? "u8" : "u32");
  // Bytes: whole words and not, TRISH's round (64 x 63 x 4), Podlozhnyuk's (192 x 63 x 4), 16-byte loads.
  p["n"] = r.size(1, quick ? 1 << 16 : 1 << 22, {4, 16, 64, 256, 1024, 16128, 48384, 1 << 16, 1 << 17, kSms * 1024 * 16, 1 << 20, 1 << 22});
  p["bins"] = u8 ? r.size(1, 256, {1, 2, 63, 64, 65, 128, 255, 256})
                 : r.size(1, quick ? 1 << 12 : r.chance(0.05) ? 1 << 24 : (1 << 20) + 3, kLabelM);
  p["input"] = r.pick(std::vector<std::string>{"uniform", "degenerate", "zipf", "sorted", "runs", "equal_runs"});
  p["zipf_s"] = r.pick(std::vector<double>{0.6, 1.0, 1.5, 2.5, 3.0});
  p["run_length"] = r.pick(std::vector<double>{2.0, 16.0, 300.0});
  draw_knob(r, p, {{"factor", {I(1), I(4), I(8)}}, {"threads", {I(64), I(128), I(512)}}, {"blocks_per_sm", {I(1), I(3)}},
                   {"cluster", {I(2), I(4)}}});
  draw_sharding(r, p);
}

void draw_sortedsearch(FuzzRng& r, Params& p, bool quick) {
  // Merge-path tiles (256 x 23, 256 x 15), windowed tiles (256 x 9, 128 x 9) and windows.
  const std::vector<I> edges = {1, 32, 128, 1152, 2048, 2304, 3840, 4096, 5888, 8192, 1 << 16, kSms * 5888, 1 << 20, 1 << 22};
  const I hi = quick ? 1 << 16 : 1 << 22;
  p["a_size"] = r.size(0, hi, edges);
  p["b_size"] = r.size(0, hi, edges);
  p["type"] = r.pick(std::vector<std::string>{"int32", "int64", "float", "double"});
  p["keys"] = r.pick(std::vector<std::string>{"distinct", "dups"});
}

// Scatter/gather: the label sizes and buckets above (the wide kernels' 4-input groups,
// privatized's shared-memory limit at 56832 4-byte bids), both operations, every value type, the
// clustered runs and, with m = n, the permutation.
void draw_scatter(FuzzRng& r, Params& p, bool quick) {
  draw_labels(r, p, quick);
  p["op"] = r.pick(std::vector<std::string>{"scatter", "gather"});
  p["type"] = r.pick(std::vector<std::string>{"int32", "int64", "float32"});
  draw_knob(r, p, {{"threads", {I(64), I(512), I(1024)}}, {"blocks_per_sm", {I(1), I(3)}}, {"sort_bits", {I(1), I(5), I(12)}},
                   {"passes", {I(1), I(2), I(9)}}});
}

// Patched arrays: sizes around the 1024-element chunks and the warps' chunk groups,
// every type at any bit width, patch rates from none to every value, uniform and clustered; a
// float column (ALP or ALP-RD, its exceptions as the patches) of any generated kind now and then.
void draw_patched(FuzzRng& r, Params& p, bool quick) {
  p["n"] = r.size(1, quick ? 1 << 15 : 1 << 22, {1, 1023, 1024, 1025, 2048, 4096, 32768, 1 << 16, kSms * 8192, 1 << 20, 1 << 22});
  if (r.chance(0.25)) {
    p["type"] = r.pick(std::vector<std::string>{"f32", "f64"});
    p["column"] = r.pick(std::vector<std::string>{"prices", "coordinates", "percentages", "integers", "random_walk", "uniform", "specials"});
    draw_knob(r, p, {{"threads", {I(32), I(96), I(1024)}}, {"dense", {I(1), I(32), I(2048)}}});
    return;
  }
  const auto [type, bits] = r.pick(std::vector<std::pair<std::string, I>>{{"u8", 8}, {"u16", 16}, {"u32", 32}, {"u32", 32}, {"u64", 64}});
  p["type"] = type;
  p["bit_width"] = r.chance(0.2) ? bits : r.size(1, bits, {1, bits - 1});
  p["patch_rate"] = r.pick(std::vector<double>{0, 0.0001, 0.001, 0.01, 0.05, 0.1, 0.5, 1.0});
  p["patches"] = r.pick(std::vector<std::string>{"uniform", "clustered"});
  draw_knob(r, p, {{"threads", {I(32), I(96), I(1024)}}, {"dense", {I(1), I(32), I(2048)}}});
}

// Joins: sizes around the radix HJ's 1024-tuple partitions, its 2048-tuple S chunks and
// 2048-tuple shared tables, the CSS-tree's 32- and 16-key nodes and the nested loop's 2048-key
// tiles; every distribution and key type, any match fraction, strong skew, the partition-bits knob
// and, now and then, a band predicate (the equi-joins skip it).
void draw_join(FuzzRng& r, Params& p, bool quick) {
  const std::vector<I> edges = {1, 2, 16, 17, 32, 33, 1023, 1024, 1025, 2047, 2048, 2049, 4096, 34 * 32, 1 << 16, 1 << 20};
  const I hi = quick ? 1 << 14 : 1 << 20;
  p["r"] = r.size(1, hi, edges);
  p["s"] = r.size(1, hi, edges);
  p["key"] = r.pick(std::vector<std::string>{"int32", "int64"});
  p["distribution"] = r.pick(std::vector<std::string>{"unique", "uniform", "zipf"});
  p["zipf_s"] = r.pick(std::vector<double>{0.5, 1.0, 1.5, 3.0});
  p["match"] = r.pick(std::vector<double>{0.0, 0.01, 0.5, 1.0});
  if (r.chance(0.1)) {  // a band join: the nested loop only, so keep it small
    p["band"] = r.pick(std::vector<I>{1, 7});
    p["r"] = r.size(1, 3000, {1, 2048, 2049});
  }
  draw_knob(r, p, {{"radix_bits", {I(1), I(4), I(12)}}});
}

// The decimal group-by: rows and products over the label distributions (the hot ids of zipf, ids in
// runs), every type of the query; the auto's look from 2^17 rows.
void draw_decimal(FuzzRng& r, Params& p, bool quick) {
  p["n"] = r.size(1, quick ? 1 << 15 : 1 << 21, kLabelN);
  p["m"] = r.size(1, quick ? 1 << 12 : (1 << 20) + 3, kLabelM);
  p["distribution"] = r.pick(std::vector<std::string>{"uniform", "zipf", "degenerate", "sorted", "runs", "equal_runs"});
  p["zipf_s"] = r.pick(std::vector<double>{0.6, 1.0, 2.5, 3.0});
  p["run_length"] = r.pick(std::vector<double>{2.0, 16.0, 300.0});
  p["type"] = r.pick(std::vector<std::string>{"decimal128", "decimal64", "double"});
  if (r.chance(0.2)) p["on_overflow"] = std::string("fail");
}

// He et al.'s primitives: sizes around the split's 256-thread blocks and 4096-tuple
// chunks and the map's 16-byte vectors, every primitive, fanouts from 2 to 4096 (powers of two and
// not).
void draw_primitives(FuzzRng& r, Params& p, bool quick) {
  p["n"] = r.size(1, quick ? 1 << 15 : 1 << 21, {1, 3, 4, 255, 256, 257, 4095, 4096, 4097, 1 << 16, kSms * 8 * 4096});
  p["op"] = r.pick(std::vector<std::string>{"map", "scatter", "gather", "scan", "split", "sort"});
  p["fanout"] = r.pick(std::vector<I>{2, 3, 16, 255, 256, 2048, 4096});
}

}  // namespace

int main(int argc, char** argv) {
  const std::string study_name = argc > 1 ? argv[1] : "";
  const std::string test = "test_gpu_fuzz " + study_name;
  if (no_gpu(test)) return kSkipped;
  if (study_name == "multireduce") return run_fuzz(test, *lp::multireduce_study::make_study(), draw_multireduce, 400, 6);
  if (study_name == "multiscan") return run_fuzz(test, *lp::multiscan_study::make_study(), draw_multiscan, 300, 6);
  if (study_name == "histogram") return run_fuzz(test, *lp::histogram_study::make_study(), draw_histogram, 600, 10);
  if (study_name == "sortedsearch") return run_fuzz(test, *lp::sortedsearch_study::make_study(), draw_sortedsearch, 600, 12);
  if (study_name == "scatter") return run_fuzz(test, *lp::scatter_study::make_study(), draw_scatter, 400, 8);
  if (study_name == "patched") return run_fuzz(test, *lp::patched_study::make_study(), draw_patched, 400, 8);
  if (study_name == "join") return run_fuzz(test, *lp::join_study::make_study(), draw_join, 300, 8);
  if (study_name == "primitives") return run_fuzz(test, *lp::primitives_study::make_study(), draw_primitives, 300, 8);
  if (study_name == "decimal") return run_fuzz(test, *lp::decimal_study::make_study(), draw_decimal, 300, 8);
  std::fprintf(stderr, "usage: test_gpu_fuzz multireduce|multiscan|histogram|sortedsearch|scatter|patched|join|primitives|decimal\n");
  return 2;
}
