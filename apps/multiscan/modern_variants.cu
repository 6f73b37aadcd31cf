// Beyond the thesis: the single-pass look-back multiscan for small and medium m, and `auto`, which
// decides from m and the labels among it and the thesis's sort-based variants.
#include "apps/harness/auto_record.cuh"
#include "kernels/multiscan/auto_rule.hpp"
#include "kernels/multiscan/cub_sort_scan.cuh"
#include "kernels/multiscan/partitioned.cuh"
#include "kernels/multiscan/perthread_scan.cuh"
#include "kernels/multiscan/reduce_then_scan.cuh"
#include "kernels/multiscan/register_scan.cuh"
#include "kernels/multiscan/relabel.cuh"
#include "kernels/multiscan/scan_by_key.cuh"
#include "kernels/multiscan/single_pass.cuh"
#include "kernels/multiscan/sort_shared.cuh"
#include "kernels/multiscan/sort_global.cuh"
#include "variant.hpp"

namespace lp::multiscan_study {

namespace ms = lp::multiscan;

namespace {

namespace ar = ms::auto_rule;
using ar::Plan;

// What the host knows of this point for auto's decision table (auto_rule.hpp).
template <class Op>
ar::Sizes sizes_of(const Ctx<Op>& c) {
  using T = typename Op::value_type;
  ar::Sizes s;
  s.n = c.n;
  s.m = c.m;
  s.value_bytes = sizeof(T);
  s.sort_shared_bytes = double(ms::sort_shared_partials_bytes<Op>(c.n, c.m, c.tune));
  s.register_scan = ms::register_scan_unsupported(c.n, c.m, sizeof(T)).empty();
  s.perthread_scan = ms::perthread_scan_unsupported(c.n, c.m, sizeof(T), c.tune).empty();
  s.reduce_then_scan = ms::reduce_then_scan_unsupported(c.n, c.m, sizeof(T)).empty();
  s.single_pass = ms::single_pass_unsupported(c.n, c.m, sizeof(T), c.tune).empty();
  s.partitioned = ms::partitioned_unsupported(c.n, c.m, sizeof(T), c.tune).empty();
  s.sort_shared = ms::sort_shared_unsupported<Op>(c.n, c.m, c.tune).empty();
  s.sort_global = ms::sort_global_unsupported(c.n).empty();
  s.relabel = ms::relabel_unsupported(c.n, c.m, sizeof(T)).empty();
  s.cub = s.sort_global;  // the same int counts
  return s;
}

template <class Op>
std::size_t plan_scratch(Plan r, const Ctx<Op>& c) {
  using T = typename Op::value_type;
  switch (r) {
    case Plan::RegisterScan: return ms::register_scan_scratch_bytes<T>(c.n, c.m);
    case Plan::PerthreadScan: return ms::perthread_scan_scratch_bytes<T>(c.n, c.m);
    case Plan::ReduceThenScan: return ms::reduce_then_scan_scratch_bytes<T>(c.n, c.m);
    case Plan::SinglePass: return ms::single_pass_scratch_bytes<T>(c.n, c.m, c.tune);
    case Plan::SortShared: return ms::sort_shared_scratch_bytes<Op>(c.n, c.m, c.tune);
    case Plan::Partitioned: return ms::partitioned_scratch_bytes<T>(c.n, c.m, c.tune);
    case Plan::Relabel: return std::max(ms::relabel_scratch_bytes<T>(c.n, c.m), plan_scratch(ar::by_size(sizes_of(c)), c));
    case Plan::Cub: return ms::cub_sort_scan_scratch_bytes<Op>(c.n, c.m);
    case Plan::ScanByKey: return ms::scan_by_key_scratch_bytes<Op>(c.n);
    case Plan::CheckedScanByKey: return std::max(ms::checked_scan_by_key_scratch_bytes<Op>(c.n), plan_scratch(ar::checked_fallback(sizes_of(c)), c));
    default: return ms::sort_global_scratch_bytes<Op>(c.n, c.m);
  }
}

// One plan on stream `s` with `bytes` of the scratch. Relabel and the checked scan-by-key run only
// inside auto's graph: the count or the check decides on the device, with a plan by sizes as the fallback.
template <class Op>
void run_plan(Plan r, const Ctx<Op>& c, cudaStream_t s, std::size_t bytes) {
  switch (r) {
    case Plan::RegisterScan: return ms::register_scan<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, s);
    case Plan::PerthreadScan: return ms::perthread_scan<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, s);
    case Plan::ReduceThenScan: return ms::reduce_then_scan<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, s);
    case Plan::SinglePass: return ms::single_pass<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, s);
    case Plan::SortShared: return ms::sort_shared<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, s);
    case Plan::Partitioned: return ms::partitioned<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, s);
    case Plan::Cub: return ms::cub_sort_scan<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, bytes, s);
    case Plan::ScanByKey: return ms::scan_by_key<Op>(c.labels, c.values, c.n, c.inclusive, c.out, c.scratch, bytes, s);
    case Plan::CheckedScanByKey: {
      const Plan fallback = ar::checked_fallback(sizes_of(c));
      return ms::enqueue_checked_scan_by_key<Op>(c.labels, c.values, c.n, c.inclusive, c.out, c.scratch, bytes,
                                                 [&c, fallback, bytes](cudaStream_t fs) { run_plan(fallback, c, fs, bytes); }, s);
    }
    case Plan::Relabel: {
      const Plan fallback = ar::by_size(sizes_of(c));
      return ms::enqueue_relabel_scan<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch,
                                          [&c, fallback, bytes](cudaStream_t fs) { run_plan(fallback, c, fs, bytes); }, s);
    }
    default: return ms::sort_global<Op>(c.labels, c.values, c.n, c.m, c.inclusive, false, c.out, c.scratch, bytes, s);
  }
}

// auto: the plan by sizes where they settle it; else the profile pass decides on the device and runs
// the plan inside one graph (kernels/common/auto_launch.cuh).
template <class Op>
void run_auto(Ctx<Op>& c) {
  const std::string tag = std::string("multiscan/auto/") + Op::name + "/" + multireduce::TypeName<typename Op::value_type>::value;
  profile::run_auto(ar::Rule{sizes_of(c)}, plan_key(tag.c_str(), c.labels, c.values, c.out, c.inclusive, c.tune),
                    profile::Columns<std::uint32_t>{c.labels, c.n, c.m}, c.scratch, c.scratch_bytes,
                    [&c](Plan p, cudaStream_t s, std::size_t bytes) { run_plan(p, c, s, bytes); }, c.stream);
}

}  // namespace

template <class Op>
harness::Params auto_metrics(const Ctx<Op>& c) {
  return harness::auto_record(ar::Rule{sizes_of(c)}, profile::Columns<std::uint32_t>{c.labels, c.n, c.m}, c.scratch, c.scratch_bytes);
}

template <class Op>
void add_modern_variants(Defs<Op>& d) {
  using harness::VariantKind;
  using T = typename Op::value_type;
  d.add({"auto", VariantKind::Ours,
         "ours: labels an input profile on the device finds sorted to checked_scan_by_key (behind its check CUB's sort + scan-by-key beyond 2048 labels, the plan by sizes up to it) beyond "
         "2048 labels from 2^22 inputs, up to 2048 from 2^25 inputs (from 2^24 at 1024 labels and more) with 8-byte values from 2 labels and "
         "4-byte values from 256, and with 4-byte values from 4 labels where labels one to a warp are looked for; else "
         "reduce_then_scan with 4-byte values from m = 4 over 2^21 inputs or more, with 8-byte values from m = 2 over 2^20 inputs or more "
         "up to m = 8 (up to 16 below 2^25 inputs); "
         "perthread_scan from m = 3 (4-byte values; from m = 2 over 2^20 inputs or more) and at every m it takes with 8-byte values "
         "below 2^21 inputs (one label: below 2^20), from 2^25 inputs and m = 4 an input profile on the device sending labels one to a warp to single_pass "
         "(where perthread_scan or reduce_then_scan would run); "
         "register_scan at m = 1 and 2 otherwise (8-byte values: CUB's scan-by-key at m = 1 from 2^20 inputs, single_pass from 2^21 beyond "
         "perthread_scan's region), single_pass up to 2048, "
         "CUB's sort + scan-by-key over 2^18 inputs or more "
         "where m >= 2^17 and n < 16 m (and where m > 2048 over up to 4608 inputs, from 2561 with 4-byte values, and 8-byte values "
         "beyond 640 K labels), sort_shared over 4096 to 65536 "
         "inputs where m > 2048 while its blocks' bucket sets stay within 3 MB, partitioned beyond 2048 (where it runs); where it "
         "does not, sort_shared up to 2^16, sort_global beyond, and where m exceeds n / 4; from m = 2049 over 2^22 inputs or more an "
         "input profile on the device sends labels with few present to relabel (also where m exceeds n / 4; its count then sizes "
         "single_pass on the device), "
         "labels in runs from 2^17 labels to CUB's sort + scan-by-key, other labels in runs to relabel, and where partitioned does not run, "
         "spread labels up to 4096 to single_pass and hot labels up to 2^18 to sort_shared, inside one CUDA graph (auto_rule.hpp)",
         {Output::Results, false},
         [](const auto& c) { return ar::by_size(sizes_of(c)) == Plan::SortGlobal ? ms::sort_global_unsupported(c.n) : std::string(); },
         [](const auto& c) { return profile::auto_scratch_bytes(sizes_of(c), [&c](Plan p) { return plan_scratch(p, c); }); },
         [](Ctx<Op>& c) { run_auto<Op>(c); }});
  d.add({"checked_scan_by_key", VariantKind::Ours,
         "ours (labels that arrive sorted): one pass proves the labels non-decreasing (a 4-byte read an input), then on the device "
         "CUB's scan-by-key over the labels as they come (one run a label, no sort), or where a label falls, CUB's sort + scan-by-key",
         {Output::Results, false}, [](const auto& c) { return ms::sort_global_unsupported(c.n); },
         [](const auto& c) { return std::max(ms::checked_scan_by_key_scratch_bytes<Op>(c.n), ms::cub_sort_scan_scratch_bytes<Op>(c.n, c.m)); },
         [](Ctx<Op>& c) { ms::checked_scan_by_key<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.scratch_bytes, c.stream); }});
  d.add({"partitioned", VariantKind::Ours,
         "ours (large m): one stable partition pass by the top <= 8 label bits (per-tile digit counts, a scan, runs written through "
         "shared memory), single_pass over the partitions at once with the low bits as labels (a partition starts its own tiles), "
         "then every result gathered back to its input",
         {Output::Results, false},
         [](const auto& c) { return ms::partitioned_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) { return ms::partitioned_scratch_bytes<T>(c.n, c.m, c.tune); },
         [](Ctx<Op>& c) { ms::partitioned<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, c.stream); }});
  d.add({"perthread_scan", VariantKind::Ours,
         "ours (m <= 64, 8-byte values 32): each thread multiscans 16 (8-byte values: 8) consecutive inputs into its own column of "
         "bucket sums in shared memory (one read and write an input, whatever m), the block scans the m rows of columns, tiles of "
         "256 threads exchange m-vectors through single_pass's look-back",
         {Output::Results, false},
         [](const auto& c) { return ms::perthread_scan_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) { return ms::perthread_scan_scratch_bytes<T>(c.n, c.m); },
         [](Ctx<Op>& c) { ms::perthread_scan<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, c.stream); }});
  d.add({"reduce_then_scan", VariantKind::Ours,
         "ours (m <= 64, 8-byte values 32): Alg 5.2 in reduce-then-scan order on perthread_scan's tiles: each tile's bucket sums "
         "(a column a thread in shared memory), a scan of each bucket's sums over the tiles, then each tile multiscanned again from "
         "its scanned sums (labels and values read twice, no look-back)",
         {Output::Results, false},
         [](const auto& c) { return ms::reduce_then_scan_unsupported(c.n, c.m, sizeof(T)); },
         [](const auto& c) { return ms::reduce_then_scan_scratch_bytes<T>(c.n, c.m); },
         [](Ctx<Op>& c) { ms::reduce_then_scan<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.stream); }});
  d.add({"register_scan", VariantKind::Ours,
         "ours (m <= 16): each thread multiscans 16 (8-byte values: 8) consecutive inputs with its bucket sums in registers, "
         "the block scans the m-vectors with shuffles, tiles of 256 threads exchange them through single_pass's look-back",
         {Output::Results, false},
         [](const auto& c) { return ms::register_scan_unsupported(c.n, c.m, sizeof(T)); },
         [](const auto& c) { return ms::register_scan_scratch_bytes<T>(c.n, c.m); },
         [](Ctx<Op>& c) { ms::register_scan<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.stream); }});
  d.add({"relabel", VariantKind::Ours,
         "ours: the labels present are marked (one 4-byte read per input) and numbered densely by a scan of m flags; with at most "
         "1024 present, register_scan (one present) or single_pass over them reading each label through the map, else sort_global on the labels as given",
         {Output::Results, false},
         [](const auto& c) {
           const std::string why = ms::relabel_unsupported(c.n, c.m, sizeof(T));
           return why.empty() ? ms::sort_global_unsupported(c.n) : why;
         },
         [](const auto& c) { return std::max(ms::relabel_scratch_bytes<T>(c.n, c.m), ms::sort_global_scratch_bytes<Op>(c.n, c.m)); },
         [](Ctx<Op>& c) { ms::relabel_scan<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.scratch_bytes, c.stream); }});
  d.add({"single_pass", VariantKind::Ours,
         "ours: tiles of threads x n_items scan locally (per-warp bucket sets in shared memory, equal labels of a step in lane order) "
         "and exchange m-vectors of bucket aggregates / inclusive prefixes through a decoupled look-back; one pass over the data",
         {Output::Results, false},
         [](const auto& c) { return ms::single_pass_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) { return ms::single_pass_scratch_bytes<T>(c.n, c.m, c.tune); },
         [](Ctx<Op>& c) { ms::single_pass<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, c.stream); }});
}

#define LP_X(Op) \
  template void add_modern_variants<Op>(Defs<Op>&); \
  template harness::Params auto_metrics<Op>(const Ctx<Op>&);
LP_MULTISCAN_FOR_EACH_OP(LP_X)

}  // namespace lp::multiscan_study
