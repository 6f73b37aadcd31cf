#include "variant.hpp"

namespace lp::multireduce_study {

template <class Op>
void add_sequential_variants(Defs<Op>&) {}

#define LP_X(Op) template void add_sequential_variants<Op>(Defs<Op>&);
LP_MULTIREDUCE_FOR_EACH_OP(LP_X)

}  // namespace lp::multireduce_study
