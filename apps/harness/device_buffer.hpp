// Owning device allocation for studies' points. An allocation that does not fit throws
// harness::OutOfMemory, so the runner records the point as skipped and goes on.
#pragma once
#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/common/cuda_check.cuh"
#include "study.hpp"

namespace harness {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) { resize(count); }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(DeviceBuffer&& o) noexcept : p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    reset();
    p_ = std::exchange(o.p_, nullptr);
    n_ = std::exchange(o.n_, 0);
    return *this;
  }
  void resize(std::size_t count) {
    reset();
    if (count == 0) return;
    cudaError_t e = cudaMalloc(&p_, count * sizeof(T));
    if (e == cudaErrorMemoryAllocation) {
      cudaGetLastError();  // allocation failures are not sticky; clear it for the next call
      p_ = nullptr;
      throw OutOfMemory("cudaMalloc of " + std::to_string(count * sizeof(T) >> 20) + " MiB");
    }
    LP_CUDA(e);
    n_ = count;
  }
  void reset() {
    if (p_) cudaFree(p_);
    p_ = nullptr;
    n_ = 0;
  }
  void upload(const std::vector<T>& h) {
    resize(h.size());
    if (n_) LP_CUDA(cudaMemcpy(p_, h.data(), n_ * sizeof(T), cudaMemcpyHostToDevice));
  }
  std::vector<T> download() const {
    std::vector<T> h(n_);
    if (n_) LP_CUDA(cudaMemcpy(h.data(), p_, n_ * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
  }
  // Fill with 0xff bytes, so an element a kernel forgot to write is caught by validation.
  void poison() {
    if (n_) LP_CUDA(cudaMemset(p_, 0xff, n_ * sizeof(T)));
  }
  T* get() const { return p_; }
  std::size_t size() const { return n_; }

 private:
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

// First index where `got` differs from `want`, formatted for a validation message; "" if equal.
template <class T, class Fmt>
std::string first_mismatch(const std::vector<T>& want, const std::vector<T>& got, const std::string& what, Fmt fmt) {
  if (want.size() != got.size())
    return what + ": size " + std::to_string(got.size()) + ", expected " + std::to_string(want.size());
  for (std::size_t i = 0; i < want.size(); ++i)
    if (!(want[i] == got[i]))
      return what + "[" + std::to_string(i) + "]: expected " + fmt(want[i]) + ", got " + fmt(got[i]);
  return "";
}

}  // namespace harness
