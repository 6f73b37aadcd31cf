// The axes of a study with variants over several GPUs, what a point reads from them, and
// the rules every such study's point applies. The engines: sharded_buckets.cuh (reductions into
// buckets, optionally streamed from the host) and sharded_gather.cuh (outputs in input order).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "study.hpp"

namespace harness {

template <class Op>
class ShardedBuckets;

// The gpus axis alone (a study whose inputs stay device-resident).
inline AxisSpec gpus_axis() {
  return {"gpus", AxisKind::Int, "GPUs the sharded_* variants use (devices 0..gpus-1; --gpus N sets it); the others run on one",
          {Value(std::int64_t(1))}, {}, 1, 64};
}
// gpus, and where the inputs are, how they are streamed and what each GPU runs (ShardedBuckets).
inline std::vector<AxisSpec> sharded_axes() {
  using V = Value;
  return {
      gpus_axis(),
      {"source", AxisKind::Choice,
       "where the inputs are: device (uploaded before timing), or host (pinned host memory, streamed in chunks inside the timed "
       "run: inputs larger than the GPUs; sharded_* and h2d_stream only)",
       {V(std::string("device"))}, {"device", "host"}},
      {"chunk", AxisKind::Size, "inputs per streamed chunk (source host)", {V(std::int64_t(1) << 24)}, {}, 1024, std::int64_t(1) << 30},
      {"shard_variant", AxisKind::Choice, "the one-GPU variant each GPU runs on its shard or chunk", {V(std::string("auto"))}, {}},
  };
}

// What a point reads from those axes (a study with gpus_axis() alone: device-resident inputs).
struct ShardedParams {
  int gpus = 1;
  bool streamed = false;  // source host
  std::int64_t chunk = 0;
  std::string shard_variant;
  explicit ShardedParams(const Params& p)
      : gpus(int(as_int(p, "gpus"))),
        streamed(p.count("source") && as_str(p, "source") == "host"),
        chunk(p.count("chunk") ? as_int(p, "chunk") : 0),
        shard_variant(p.count("shard_variant") ? as_str(p, "shard_variant") : std::string()) {}
  // Whether the one-GPU variants run here, reading the whole input from GPU 0.
  bool one_gpu() const { return gpus == 1 && !streamed; }
  // Why a variant cannot run at this point for where its inputs are, or "".
  std::string skip(bool sharded, VariantKind kind, const std::string& inputs) const {
    if (sharded || kind == VariantKind::Cpu || one_gpu()) return "";
    return "a one-GPU variant on device-resident " + inputs + " (gpus = " + std::to_string(gpus) + ", source = " +
           (streamed ? "host" : "device") + ": the sharded_* variants)";
  }
  template <class Op>
  typename ShardedBuckets<Op>::Shape shape(std::int64_t n, std::uint32_t m) const {
    typename ShardedBuckets<Op>::Shape s;
    s.gpus = gpus;
    s.n = n;
    s.m = m;
    s.streamed = streamed;
    s.chunk = chunk;
    return s;
  }
  // A sharded record's metrics: the engine's phases and the shard variant.
  template <class Op>
  Params metrics(ShardedBuckets<Op>& engine) const {
    Params p = engine.metrics();
    p["shard_variant"] = shard_variant;
    return p;
  }
};

inline std::string check_sharded_params(const Params& p, std::int64_t max_device_n) {
  if (as_str(p, "source") == "device" && as_int(p, "n") > max_device_n)
    return "n: more than " + std::to_string(max_device_n) + " inputs need source 'host' (streamed from host memory)";
  return {};
}

}  // namespace harness
