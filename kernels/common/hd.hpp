// Marks serial routines shared by CPU code and GPU kernels, so CPU tests cover what kernels run.
#pragma once
#if defined(__CUDACC__)
#define LP_HD __host__ __device__ __forceinline__
#else
#define LP_HD inline
#endif
