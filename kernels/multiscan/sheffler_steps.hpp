// Thesis 5.4 (Listing 5.1): the per-node steps of Sheffler's multiscan, plain C++ shared by the
// kernels (one thread per node of a row or column, a barrier between steps) and the CPU tests
// (which run the same steps thread by thread), so the published form's flaw shows on the CPU too.
//
// A segment of side^2 inputs is a square of nodes: node i sits in row i / side (row 0 at the
// bottom holds the earliest inputs) and column i % side. Spinerecs are numbered nodes first
// (0 .. side^2 - 1), then the m buckets; "spine" is a spinerec number instead of a pointer.
#pragma once
#include <cstdint>

#include "../common/hd.hpp"
#include "step.hpp"

namespace lp::multiscan {

template <class T>
struct SpineRecs {
  T* rowsum;
  T* spinesum;
  std::uint32_t* spine;
  std::uint8_t* has_child;  // corrected form: some node of the row below points here
  std::uint32_t nodes;      // side^2: bucket b is spinerec nodes + b
};

// Published = false is the corrected form: a spine element passes its spinesum up when it has
// children, whatever its rowsum is. Published = true keeps Sheffler's test `rowsum != e`, which
// also stops a spine element whose children all carry the identity (the flaw the thesis found).
template <class Op, bool Published>
struct ShefflerSteps {
  using T = typename Op::value_type;

  // Initialisation, buckets: each points to itself, sums at the identity (every bucket, not only
  // those with inputs: the segment's partials are read from all m buckets at the end).
  static LP_HD void reset_bucket(const SpineRecs<T>& r, std::uint32_t b) {
    const std::uint32_t k = r.nodes + b;
    r.rowsum[k] = Op::identity(), r.spinesum[k] = Op::identity(), r.spine[k] = k, r.has_child[k] = 0;
  }
  // Initialisation, nodes: sums at the identity, spine at the node's bucket.
  static LP_HD void init_node(const SpineRecs<T>& r, std::uint32_t label, std::uint32_t i) {
    r.rowsum[i] = Op::identity(), r.spinesum[i] = Op::identity(), r.spine[i] = r.nodes + label, r.has_child[i] = 0;
  }
  // Spinetree phase, rows from the top down; per row two steps with a barrier between them: every
  // node takes its bucket's current spine (the node of its label in the nearest row above, or the
  // bucket), then one node per label (an arbitrary winner, CRCW) becomes the bucket's spine.
  static LP_HD void spinetree_read(const SpineRecs<T>& r, std::uint32_t label, std::uint32_t i) { r.spine[i] = r.spine[r.nodes + label]; }
  static LP_HD void spinetree_write(const SpineRecs<T>& r, std::uint32_t label, std::uint32_t i) {
#if defined(__CUDA_ARCH__)
    atomicExch(&r.spine[r.nodes + label], i);  // one of the writes wins, as ARBITRARY CRCW allows, without a data race
#else
    r.spine[r.nodes + label] = i;
#endif
  }
  // Rowsum phase, columns left to right, every row at once: a spine element's rowsum becomes the
  // fold, in input order, of its label's values in the row below it.
  static LP_HD void rowsum(const SpineRecs<T>& r, const T& v, std::uint32_t i) {
    const std::uint32_t p = r.spine[i];
    r.rowsum[p] = Op::apply(r.rowsum[p], v);
    if (!Published) r.has_child[p] = 1;
  }
  // Spinesum phase, rows from the bottom up: a spine element hands its parent the fold of all its
  // label's values below its own row (its spinesum, then its rowsum).
  static LP_HD void spinesum(const SpineRecs<T>& r, std::uint32_t i) {
    const bool spine_element = Published ? !(r.rowsum[i] == Op::identity()) : r.has_child[i] != 0;
    if (spine_element) r.spinesum[r.spine[i]] = Op::apply(r.spinesum[i], r.rowsum[i]);
  }
  // Multisum phase, columns left to right, every row at once: each node's result is its spine's
  // running spinesum (which ends, at the buckets, as the segment's total per label).
  static LP_HD T multisum(const SpineRecs<T>& r, const T& v, std::uint32_t i, bool inclusive) {
    return scan_step<Op>(r.spinesum[r.spine[i]], v, inclusive);
  }
};

}  // namespace lp::multiscan
