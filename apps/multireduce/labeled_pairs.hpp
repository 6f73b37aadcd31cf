// What the studies over label-value pairs (multireduce, thesis ch. 4; multiscan, ch. 5) share: the
// launch context's inputs, the axes and checks of the pairs' generator, the inputs themselves with
// the stable sort by label that the pre-sorted peers start from, the float tolerance and the
// (op, type) dispatch. Each study adds only what its operation needs.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "apps/harness/datagen.hpp"
#include "apps/harness/device_buffer.hpp"
#include "apps/harness/label_axes.hpp"
#include "apps/harness/study.hpp"
#include "cpu_reference/multireduce/cpu_multireduce.hpp"
#include "kernels/multireduce/common.cuh"

namespace lp::multireduce_study {

// What a launcher over label-value pairs sees: device inputs and output (GPU variants), host
// inputs and output (CPU variants), the variant's scratch and knobs, and stable-sorted copies for
// the peers measured on pre-sorted keys (thesis Fig 3.6). The point keeps it current.
template <class Op, class TuningT>
struct PairsCtx {
  using T = typename Op::value_type;
  const std::uint32_t* labels = nullptr;  // device
  const T* values = nullptr;              // device
  std::int64_t n = 0;
  std::uint32_t m = 0;
  T* out = nullptr;  // device; the variant initialises it (inside the timed region)
  void* scratch = nullptr;
  std::size_t scratch_bytes = 0;
  TuningT tune;
  cudaStream_t stream = nullptr;
  const std::uint32_t* host_labels = nullptr;
  const T* host_values = nullptr;
  T* host_out = nullptr;
  cpu::SortScratch<T>* host_sort_scratch = nullptr;  // kept by the point: no allocation in timed runs
  const std::uint32_t* sorted_labels = nullptr;      // device
  const T* sorted_values = nullptr;                  // device
};

// The pairs of one point, on the host and (with a GPU) on the device, and on demand their stable
// sort by label (not timed: the pre-sorted peers measure the by-key operation alone).
template <class T>
struct LabeledPairs {
  std::vector<std::uint32_t> labels;
  std::vector<T> values;
  harness::DeviceBuffer<std::uint32_t> d_labels, d_sorted_labels;
  harness::DeviceBuffer<T> d_values, d_sorted_values;
  std::vector<std::uint32_t> sorted_labels;  // host copy, for validating by-key outputs
  std::vector<std::uint32_t> sorted_index;   // input position of the j-th sorted pair

  void upload() {
    d_labels.upload(labels);
    d_values.upload(values);
  }

  void upload_sorted(std::uint32_t m) {
    if (sorted_ready_) return;
    sorted_ready_ = true;
    const std::size_t n = labels.size();
    std::vector<std::int64_t> start(std::size_t(m) + 1, 0);
    for (std::uint32_t l : labels) ++start[l + 1];
    for (std::size_t b = 1; b < start.size(); ++b) start[b] += start[b - 1];
    sorted_labels.resize(n);
    sorted_index.resize(n);
    std::vector<T> sorted_values(n);
    for (std::size_t i = 0; i < n; ++i) {
      const std::size_t at = std::size_t(start[labels[i]]++);
      sorted_index[at] = std::uint32_t(i);
      sorted_labels[at] = labels[i];
      sorted_values[at] = values[i];
    }
    d_sorted_labels.upload(sorted_labels);
    d_sorted_values.upload(sorted_values);
  }

  // Labels that occur at least once (the runs of the sorted pairs).
  std::int64_t distinct(std::uint32_t m) const {
    if (distinct_ < 0) {
      std::vector<bool> seen(m, false);
      std::int64_t k = 0;
      for (std::uint32_t l : labels) k += seen[l] ? 0 : (seen[l] = true, 1);
      distinct_ = k;
    }
    return distinct_;
  }

  // The context's input fields.
  template <class Ctx>
  void bind(Ctx& c) const {
    c.labels = d_labels.get();
    c.values = d_values.get();
    c.n = std::int64_t(labels.size());
    c.host_labels = labels.data();
    c.host_values = values.data();
    c.sorted_labels = d_sorted_labels.get();
    c.sorted_values = d_sorted_values.get();
  }

 private:
  bool sorted_ready_ = false;
  mutable std::int64_t distinct_ = -1;
};

// A variant's outputs over the pairs: device results (poisoned, so a result never written shows)
// and its scratch for a GPU variant, host results (`host_init`: the poison's counterpart where a
// study validates unwritten results) for a CPU one; bound into the context.
template <class T>
struct PairsOutputs {
  harness::DeviceBuffer<T> out;
  harness::DeviceBuffer<char> scratch;
  std::vector<T> host_out;

  template <class V>
  void allocate(typename V::Context& c, const V& v, std::size_t results, T host_init = T{}) {
    if (v.kind == harness::VariantKind::Cpu) {
      host_out.assign(results, host_init);
    } else {
      out.resize(results);
      out.poison();
      scratch.resize(v.scratch ? v.scratch(c) : 0);
    }
    c.out = out.get();
    c.scratch = scratch.get();
    c.scratch_bytes = scratch.size();
    c.host_out = host_out.data();
  }
  // What the variant wrote, wherever it ran.
  template <class V>
  std::vector<T> results(const V& v) const {
    return v.kind == harness::VariantKind::Cpu ? host_out : out.download();
  }
  void release() {
    out.reset();
    scratch.reset();
    host_out.clear();
  }
};

// A float result over k inputs may differ from the double-precision exact value by
// 2 * sqrt(k) * u * sum|v| + u * |exact| (u = 2^-24). The first term bounds the rounding of partial
// sums that wander like sqrt(k) times the values (zero-mean inputs); it admits every summation
// order (atomics, trees, sequential, look-back) and still catches a lost or doubled input.
inline double float_sum_tolerance(std::int64_t count, double abs_sum, double exact) {
  const double u = std::ldexp(1.0, -24);
  return 2 * std::sqrt(double(count)) * u * abs_sum + u * std::fabs(exact);
}

// The axes of the pairs' generator, and the launch knobs every GPU variant family reads. Every
// study over pairs offers every label distribution of harness::labels.
inline std::vector<harness::AxisSpec> pair_axes(std::int64_t max_n = std::int64_t(1) << 30) {
  using harness::AxisKind;
  using V = harness::Value;
  return {
      {"n", AxisKind::Size, "inputs (label-value pairs)", {V(std::int64_t(1) << 26)}, {}, 1, max_n},
      {"m", AxisKind::Size, "buckets: labels are in [0, m)", {V(std::int64_t(256))}, {}, 1, std::int64_t(1) << 28},
      {"distribution", AxisKind::Choice,
       std::string("labels: uniform, degenerate (all m-1), sorted, nearly_sorted (sorted, one in 1024 swapped), zipf (exponent zipf_s), ") + harness::run_distributions_help() +
           ", permutation (of [0, n); needs m = n)",
       {V(std::string("uniform"))}, {"uniform", "degenerate", "sorted", "nearly_sorted", "zipf", "runs", "equal_runs", "permutation"}},
      {"zipf_s", AxisKind::Real, "zipf exponent (distribution zipf only)", {V(1.0)}, {}},
      harness::run_length_axis(),
  };
}

// "" where the label parameters of `p` can be generated, else the reason naming the key.
inline std::string check_label_params(const harness::Params& p) {
  if (harness::as_real(p, "zipf_s") <= 0) return "zipf_s: the zipf exponent must be > 0";
  if (std::string why = harness::check_run_length(p); !why.empty()) return why;
  if (harness::as_str(p, "distribution") == "permutation" && harness::as_int(p, "m") != harness::as_int(p, "n"))
    return "m: distribution 'permutation' needs m = n (m = " + std::to_string(harness::as_int(p, "m")) + ", n = " +
           std::to_string(harness::as_int(p, "n")) + ")";
  return {};
}
inline std::vector<harness::AxisSpec> launch_axes() {
  using harness::AxisKind;
  using V = harness::Value;
  return {
      {"threads", AxisKind::Int, "threads per block (0: the variant's default)", {V(std::int64_t(0))}, {}, 0, 1024},
      {"blocks_per_sm", AxisKind::Int, "resident blocks per SM the grid is sized for (0: default)", {V(std::int64_t(0))}, {}, 0, 32},
      {"n_items", AxisKind::Int, "items per thread per step (0: default)", {V(std::int64_t(0))}, {}, 0, 64},
  };
}

// The knobs both studies read from a point's parameters.
inline void read_tuning(const harness::Params& p, multireduce::Tuning& t) {
  t.threads = int(harness::as_int(p, "threads"));
  t.blocks_per_sm = int(harness::as_int(p, "blocks_per_sm"));
  t.n_items = int(harness::as_int(p, "n_items"));
  t.sort_bits = int(harness::as_int(p, "sort_bits"));
  const std::string& tr = harness::as_str(p, "transpose");
  using S = multireduce::Tuning::Transpose;
  t.transpose = tr == "baxter" ? S::Baxter : tr == "segment" ? S::Segment : S::Padded;
}

// The generator's labels for a point: `tag` names everything the labels must differ by.
inline std::vector<std::uint32_t> point_labels(const harness::Params& p, std::uint64_t seed, std::string tag) {
  if (harness::uses_run_length(harness::as_str(p, "distribution"))) tag += "/" + harness::to_string(p.at("run_length"));
  return harness::labels(harness::as_int(p, "n"), static_cast<std::uint32_t>(harness::as_int(p, "m")), harness::as_str(p, "distribution"),
                         harness::as_real(p, "zipf_s"), harness::derive_seed(seed, "labels/" + tag), harness::as_real(p, "run_length"));
}

// The operators and the value types each works on; `last` (a scatter, thesis 1.2) only where the
// study has it: it has no use as a scan.
inline std::vector<harness::AxisSpec> op_type_axes(bool with_last) {
  using harness::AxisKind;
  using V = harness::Value;
  std::vector<std::string> ops = {"add", "min", "max", "affine"};
  if (with_last) ops.push_back("last");
  return {
      {"op", AxisKind::Choice,
       std::string("operator: add, min, max, affine (composition of x->ax+b, non-commutative)") +
           (with_last ? ", last (scatter, non-commutative)" : ""),
       {V(std::string("add"))}, ops},
      {"type", AxisKind::Choice,
       std::string("value type: int32, int64, float32 (add); int32 (min, max") + (with_last ? ", last" : "") + "); uint32x2 (affine)",
       {V(std::string("int32"))}, {"int32", "int64", "float32", "uint32x2"}},
  };
}

// "" where `op` works on `type`, else the reason naming the key.
inline std::string check_op_type(const harness::Params& p) {
  static const std::map<std::string, std::vector<std::string>> op_types = {
      {"add", {"int32", "int64", "float32"}}, {"min", {"int32"}}, {"max", {"int32"}}, {"affine", {"uint32x2"}}, {"last", {"int32"}}};
  const std::string& op = harness::as_str(p, "op");
  const std::string& type = harness::as_str(p, "type");
  const auto& ok = op_types.at(op);  // the op axis has checked the name
  if (std::find(ok.begin(), ok.end(), type) == ok.end()) {
    std::string list;
    for (const auto& t : ok) list += (list.empty() ? "" : ", ") + t;
    return "type: op '" + op + "' works on " + list + ", not '" + type + "'";
  }
  return {};
}

// The point for the (op, type) of `p`, instantiated for the operator it names. `last` only where
// the study has it (WithLast).
template <template <class> class P, bool WithLast>
std::unique_ptr<harness::Point> point_for_op(const harness::Params& p, std::uint64_t seed, bool device) {
  using namespace multireduce;
  const std::string& op = harness::as_str(p, "op");
  const std::string& type = harness::as_str(p, "type");
  if (op == "add" && type == "int32") return std::make_unique<P<Add<std::int32_t>>>(p, seed, device);
  if (op == "add" && type == "int64") return std::make_unique<P<Add<std::int64_t>>>(p, seed, device);
  if (op == "add") return std::make_unique<P<Add<float>>>(p, seed, device);
  if (op == "min") return std::make_unique<P<Min<std::int32_t>>>(p, seed, device);
  if (op == "max") return std::make_unique<P<Max<std::int32_t>>>(p, seed, device);
  if constexpr (WithLast)
    if (op == "last") return std::make_unique<P<Last>>(p, seed, device);
  return std::make_unique<P<Compose>>(p, seed, device);
}

}  // namespace lp::multireduce_study
