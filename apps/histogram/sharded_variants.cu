// The histogram over several GPUs and over samples streamed from host memory. Each GPU
// runs the point's shard_variant (auto) on its shard; ShardedBuckets (apps/harness) adds the
// shards' counts through NCCL. The point builds the ShardedBuckets and binds the shard variant.
#include "variant.hpp"

namespace lp::histogram_study {

void add_sharded_variants(Defs& d) {
  for (const harness::ShardedVariantSpec& s : harness::sharded_variant_specs()) {
    const harness::Combine how = s.how;
    d.add({s.name, s.kind, s.description, {false, true, how},
           [how](const Ctx& c) { return harness::sharded_unsupported<Counts>(how, c.streamed); }, {},
           [](Ctx& c) { c.sharded->run(c.stream); }});
  }
}

}  // namespace lp::histogram_study
