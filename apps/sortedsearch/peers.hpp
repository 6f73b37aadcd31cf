// The libraries a user would otherwise call for sorted search (Thrust, CUB), behind plain
// launchers so that their heavy headers compile in one translation unit of their own.
#pragma once
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

}  // namespace lp::peers
