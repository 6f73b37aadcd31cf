// Every CUDA call and every launch is checked: a failure throws lp::CudaError naming the call and
// the place, so no error is silently dropped and an out-of-memory can be told from a crash.
#pragma once
#include <cuda_runtime_api.h>

#include <stdexcept>
#include <string>

namespace lp {

struct CudaError : std::runtime_error {
  cudaError_t code;
  CudaError(cudaError_t c, const std::string& what) : std::runtime_error(what), code(c) {}
};

inline void cuda_check(cudaError_t e, const char* what, const char* file, int line) {
  if (e != cudaSuccess)
    throw CudaError(e, std::string(what) + " failed at " + file + ":" + std::to_string(line) + ": " +
                           cudaGetErrorName(e) + " (" + cudaGetErrorString(e) + ")");
}

}  // namespace lp

#define LP_CUDA(call) ::lp::cuda_check((call), #call, __FILE__, __LINE__)
// After a <<<>>> launch: catches bad launch configurations at once (execution errors surface at
// the next synchronising call, which is checked too).
#define LP_CUDA_LAUNCH(what) ::lp::cuda_check(cudaGetLastError(), "launch of " what, __FILE__, __LINE__)
