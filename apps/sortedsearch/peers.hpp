// The libraries a user would otherwise call for sorted search (Thrust, CUB), behind plain
// launchers so that their heavy headers compile in one translation unit of their own.
#pragma once
#include <cub/version.cuh>
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

namespace lp::peers {

template <class T>
void thrust_lower_bound(const T* haystack, int haystack_count, const T* needles, int count, std::uint32_t* out, cudaStream_t s);
template <class T>
void thrust_upper_bound(const T* haystack, int haystack_count, const T* needles, int count, std::uint32_t* out, cudaStream_t s);
template <class T>
void thrust_merge(const T* a, int a_count, const T* b, int b_count, T* out, cudaStream_t s);
template <class T>
std::size_t cub_merge_temp_bytes(int a_count, int b_count);
template <class T>
void cub_merge(const T* a, int a_count, const T* b, int b_count, T* out, void* temp, std::size_t temp_bytes, cudaStream_t s);

// cub::DeviceFind::LowerBoundSortedValues and UpperBoundSortedValues, CUB's search for needles that
// arrive sorted, first in CCCL 3.5: compiled where the CUB in use has them (a newer toolkit, or a
// CCCL checkout named by CMake's LP_CCCL_DIR), and then the study's peers cub_lower_bound_sorted and
// cub_upper_bound_sorted.
#define LP_CUB_BOUND_SORTED (CUB_VERSION >= 300500)
#if LP_CUB_BOUND_SORTED
template <class T>
std::size_t cub_bound_sorted_temp_bytes(int haystack_count, int count);  // the larger of the two bounds' needs
template <class T, bool Upper>
void cub_bound_sorted(const T* haystack, int haystack_count, const T* needles, int count, std::uint32_t* out, void* temp,
                      std::size_t temp_bytes, cudaStream_t s);
#endif

}  // namespace lp::peers
