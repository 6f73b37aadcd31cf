// Alg 2.3's step (thesis 1.2: exclusive and inclusive multiscan), shared by the CPU baselines and
// every kernel: the bucket's value before (exclusive) or after (inclusive) the input joins it.
#pragma once
#include "../common/hd.hpp"

namespace lp::multiscan {

template <class Op>
LP_HD typename Op::value_type scan_step(typename Op::value_type& bucket, const typename Op::value_type& v, bool inclusive) {
  const typename Op::value_type before = bucket;
  bucket = Op::apply(before, v);
  return inclusive ? bucket : before;
}

}  // namespace lp::multiscan
