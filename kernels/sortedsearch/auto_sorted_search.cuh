// `auto` for the sorted search (beyond the documents): the plans of its decision table
// (auto_rule.hpp) with their scratch, and the one launch that profiles both columns on the device and
// runs the plan the table picks there (kernels/common/auto_launch.cuh). Every plan's launcher only
// enqueues kernels (the merge path, the windowed search and the binary search launch and check;
// thrust_bounds.cuh allocates nothing and does not synchronise), so each can be captured into the
// plan graph. The several-GPU search (a haystack slice with an index offset) takes the plan from the
// sizes alone: auto_sorted_search_by_size.
#pragma once
#include <cstdint>
#include <stdexcept>
#include <string>

#include "../common/auto_launch.cuh"
#include "auto_rule.hpp"
#include "binary_search.cuh"
#include "mergepath_sorted_search.cuh"
#include "thrust_bounds.cuh"
#include "windowed_sorted_search.cuh"

namespace lp::sortedsearch {

// `thrust`: Thrust's bound can run (no index offset).
template <class WinShape, class T>
auto_rule::Sizes auto_sizes(std::int64_t a_count, std::int64_t b_count, bool thrust) {
  auto_rule::Sizes s{};
  s.na = a_count;
  s.nb = b_count;
  s.key_bytes = std::uint32_t(sizeof(T));
  s.thrust = thrust;
  // What the windowed launcher's tile at these sizes holds, with its own headroom for spans above
  // the mean.
  if (a_count > 0)
    s.window_ratio = double(WinShape::window) / (double(windowed_tile_needles<WinShape>(windowed_vt<WinShape>(a_count, b_count))) * kSpanSlack);
  return s;
}

template <class MPTuning, class WinShape>
std::size_t auto_plan_scratch(auto_rule::Plan p, std::int64_t a_count, std::int64_t b_count) {
  switch (p) {
    case auto_rule::Plan::MergePath: return mergepath_scratch_bytes<MPTuning>(a_count, b_count);
    case auto_rule::Plan::Windowed: return windowed_scratch_bytes<WinShape>(a_count);
    default: return 0;
  }
}

// Bound B of every needle of sorted A into sorted B by plan `p`. `a_base` is added to every index: B
// is a slice of a haystack starting there (several GPUs; not with Thrust's plan).
template <class MPTuning, class WinShape, Bounds B, class T>
void auto_run_plan(auto_rule::Plan p, const T* a, int a_count, const T* b, int b_count, std::uint32_t* out, void* scratch, cudaStream_t stream,
                   std::uint32_t a_base = 0) {
  using auto_rule::Plan;
  switch (p) {
    case Plan::BinarySearch: return binary_search<B>(a, a_count, b, b_count, out, stream, Less{}, a_base);
    // The table has decided the switch: the windowed launcher must not decide it again.
    case Plan::Windowed:
      return windowed_sorted_search<WinShape, B>(a, a_count, b, b_count, out, scratch, stream, kNeverSwitch, Less{}, 0, a_base);
    case Plan::MergePath:
      return mergepath_sorted_search<MPTuning, B, Output::Index, Output::None>(a, a_count, b, b_count, out, nullptr, scratch, nullptr, stream,
                                                                               nullptr, Less{}, a_base);
    case Plan::Thrust:
      if (a_base != 0) throw std::logic_error("sorted search auto: Thrust's bound takes no index offset");
      return thrust_bound<B>(b, b_count, a, a_count, out, stream);
    default: throw std::logic_error("sorted search auto: no plan");
  }
}

// The plan by the sizes alone (no look, no Thrust), and its scratch: the several-GPU search's part
// on each GPU.
template <class MPTuning, class WinShape, class T>
std::size_t auto_search_by_size_scratch_bytes(std::int64_t a_count, std::int64_t b_count) {
  return auto_plan_scratch<MPTuning, WinShape>(by_size(auto_sizes<WinShape, T>(a_count, b_count, false)), a_count, b_count);
}
template <class MPTuning, class WinShape, Bounds B, class T>
void auto_sorted_search_by_size(const T* a, int a_count, const T* b, int b_count, std::uint32_t* out, void* scratch, cudaStream_t stream,
                                std::uint32_t a_base = 0) {
  auto_run_plan<MPTuning, WinShape, B>(by_size(auto_sizes<WinShape, T>(a_count, b_count, false)), a, a_count, b, b_count, out, scratch, stream,
                                       a_base);
}

// auto's scratch on one GPU: the most any plan the table can answer needs, then the profile's slot
// where it looks.
template <class MPTuning, class WinShape, class T>
std::size_t auto_search_scratch_bytes(std::int64_t a_count, std::int64_t b_count) {
  return profile::auto_scratch_bytes(auto_sizes<WinShape, T>(a_count, b_count, true),
                                     [&](auto_rule::Plan p) { return auto_plan_scratch<MPTuning, WinShape>(p, a_count, b_count); });
}

// The columns the profile reads: the haystack first, the needles second (auto_rule::Rule says why).
template <class T>
profile::Columns<T> auto_columns(const T* a, int a_count, const T* b, int b_count) {
  profile::Columns<T> c;
  c.first = b;
  c.n_first = b_count;
  c.second = a;
  c.n_second = a_count;
  return c;
}

// Bound B of every needle of sorted A into sorted B, by the table: from the sizes where they settle
// it, else from both columns' profile on the device, inside one graph. `scratch` holds
// auto_search_scratch_bytes; its end is the profile's slot, which the study reads back for the record.
template <class MPTuning, class WinShape, Bounds B, class T>
void auto_sorted_search(const T* a, int a_count, const T* b, int b_count, std::uint32_t* out, void* scratch, std::size_t scratch_bytes,
                        cudaStream_t stream) {
  const auto_rule::Rule rule{auto_sizes<WinShape, T>(a_count, b_count, true)};
  // The address of a static of this instantiation names it in the graph's key (the key type, the
  // tunings and the bound are template arguments, baked into the captured launches).
  static const char instance = 0;
  profile::run_auto(
      rule, plan_key("sortedsearch/auto", &instance, a, b, out), auto_columns(a, a_count, b, b_count), scratch, scratch_bytes,
      [&](auto_rule::Plan p, cudaStream_t s, std::size_t) { auto_run_plan<MPTuning, WinShape, B>(p, a, a_count, b, b_count, out, scratch, s); },
      stream);
}

}  // namespace lp::sortedsearch
