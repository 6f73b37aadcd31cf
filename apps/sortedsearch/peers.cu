#include <cub/device/device_merge.cuh>
#include <thrust/execution_policy.h>
#include <thrust/merge.h>

#include "kernels/common/cuda_check.cuh"
#include "kernels/sortedsearch/thrust_bounds.cuh"
#include "peers.hpp"

#include <algorithm>
#if LP_CUB_BOUND_SORTED
#include <cub/device/device_find.cuh>
#endif

namespace lp::peers {

// par_nosync: the harness times the stream with events; Thrust must not add a synchronisation.
// The bounds are auto's Thrust plan too (kernels/sortedsearch/thrust_bounds.cuh).
template <class T>
void thrust_lower_bound(const T* haystack, int haystack_count, const T* needles, int count, std::uint32_t* out, cudaStream_t s) {
  sortedsearch::thrust_bound<sortedsearch::Bounds::Lower>(haystack, haystack_count, needles, count, out, s);
}

template <class T>
void thrust_upper_bound(const T* haystack, int haystack_count, const T* needles, int count, std::uint32_t* out, cudaStream_t s) {
  sortedsearch::thrust_bound<sortedsearch::Bounds::Upper>(haystack, haystack_count, needles, count, out, s);
}

template <class T>
void thrust_merge(const T* a, int a_count, const T* b, int b_count, T* out, cudaStream_t s) {
  thrust::merge(thrust::cuda::par_nosync.on(s), a, a + a_count, b, b + b_count, out);
  LP_CUDA_LAUNCH("thrust::merge");
}

template <class T>
std::size_t cub_merge_temp_bytes(int a_count, int b_count) {
  std::size_t bytes = 0;
  LP_CUDA(cub::DeviceMerge::MergeKeys(nullptr, bytes, static_cast<const T*>(nullptr), a_count,
                                      static_cast<const T*>(nullptr), b_count, static_cast<T*>(nullptr)));
  return bytes;
}

template <class T>
void cub_merge(const T* a, int a_count, const T* b, int b_count, T* out, void* temp, std::size_t temp_bytes, cudaStream_t s) {
  LP_CUDA(cub::DeviceMerge::MergeKeys(temp, temp_bytes, a, a_count, b, b_count, out, ::cuda::std::less<>{}, s));
}

#if LP_CUB_BOUND_SORTED
template <class T>
std::size_t cub_bound_sorted_temp_bytes(int haystack_count, int count) {
  std::size_t lower = 0, upper = 0;
  const T* none = nullptr;
  LP_CUDA(cub::DeviceFind::LowerBoundSortedValues(nullptr, lower, none, haystack_count, none, count, static_cast<std::uint32_t*>(nullptr),
                                                  ::cuda::std::less<>{}));
  LP_CUDA(cub::DeviceFind::UpperBoundSortedValues(nullptr, upper, none, haystack_count, none, count, static_cast<std::uint32_t*>(nullptr),
                                                  ::cuda::std::less<>{}));
  return std::max(lower, upper);
}

template <class T, bool Upper>
void cub_bound_sorted(const T* haystack, int haystack_count, const T* needles, int count, std::uint32_t* out, void* temp,
                      std::size_t temp_bytes, cudaStream_t s) {
  if constexpr (Upper)
    LP_CUDA(cub::DeviceFind::UpperBoundSortedValues(temp, temp_bytes, haystack, haystack_count, needles, count, out, ::cuda::std::less<>{}, s));
  else
    LP_CUDA(cub::DeviceFind::LowerBoundSortedValues(temp, temp_bytes, haystack, haystack_count, needles, count, out, ::cuda::std::less<>{}, s));
}

#define LP_INSTANTIATE_BOUND_SORTED(T)                                                                                       \
  template std::size_t cub_bound_sorted_temp_bytes<T>(int, int);                                                            \
  template void cub_bound_sorted<T, false>(const T*, int, const T*, int, std::uint32_t*, void*, std::size_t, cudaStream_t); \
  template void cub_bound_sorted<T, true>(const T*, int, const T*, int, std::uint32_t*, void*, std::size_t, cudaStream_t);
#else
#define LP_INSTANTIATE_BOUND_SORTED(T)
#endif

#define LP_INSTANTIATE(T)                                                                                  \
  template void thrust_lower_bound<T>(const T*, int, const T*, int, std::uint32_t*, cudaStream_t);         \
  template void thrust_upper_bound<T>(const T*, int, const T*, int, std::uint32_t*, cudaStream_t);         \
  template void thrust_merge<T>(const T*, int, const T*, int, T*, cudaStream_t);                           \
  template std::size_t cub_merge_temp_bytes<T>(int, int);                                                  \
  template void cub_merge<T>(const T*, int, const T*, int, T*, void*, std::size_t, cudaStream_t);          \
  LP_INSTANTIATE_BOUND_SORTED(T)
LP_INSTANTIATE(std::int32_t)
LP_INSTANTIATE(std::int64_t)
LP_INSTANTIATE(float)
LP_INSTANTIATE(double)

}  // namespace lp::peers
