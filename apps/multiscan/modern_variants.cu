// Beyond the thesis: the single-pass look-back multiscan for small and medium m, and `auto`, which
// picks by m among it and the thesis's sort-based variants.
#include "kernels/multireduce/label_look.cuh"
#include "kernels/multiscan/partitioned.cuh"
#include "kernels/multiscan/register_scan.cuh"
#include "kernels/multiscan/relabel.cuh"
#include "kernels/multiscan/single_pass.cuh"
#include "kernels/multiscan/sort_shared.cuh"
#include "kernels/multiscan/sort_global.cuh"
#include "variant.hpp"

namespace lp::multiscan_study {

namespace ms = lp::multiscan;

namespace {

// auto's regimes, from the H100 targets run (results/h100/multiscan_targets.json, n = 2^26):
// single_pass up to m = 1024 (0.55-1.12 ms; sort_shared 1.5-2.7); where partitioned (below) does not
// run, sort_shared from 2048 to 2^16
// (m = 4096: 1.56-3.30 ms against single_pass's 2.9-3.1, whose m-vectors per tile grow with m;
// 2^16: 2.3-7.4 against sort_global's 2.1-7.1, better on zipf by 1.7x); sort_global beyond, where
// sort_shared's per-block bucket sets outgrow it (2^18: 4.3-11.3 against 2.7-7.8).
// register_scan (issue 15) only at m = 1: measured on the H100 (results/h100/issue15/, n = 2^26
// int32) at 0.435-0.447 ms against single_pass's 0.470-0.473 there, but 0.62-0.63 against 0.46-0.55
// at m = 4 and 1.8 against 0.54-0.67 at m = 16 (four times the tiles, each folding m-vectors).
constexpr std::uint32_t kRegisterScanMaxM = 1;
// partitioned (issue 15) above m = 2048 wherever it runs (to 2^20 at n = 2^26: its partitions' scan
// needs m' <= 4096), and single_pass up to 2048 on every distribution:
// measured (results/h100/issue15/session7/, n = 2^26 int32, H200) at m = 4096 partitioned 2.1-2.2
// ms against single_pass's 2.9-3.0 and sort_shared's 2.2-2.9, and 1.4-3.0x faster than the sorts
// from 2^14 to 2^20; at m = 2048 single_pass 1.46-1.53 against partitioned's 2.1-2.2 and
// sort_shared's 2.1-2.6 (zipf too, which the look had sent to sort_shared).
constexpr std::uint32_t kPartitionedAboveM = 2048;
enum class Regime { RegisterScan, SinglePass, SortShared, SortGlobal, Partitioned };

template <class Op>
Regime regime(std::int64_t n, std::uint32_t m, const Tuning& t) {
  using T = typename Op::value_type;
  if (m <= kRegisterScanMaxM && ms::register_scan_unsupported(n, m, sizeof(T)).empty()) return Regime::RegisterScan;
  if (m <= kPartitionedAboveM && ms::single_pass_unsupported(n, m, sizeof(T), t).empty()) return Regime::SinglePass;
  if (m > kPartitionedAboveM && ms::partitioned_unsupported(n, m, sizeof(T), t).empty()) return Regime::Partitioned;
  if (m <= (1u << 16) && ms::sort_shared_unsupported<Op>(n, m, t).empty()) return Regime::SortShared;
  return Regime::SortGlobal;
}

template <class Op>
std::size_t regime_scratch(Regime r, std::int64_t n, std::uint32_t m, const Tuning& t) {
  switch (r) {
    case Regime::RegisterScan: return ms::register_scan_scratch_bytes<typename Op::value_type>(n, m);
    case Regime::SinglePass: return ms::single_pass_scratch_bytes<typename Op::value_type>(n, m, t);
    case Regime::SortShared: return ms::sort_shared_scratch_bytes<Op>(n, m, t);
    case Regime::Partitioned: return ms::partitioned_scratch_bytes<typename Op::value_type>(n, m, t);
    default: return ms::sort_global_scratch_bytes<Op>(n, m);
  }
}

template <class Op>
void run_regime(Regime r, Ctx<Op>& c) {
  switch (r) {
    case Regime::RegisterScan: return ms::register_scan<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.stream);
    case Regime::SinglePass: return ms::single_pass<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, c.stream);
    case Regime::SortShared: return ms::sort_shared<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, c.stream);
    case Regime::Partitioned: return ms::partitioned<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, c.stream);
    default: return ms::sort_global<Op>(c.labels, c.values, c.n, c.m, c.inclusive, false, c.out, c.scratch, c.scratch_bytes, c.stream);
  }
}

// From m = 256 up, where single_pass's m-vectors cost most and the sorts pay for every label bit,
// `auto` first looks at the labels (label_look.cuh, a few microseconds): where most sampled warps
// hold one label (runs: degenerate or sorted labels) it counts the labels present and relabels
// them densely when at most 1024 occur (relabel.cuh). From 256 since the H100 default run at
// ba3c2b4: degenerate m = 256, single_pass 0.55-0.57 ms against relabel's 0.52 (the look costs
// 1-2% of single_pass's 0.80-0.88 ms on uniform and zipf labels there).
constexpr std::uint32_t kLookFromM = 256;

// Labels that do not repeat (uniform: the look's duplicates at the birthday bound) keep
// single_pass past 1024 up to 4096, where the sorts' per-block bucket sets pay only on skew: H100
// at ba3c2b4 and f6ddbf2, uniform m = 4096 single_pass 3.04-3.05 ms against sort_shared's
// 3.18-3.26; zipf 2.98 against 2.43.
constexpr std::uint32_t kSinglePassNoRepeatsMaxM = 4096;

template <class Op>
bool auto_may_single_pass_on_spread(std::int64_t n, std::uint32_t m, const Tuning& t) {
  return m <= kSinglePassNoRepeatsMaxM && regime<Op>(n, m, t) == Regime::SortShared &&
         ms::single_pass_unsupported(n, m, sizeof(typename Op::value_type), t).empty();
}

template <class Op>
bool auto_may_relabel(std::int64_t n, std::uint32_t m) {
  return m >= kLookFromM && ms::relabel_unsupported(n, m, sizeof(typename Op::value_type)).empty();
}

// (Both rules below apply only where partitioned does not: from 2048 it takes their regimes.)
// Past 2^16, where auto takes sort_global, labels that repeat (zipf's hot labels: the look's
// duplicates) still favour sort_shared's per-block bucket sets up to 2^18: measured on the H100
// (results/h100/multiscan_targets.json, n = 2^26 int32) zipf m = 2^18 6.32 ms against sort_global's
// 7.13, while uniform labels there take 11.3 against 7.73 and zipf at 2^20 14.5 against 7.2.
constexpr std::uint32_t kRepeatsSortSharedMaxM = 1u << 18;

template <class Op>
bool auto_may_sort_shared_on_repeats(std::int64_t n, std::uint32_t m, const Tuning& t) {
  return m >= kLookFromM && m <= kRepeatsSortSharedMaxM && regime<Op>(n, m, t) == Regime::SortGlobal &&
         ms::sort_shared_unsupported<Op>(n, m, t).empty();
}

}  // namespace

template <class Op>
void add_modern_variants(Defs<Op>& d) {
  using harness::VariantKind;
  using T = typename Op::value_type;
  d.add({"auto", VariantKind::Ours,
         "ours: register_scan at m = 1, single_pass up to 2048, partitioned beyond (where it runs: m <= 2^20 at n = 2^26); where it does "
         "not, sort_shared up to 2^16, sort_global beyond; from m = 256, labels in runs (a look at 256 warps of labels) "
         "with at most 1024 present take relabel, and where partitioned does not run, up to 4096 labels that do not repeat keep single_pass "
         "and up to 2^18 labels that repeat (zipf) take sort_shared",
         {Output::Results, false},
         [](const auto& c) {
           return regime<Op>(c.n, c.m, c.tune) == Regime::SortGlobal ? ms::sort_global_unsupported(c.n) : std::string();
         },
         [](const auto& c) {
           std::size_t bytes = regime_scratch<Op>(regime<Op>(c.n, c.m, c.tune), c.n, c.m, c.tune);
           if (auto_may_relabel<Op>(c.n, c.m)) bytes = std::max(bytes, ms::relabel_scratch_bytes<T>(c.n, c.m));
           if (auto_may_sort_shared_on_repeats<Op>(c.n, c.m, c.tune)) bytes = std::max(bytes, ms::sort_shared_scratch_bytes<Op>(c.n, c.m, c.tune));
           if (auto_may_single_pass_on_spread<Op>(c.n, c.m, c.tune)) bytes = std::max(bytes, ms::single_pass_scratch_bytes<T>(c.n, c.m, c.tune));
           return bytes;
         },
         [](Ctx<Op>& c) {
           Regime r = regime<Op>(c.n, c.m, c.tune);
           const bool relabel = auto_may_relabel<Op>(c.n, c.m), repeats = auto_may_sort_shared_on_repeats<Op>(c.n, c.m, c.tune);
           const bool spread = auto_may_single_pass_on_spread<Op>(c.n, c.m, c.tune);
           if (relabel || repeats || spread) {
             const multireduce::LabelLook look = multireduce::look_at_labels(c.labels, c.n, c.stream);
             if (relabel && look.all_equal >= 0.5 &&
                 ms::relabel_single_pass<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.stream))
               return;
             if (repeats && look.repeats(c.m)) r = Regime::SortShared;
             if (spread && !look.repeats(c.m)) r = Regime::SinglePass;
           }
           run_regime<Op>(r, c);
         }});
  d.add({"partitioned", VariantKind::Ours,
         "ours (large m): one stable partition pass by the top <= 8 label bits (per-tile digit counts, a scan, runs written through "
         "shared memory), single_pass over the partitions at once with the low bits as labels (a partition starts its own tiles), "
         "then every result gathered back to its input",
         {Output::Results, false},
         [](const auto& c) { return ms::partitioned_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) { return ms::partitioned_scratch_bytes<T>(c.n, c.m, c.tune); },
         [](Ctx<Op>& c) { ms::partitioned<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, c.stream); }});
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
         [](Ctx<Op>& c) {
           if (!ms::relabel_single_pass<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.stream))
             ms::sort_global<Op>(c.labels, c.values, c.n, c.m, c.inclusive, false, c.out, c.scratch, c.scratch_bytes, c.stream);
         }});
  d.add({"single_pass", VariantKind::Ours,
         "ours: tiles of threads x n_items scan locally (per-warp bucket sets in shared memory, equal labels of a step in lane order) "
         "and exchange m-vectors of bucket aggregates / inclusive prefixes through a decoupled look-back; one pass over the data",
         {Output::Results, false},
         [](const auto& c) { return ms::single_pass_unsupported(c.n, c.m, sizeof(T), c.tune); },
         [](const auto& c) { return ms::single_pass_scratch_bytes<T>(c.n, c.m, c.tune); },
         [](Ctx<Op>& c) { ms::single_pass<Op>(c.labels, c.values, c.n, c.m, c.inclusive, c.out, c.scratch, c.tune, c.stream); }});
}

#define LP_X(Op) template void add_modern_variants<Op>(Defs<Op>&);
LP_MULTISCAN_FOR_EACH_OP(LP_X)

}  // namespace lp::multiscan_study
