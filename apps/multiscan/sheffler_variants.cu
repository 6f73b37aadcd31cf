// Sheffler's multiscan (thesis 5.4, Figs 5.4 and 5.5), published and corrected, with the spinerecs
// in global or in shared memory.
#include "kernels/multiscan/sheffler.cuh"
#include "variant.hpp"

namespace lp::multiscan_study {

namespace ms = lp::multiscan;

namespace {

// The published form is wrong wherever a spine element's children all carry the identity. The
// benchmark therefore does not run it on values = mostly_identity (the record says why); on
// random values such a row needs its values to fold to the identity exactly (p ~ 2^-32 per spine
// element for integers), so its records there are validated like any other, and a failure would
// be reported, not hidden. tests/cpu/test_cpu_multiscan.cpp shows the flaw.
const char* const kFlaw =
    "Sheffler's published test 'rowsum != e' drops a spine element whose row below folds to the identity (thesis 5.4): "
    "not run on values = mostly_identity; see the _corrected variant";

template <class Op, bool Published, bool Shared>
Def<Op> sheffler_def(const char* name, const char* description) {
  using T = typename Op::value_type;
  return {name, harness::VariantKind::Ours, description, {Output::Results, false, Published ? kFlaw : ""},
          [](const auto& c) { return ms::sheffler_unsupported<T>(c.n, c.m, c.tune, Shared); },
          [](const auto& c) { return ms::sheffler_scratch_bytes<T>(c.n, c.m, c.tune, Shared); },
          [](Ctx<Op>& c) { ms::sheffler<Op, Published>(c.labels, c.values, c.n, c.m, c.inclusive, Shared, c.out, c.scratch, c.tune, c.stream); }};
}

}  // namespace

template <class Op>
void add_sheffler_variants(Defs<Op>& d) {
  d.add(sheffler_def<Op, true, false>(
      "sheffler_global", "thesis 5.4.2 (Fig 5.4), as published: spinetree, rowsum, spinesum, multisum per segment of side^2 inputs "
                         "(side threads, default 16), spinerecs in global memory, inside Alg 5.2"));
  d.add(sheffler_def<Op, false, false>(
      "sheffler_global_corrected", "sheffler_global with the spinesum test corrected (a spine element is one with children, whatever its rowsum)"));
  d.add(sheffler_def<Op, true, true>(
      "sheffler_shared", "thesis 5.4.3 (Fig 5.5), as published: spinerecs in shared memory (side default 32), inside Alg 5.2"));
  d.add(sheffler_def<Op, false, true>("sheffler_shared_corrected", "sheffler_shared with the spinesum test corrected"));
}

#define LP_X(Op) template void add_sheffler_variants<Op>(Defs<Op>&);
LP_MULTISCAN_FOR_EACH_OP(LP_X)

}  // namespace lp::multiscan_study
