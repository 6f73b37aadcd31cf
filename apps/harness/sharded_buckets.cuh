// A reduction into m buckets spread over several GPUs, knowing no algorithm: each GPU
// runs a study's local step on its shard of the inputs (device-resident, or streamed in chunks from
// pinned host memory with the copies overlapping the local steps), and the shards' bucket arrays
// are combined through NCCL: reduced to GPU 0, all-reduced, or gathered to GPU 0 and folded in
// shard order (the operators NCCL has no reduction for, and the non-commutative ones).
//
// Timing: the study's run() calls run(origin), which forks every device's streams from the
// harness's stream and joins them back, so the harness's one CUDA-event interval brackets every
// device's work. Each run also records per-device phase events (local step, combine, copies),
// read back outside the timed region as the record's per-phase metrics.
//
// The engine loops over the DeviceGroup's local slots: every GPU of the world in one process, or
// in the rank mode this rank's one GPU, whose shard is its rank; the collectives are the same
// calls either way (NCCL pairs them across processes).
#pragma once
#include <cuda_runtime.h>
#include <nccl.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "device_buffer.hpp"
#include "kernels/common/fold_buckets.cuh"
#include "multigpu.hpp"
#include "phase_clock.hpp"
#include "sharded_params.hpp"
#include "study.hpp"

namespace harness {

enum class Combine {
  Reduce,     // ncclReduce to GPU 0
  AllReduce,  // ncclAllReduce: every GPU ends with the buckets
  Ordered,    // GPU 0 receives every shard's buckets (ncclSend/ncclRecv) and folds them in shard order
  CopyOnly,   // no local step, no combine: the streamed copies alone (the host-to-device probe)
  Auto,       // Reduce where NCCL has the operator, else Ordered
};

// NCCL's datatype for T, where it has one.
template <class T>
constexpr bool nccl_has_type = std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::int64_t> ||
                               std::is_same_v<T, std::uint64_t> || std::is_same_v<T, float> || std::is_same_v<T, double>;
template <class T>
ncclDataType_t nccl_type() {
  static_assert(nccl_has_type<T>, "no NCCL datatype");
  if constexpr (std::is_same_v<T, std::int32_t>) return ncclInt32;
  else if constexpr (std::is_same_v<T, std::uint32_t>) return ncclUint32;
  else if constexpr (std::is_same_v<T, std::int64_t>) return ncclInt64;
  else if constexpr (std::is_same_v<T, std::uint64_t>) return ncclUint64;
  else if constexpr (std::is_same_v<T, float>) return ncclFloat32;
  else return ncclFloat64;
}
// NCCL's reduction for an operator named add, min or max (thesis 1.2's commutative ones); false
// for the others.
inline bool nccl_op(const std::string& op, ncclRedOp_t& out) {
  if (op == "add") out = ncclSum;
  else if (op == "min") out = ncclMin;
  else if (op == "max") out = ncclMax;
  else return false;
  return true;
}
// Whether NCCL reduces Op's buckets itself (else only Combine::Ordered applies). Integer addition
// wraps in NCCL as in the operators (two's complement), so the results agree bit for bit.
template <class Op>
bool nccl_reducible() {
  ncclRedOp_t r;
  if constexpr (nccl_has_type<typename Op::value_type>) return nccl_op(Op::name, r);
  else return false;
}

template <class Op>
class ShardedBuckets {
 public:
  using T = typename Op::value_type;
  // An input array of n elements on the host; `device0`, where not null, is the same array already
  // on GPU 0, used in place when one GPU holds the whole input.
  struct Column {
    const void* host = nullptr;
    std::size_t elem_bytes = 0;
    const void* device0 = nullptr;
  };
  struct Shape {
    int gpus = 1;
    std::int64_t n = 0;
    std::uint32_t m = 0;
    bool streamed = false;          // inputs stay on the host and are copied in chunks inside the timed run
    std::int64_t chunk = 1 << 24;   // inputs per streamed chunk
  };
  // What a local step sees on GPU `shard`: its inputs (one device pointer per column), their
  // count (>= 1), the m buckets it writes (it initialises them), its scratch and its stream.
  struct Local {
    int shard = 0;
    std::vector<const void*> cols;
    std::int64_t count = 0;
    T* out = nullptr;
    void* scratch = nullptr;
    std::size_t scratch_bytes = 0;
    cudaStream_t stream = nullptr;
  };
  using LocalFn = std::function<void(const Local&)>;
  using ScratchFn = std::function<std::size_t(std::int64_t count)>;

  // Distributes (or pins, streamed) the inputs. Throws Unsupported (too few GPUs, no NCCL) or
  // OutOfMemory.
  ShardedBuckets(const Shape& s, std::vector<Column> cols) : shape_(s), cols_(std::move(cols)), group_(DeviceGroup::of(s.gpus)) {
    try {
      place();
    } catch (...) {
      release();  // a GPU out of memory part way: what the others got goes back
      throw;
    }
  }

  ~ShardedBuckets() { release(); }
  ShardedBuckets(const ShardedBuckets&) = delete;
  ShardedBuckets& operator=(const ShardedBuckets&) = delete;

 private:
  void place() {
    const Shape& s = shape_;
    per_.resize(std::size_t(group_.size()));
    for (int k = 0; k < slots(); ++k) per_[std::size_t(k)].range = shard_range(s.n, group_.world(), group_.shard(k));
    if (s.streamed) {
      for (const Column& c : cols_) pins_.emplace_back(std::make_unique<PinnedRegion>(c.host, std::size_t(s.n) * c.elem_bytes));
    }
    for (int k = 0; k < slots(); ++k) {
      DeviceScope on(group_.device(k));
      Dev& d = per_[std::size_t(k)];
      const std::int64_t held = s.streamed ? std::min<std::int64_t>(s.chunk, d.range.size()) : d.range.size();
      const int copies = s.streamed ? 2 : 1;  // double-buffered chunks
      d.bufs.resize(cols_.size() * std::size_t(copies));
      for (std::size_t c = 0; c < cols_.size(); ++c) {
        const Column& col = cols_[c];
        if (!s.streamed && gpus() == 1 && col.device0) continue;  // used in place
        for (int b = 0; b < copies; ++b) d.bufs[std::size_t(b) * cols_.size() + c].resize(std::size_t(held) * col.elem_bytes);
        if (!s.streamed && held > 0)
          LP_CUDA(cudaMemcpy(d.bufs[c].get(), static_cast<const char*>(col.host) + std::size_t(d.range.begin) * col.elem_bytes,
                             std::size_t(held) * col.elem_bytes, cudaMemcpyHostToDevice));
      }
      d.out.resize(s.m);
      if (s.streamed) d.part.resize(s.m);
      for (int b = 0; b < 2; ++b) {
        LP_CUDA(cudaEventCreateWithFlags(&d.copied[b], cudaEventDisableTiming));
        LP_CUDA(cudaEventCreateWithFlags(&d.consumed[b], cudaEventDisableTiming));
      }
    }
    clock_.create(group_);
  }

  // Frees every GPU's buffers and events on that GPU (each handle is null where never made).
  // Never throws (it runs in the destructor, also after a lost CUDA context).
  void release() {
    int previous = 0;
    cudaGetDevice(&previous);
    for (int k = 0; k < int(per_.size()); ++k) {
      cudaSetDevice(group_.device(k));
      Dev& d = per_[std::size_t(k)];
      cudaStreamSynchronize(group_.stream(k));
      cudaStreamSynchronize(group_.copy_stream(k));
      for (auto& b : d.bufs) b.reset();
      d.out.reset();
      d.part.reset();
      d.gather.reset();
      d.scratch.reset();
      for (int b = 0; b < 2; ++b)
        for (cudaEvent_t* e : std::array<cudaEvent_t*, 2>{&d.copied[b], &d.consumed[b]})
          if (*e) cudaEventDestroy(*e), *e = nullptr;
    }
    cudaSetDevice(previous);
    clock_.destroy();
  }

 public:

  // The local step and combine the next runs use (a variant's), with its scratch for the largest
  // count each GPU gives it, and GPU 0's gather buffer where the combine is Ordered. Starts the phase
  // statistics afresh. The outputs are poison-filled, so a bucket never written shows.
  void set_local(ScratchFn scratch, LocalFn local, Combine how) {
    local_ = std::move(local);
    how_ = how = resolve(how);
    for (int k = 0; k < slots(); ++k) {
      DeviceScope on(group_.device(k));
      Dev& d = per_[std::size_t(k)];
      std::size_t bytes = 0;
      if (how != Combine::CopyOnly && scratch)
        for (std::int64_t c : counts(k)) bytes = std::max(bytes, scratch(c));
      d.scratch.resize(bytes);
      d.out.poison();
      if (group_.shard(k) == 0) d.gather.resize(how == Combine::Ordered ? std::size_t(shape_.m) * std::size_t(gpus() - 1) : 0);
      // The poison fill runs on this GPU's legacy stream, which the group's non-blocking streams do
      // not wait for: finish it here, on every GPU (the runner synchronises GPU 0 only).
      LP_CUDA(cudaDeviceSynchronize());
    }
    clock_.reset();
  }

  // The timed region, with what set_local bound: enqueue only, no synchronisation. `origin` is the
  // harness's stream on GPU 0.
  void run(cudaStream_t origin) {
    const NcclApi& api = nccl();
    const Combine how = how_;
    clock_.begin_run(shape_.streamed);
    group_.fork(origin);
    for (int k = 0; k < slots(); ++k) {
      DeviceScope on(group_.device(k));
      Dev& d = per_[std::size_t(k)];
      clock_.record(k, PhaseClock::Begin, group_.stream(k));
      if (shape_.streamed) stream_shard(k, how);
      else if (how != Combine::CopyOnly) local_or_identity(k, device_cols(k, 0), d.range.size(), d.out.get());
      clock_.record(k, PhaseClock::Local, group_.stream(k));
    }
    const std::size_t m = shape_.m;
    if (how == Combine::Reduce || how == Combine::AllReduce) {
      ncclRedOp_t op = ncclSum;
      if constexpr (nccl_has_type<T>) {
        if (!nccl_op(Op::name, op)) throw Unsupported(std::string("NCCL has no reduction for '") + Op::name + "'");
        nccl_check(api.GroupStart(), "ncclGroupStart");
        for (int k = 0; k < slots(); ++k) {
          T* b = per_[std::size_t(k)].out.get();
          if (how == Combine::Reduce) nccl_check(api.Reduce(b, b, m, nccl_type<T>(), op, 0, group_.comm(k), group_.stream(k)), "ncclReduce");
          else nccl_check(api.AllReduce(b, b, m, nccl_type<T>(), op, group_.comm(k), group_.stream(k)), "ncclAllReduce");
        }
        nccl_check(api.GroupEnd(), "ncclGroupEnd");
      } else {
        throw Unsupported("NCCL has no datatype for these buckets");
      }
    } else if (how == Combine::Ordered && gpus() > 1) {
      // Shard g > 0 sends its buckets to shard 0, which folds them in shard order: the sends of the
      // shards this process holds, the receives where it holds shard 0.
      const int root = group_.slot_of(0);
      nccl_check(api.GroupStart(), "ncclGroupStart");
      for (int g = 1; g < gpus(); ++g) {
        if (const int k = group_.slot_of(g); k >= 0)
          nccl_check(api.Send(per_[std::size_t(k)].out.get(), m * sizeof(T), ncclUint8, 0, group_.comm(k), group_.stream(k)), "ncclSend");
        if (root >= 0)
          nccl_check(api.Recv(per_[std::size_t(root)].gather.get() + std::size_t(g - 1) * m, m * sizeof(T), ncclUint8, g, group_.comm(root),
                              group_.stream(root)),
                     "ncclRecv");
      }
      nccl_check(api.GroupEnd(), "ncclGroupEnd");
      if (root >= 0) {
        DeviceScope on(group_.device(root));
        lp::fold_buckets<Op>(per_[std::size_t(root)].out.get(), per_[std::size_t(root)].gather.get(), gpus() - 1, shape_.m, group_.stream(root));
      }
    }
    for (int k = 0; k < slots(); ++k) {
      DeviceScope on(group_.device(k));
      clock_.record(k, PhaseClock::End, group_.stream(k));
    }
    group_.join(origin);
    clock_.end_run();
  }

  // The last run's outcome: "" where it is right, else the first difference. `check` judges a bucket
  // array ("" or the difference); it sees shard 0's, and after an all-reduce every shard's (of
  // this process: in the rank mode each rank checks what it holds, the runner gathers the
  // outcomes). After CopyOnly runs, every GPU's last chunk must hold the host's bytes.
  std::string validate(const std::function<std::string(const std::vector<T>&)>& check) const {
    if (how_ == Combine::CopyOnly) return copies_arrived();
    for (int k = 0; k < slots(); ++k) {
      const int g = group_.shard(k);
      if (g != 0 && how_ != Combine::AllReduce) continue;
      DeviceScope on(group_.device(k));
      if (std::string bad = check(per_[std::size_t(k)].out.download()); !bad.empty()) return g > 0 ? "GPU " + std::to_string(g) + ": " + bad : bad;
    }
    return "";
  }

 private:
  std::string copies_arrived() const {
    for (int k = 0; k < slots(); ++k) {
      const Dev& d = per_[std::size_t(k)];
      const std::int64_t size = d.range.size();
      if (size == 0) continue;
      const std::int64_t chunks = (size + shape_.chunk - 1) / shape_.chunk, last = chunks - 1;
      const std::int64_t begin = d.range.begin + last * shape_.chunk, count = d.range.end - begin;
      for (std::size_t c = 0; c < cols_.size(); ++c) {
        const std::size_t bytes = std::size_t(count) * cols_[c].elem_bytes;
        std::vector<char> got(bytes);
        DeviceScope on(group_.device(k));
        LP_CUDA(cudaMemcpy(got.data(), device_cols(k, int(last & 1))[c], bytes, cudaMemcpyDeviceToHost));
        if (std::memcmp(got.data(), static_cast<const char*>(cols_[c].host) + std::size_t(begin) * cols_[c].elem_bytes, bytes) != 0)
          return "GPU " + std::to_string(group_.shard(k)) + ": the last chunk of column " + std::to_string(c) + " differs from the host's";
      }
    }
    return "";
  }

 public:
  // The phases of the runs since set_local (PhaseClock::phases: medians) and what they say.
  Params metrics() {
    const PhaseClock::Phases ph = clock_.phases(shape_.streamed);
    Params p = group_.describe();
    if (ph.runs == 0) return p;
    ph.add_to(p);
    if (shape_.streamed) {
      p["transfer_ms"] = ph.transfer_ms;
      double bytes = 0;
      for (const Column& c : cols_) bytes += double(shape_.n) * double(c.elem_bytes);
      if (ph.transfer_ms > 0) p["transfer_GBps"] = bytes / (ph.transfer_ms * 1e6);
    }
    return p;
  }

  int gpus() const { return group_.world(); }  // the shards of the world
  int slots() const { return int(per_.size()); }  // the ones this process holds

  // What Combine::Auto is. On two H200s over NVLink (results/h200x2/multi-gpu) ncclReduce took
  // 8.6 us up to m = 4096 where the gather and fold took 11-13 us (and 90-110 us at m = 16), and
  // 0.81 ms against 0.89-1.03 ms at m = 2^26 int32: NCCL's reduce wherever it has the operator.
  // On more GPUs the gather brings (N-1) m buckets into GPU 0 where NCCL's ring or tree moves
  // about 2m per GPU, so the choice only gets clearer there.
  Combine resolve(Combine how) const {
    if (how != Combine::Auto) return how;
    return nccl_reducible<Op>() ? Combine::Reduce : Combine::Ordered;
  }

  // Throws Unsupported("<what> on <count> inputs: <reason>") where `why` refuses a count some GPU's
  // local step would be called with.
  void require(const std::function<std::string(std::int64_t)>& why, const std::string& what) const {
    for (int k = 0; k < slots(); ++k)
      for (std::int64_t c : counts(k))
        if (std::string r = why(c); !r.empty()) throw Unsupported(what + " on " + std::to_string(c) + " inputs: " + r);
  }

  // The input counts slot k's local step is called with: its shard, or its full and last chunks
  // (a variant's support and scratch may depend on the count).
  std::vector<std::int64_t> counts(int k) const {
    const std::int64_t size = per_[std::size_t(k)].range.size();
    if (size == 0) return {};
    if (!shape_.streamed) return {size};
    std::vector<std::int64_t> c = {std::min(shape_.chunk, size)};
    if (size > shape_.chunk && size % shape_.chunk) c.push_back(size % shape_.chunk);
    return c;
  }

 private:
  struct Dev {
    Range range;
    std::vector<DeviceBuffer<char>> bufs;  // [copy * columns + column]: the shard, or two chunk buffers
    DeviceBuffer<T> out, part, gather;
    DeviceBuffer<char> scratch;
    cudaEvent_t copied[2] = {nullptr, nullptr}, consumed[2] = {nullptr, nullptr};
  };

  // The device pointers of GPU k's inputs: its shard, or chunk buffer `copy` when streamed.
  std::vector<const void*> device_cols(int k, int copy) const {
    std::vector<const void*> p(cols_.size());
    for (std::size_t c = 0; c < cols_.size(); ++c) {
      const DeviceBuffer<char>& b = per_[std::size_t(k)].bufs[std::size_t(copy) * cols_.size() + c];
      p[c] = (!shape_.streamed && gpus() == 1 && cols_[c].device0) ? cols_[c].device0 : b.get();
    }
    return p;
  }

  // The local step on `count` inputs, or the identity where a shard is empty (n < gpus): no
  // variant is asked to reduce nothing.
  void local_or_identity(int k, std::vector<const void*> cols, std::int64_t count, T* out) {
    Dev& d = per_[std::size_t(k)];
    if (count == 0) {
      lp::fill_identity<Op>(out, shape_.m, group_.stream(k));
      return;
    }
    local_(Local{group_.shard(k), std::move(cols), count, out, d.scratch.get(), d.scratch.size(), group_.stream(k)});
  }

  // GPU k's shard in chunks: the copy stream fills one buffer while the compute stream reduces the
  // other; chunk c > 0 is reduced into `part` and folded into the buckets in chunk order.
  void stream_shard(int k, Combine how) {
    Dev& d = per_[std::size_t(k)];
    const cudaStream_t s = group_.stream(k), cs = group_.copy_stream(k);
    const std::int64_t chunks = (d.range.size() + shape_.chunk - 1) / shape_.chunk;
    clock_.record(k, PhaseClock::CopyBegin, cs);
    if (chunks == 0 && how != Combine::CopyOnly) lp::fill_identity<Op>(d.out.get(), shape_.m, s);
    for (std::int64_t c = 0; c < chunks; ++c) {
      const int buf = int(c & 1);
      const std::int64_t begin = d.range.begin + c * shape_.chunk, count = std::min(shape_.chunk, d.range.end - begin);
      if (c >= 2 && how != Combine::CopyOnly) LP_CUDA(cudaStreamWaitEvent(cs, d.consumed[buf], 0));
      const std::vector<const void*> dst = device_cols(k, buf);
      for (std::size_t col = 0; col < cols_.size(); ++col) {
        const std::size_t e = cols_[col].elem_bytes;
        LP_CUDA(cudaMemcpyAsync(const_cast<void*>(dst[col]), static_cast<const char*>(cols_[col].host) + std::size_t(begin) * e,
                                std::size_t(count) * e, cudaMemcpyHostToDevice, cs));
      }
      if (how == Combine::CopyOnly) continue;
      LP_CUDA(cudaEventRecord(d.copied[buf], cs));
      LP_CUDA(cudaStreamWaitEvent(s, d.copied[buf], 0));
      local_or_identity(k, dst, count, c == 0 ? d.out.get() : d.part.get());
      LP_CUDA(cudaEventRecord(d.consumed[buf], s));
      if (c > 0) lp::fold_buckets<Op>(d.out.get(), d.part.get(), 1, shape_.m, s);
    }
    clock_.record(k, PhaseClock::CopyEnd, cs);
    if (how == Combine::CopyOnly) LP_CUDA(cudaStreamWaitEvent(s, clock_.event(k, PhaseClock::CopyEnd), 0));  // the join then covers the copies
  }

  Shape shape_;
  std::vector<Column> cols_;
  DeviceGroup& group_;
  std::vector<std::unique_ptr<PinnedRegion>> pins_;
  std::vector<Dev> per_;
  LocalFn local_;
  Combine how_ = Combine::Reduce;  // set_local's, resolved
  PhaseClock clock_;
};

}  // namespace harness

namespace harness {

// The variants every study over buckets declares for several GPUs, in `bench list` order: the same
// names, combines and meaning in each study.
struct ShardedVariantSpec {
  const char* name;
  VariantKind kind;
  Combine how;
  const char* description;
};
inline const std::vector<ShardedVariantSpec>& sharded_variant_specs() {
  static const std::vector<ShardedVariantSpec> v = {
      {"sharded_reduce", VariantKind::Ours, Combine::Reduce,
       "shard_variant (auto) on each GPU's shard, then ncclReduce of the buckets to GPU 0 (add, min, max)"},
      {"sharded_allreduce", VariantKind::Ours, Combine::AllReduce,
       "shard_variant on each GPU's shard, then ncclAllReduce: every GPU holds the buckets (add, min, max)"},
      {"sharded_ordered", VariantKind::Ours, Combine::Ordered,
       "shard_variant on each GPU's shard, then GPU 0 receives every shard's buckets (ncclSend/Recv) and folds them in "
       "shard order: any operator"},
      {"sharded_auto", VariantKind::Ours, Combine::Auto,
       "shard_variant on each GPU's shard, then ncclReduce where NCCL has the operator (measured the faster), else the "
       "ordered fold"},
      {"h2d_stream", VariantKind::Probe, Combine::CopyOnly,
       "the host-to-device ceiling of source 'host': the same chunks copied to every GPU at once, nothing computed"},
  };
  return v;
}

// Binds a study's one-GPU variant `local` as the local step of `engine`, combining by `how`: each
// call runs it on the point's context `base` with n, out, scratch and stream set to the call's and
// the inputs set by bind_inputs(ctx, cols). Throws Unsupported where the variant refuses a count
// some GPU would give it. `base` and `local` must outlive the engine's runs (the point owns both).
template <class Op, class V, class BindInputs>
void bind_local_variant(ShardedBuckets<Op>& engine, const V& local, const typename V::Context& base, const std::string& name,
                        BindInputs bind_inputs, Combine how) {
  using Ctx = typename V::Context;
  auto at = [&base](std::int64_t count) {
    Ctx c = base;
    c.n = count;
    return c;
  };
  if (local.unsupported) engine.require([&](std::int64_t count) { return local.unsupported(at(count)); }, "shard_variant '" + name + "'");
  engine.set_local([at, &local](std::int64_t count) { return local.scratch ? local.scratch(at(count)) : std::size_t(0); },
                   [at, &local, bind_inputs](const typename ShardedBuckets<Op>::Local& s) {
                     Ctx c = at(s.count);
                     bind_inputs(c, s.cols);
                     c.out = s.out;
                     c.scratch = s.scratch;
                     c.scratch_bytes = s.scratch_bytes;
                     c.stream = s.stream;
                     local.run(c);
                   },
                   how);
}

// Why a sharded variant combining by `how` cannot run for Op, or "".
template <class Op>
std::string sharded_unsupported(Combine how, bool streamed) {
  if (how == Combine::CopyOnly && !streamed) return "a probe of source 'host' (inputs streamed from pinned host memory)";
  if ((how == Combine::Reduce || how == Combine::AllReduce) && !nccl_reducible<Op>())
    return std::string("NCCL reduces add, min and max of 32/64-bit integers and floats, not op '") + Op::name + "' (sharded_ordered does)";
  return "";
}

}  // namespace harness
