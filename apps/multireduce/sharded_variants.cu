// The multireduce over several GPUs and over inputs streamed from host memory. Each GPU
// runs the point's shard_variant (auto) on its shard; ShardedBuckets (apps/harness) combines the
// shards' buckets through NCCL. The point builds the ShardedBuckets and binds the shard variant.
#include "variant.hpp"

namespace lp::multireduce_study {

template <class Op>
void add_sharded_variants(Defs<Op>& d) {
  for (const harness::ShardedVariantSpec& s : harness::sharded_variant_specs()) {
    const harness::Combine how = s.how;
    d.add({s.name, s.kind, s.description, {false, Output::Buckets, true, how},
           [how](const Ctx<Op>& c) { return harness::sharded_unsupported<Op>(how, c.streamed); }, {},
           [](Ctx<Op>& c) { c.sharded->run(c.stream); }});
  }
}

#define LP_X(Op) template void add_sharded_variants<Op>(Defs<Op>&);
LP_MULTIREDUCE_FOR_EACH_OP(LP_X)

}  // namespace lp::multireduce_study
