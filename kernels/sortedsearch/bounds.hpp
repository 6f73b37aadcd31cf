// Merge-path partitioning and the serial search step of vectorized sorted search
// (ModernGPU "Vectorized Sorted Search": MergePath, DeviceSerialSearch), shared by host and device.
#pragma once
#include <cstdint>

#include "../common/hd.hpp"

namespace lp::sortedsearch {

// Lower: lower bound of A into B (equal keys: A before B on the merge path), upper bound of B into A.
// Upper: upper bound of A into B (equal keys: B before A), lower bound of B into A.
enum class Bounds { Lower, Upper };

// The match flag in the most significant bit of an index (ModernGPU's MgpuSearchTypeIndexMatch).
constexpr std::uint32_t kMatchBit = 0x80000000u;

struct Less {
  template <class T>
  LP_HD bool operator()(const T& a, const T& b) const { return a < b; }
};

// True when the merge path takes A's key before B's key.
template <Bounds B, class T, class Comp>
LP_HD bool take_a(const T& a_key, const T& b_key, Comp comp) {
  return B == Bounds::Upper ? comp(a_key, b_key) : !comp(b_key, a_key);
}

// Number of A elements among the first `diag` steps of the merge of a[0, a_count) and
// b[0, b_count): a binary search along the cross diagonal.
template <Bounds B, class T, class Comp>
LP_HD std::int64_t merge_path(const T* a, std::int64_t a_count, const T* b, std::int64_t b_count,
                              std::int64_t diag, Comp comp) {
  std::int64_t lo = diag > b_count ? diag - b_count : 0;
  std::int64_t hi = diag < a_count ? diag : a_count;
  while (lo < hi) {
    std::int64_t mid = (lo + hi) >> 1;
    if (take_a<B>(a[mid], b[diag - 1 - mid], comp))
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

// Binary search of one key over b[lo, hi): the classic vectorized-binary-search body.
template <Bounds B, class T, class Comp>
LP_HD std::int64_t bound_in(const T* b, std::int64_t lo, std::int64_t hi, const T& key, Comp comp) {
  while (lo < hi) {
    std::int64_t mid = (lo + hi) >> 1;
    // Lower: first b >= key; Upper: first b > key.
    bool go_right = B == Bounds::Upper ? !comp(key, b[mid]) : comp(b[mid], key);
    if (go_right)
      lo = mid + 1;
    else
      hi = mid;
  }
  return lo;
}

}  // namespace lp::sortedsearch
