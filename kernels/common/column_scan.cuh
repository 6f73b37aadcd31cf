// Ours: the exclusive prefix sum of a row-major matrix taken in column-major order, the matrix
// staying row-major, out[r][c] = (sum of columns < c) + (sum of rows < r in column c). He et al.'s
// split (3.1.4) scans its [fanout x blocks] matrix partition-major; a block that owns a row of it
// (kernels/join/split_staged.cuh) then writes and reads its row as one coalesced run, where the
// partition-major layout gives it one 4-byte cell a partition, each a column's length apart.
// Three steps, each reading rows whole: every warp sums one band of rows (8 to 64) of a 32-column
// strip (a lane a column) into a small column-major matrix of band sums; CUB scans that; every warp
// walks its band again from its band's base. The matrix is read twice and written once (CUB's scan
// of the partition-major matrix reads and writes it once), but in whole 128-byte rows.
#pragma once
#include <cub/device/device_scan.cuh>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>

#include "carve.hpp"
#include "cuda_check.cuh"
#include "scan_bytes.cuh"

namespace lp {

namespace column_scan_detail {

constexpr int kWarps = 8;              // warps a block, each one (band, strip)
constexpr std::int64_t kWarpsWanted = 4096;  // enough to fill a GPU's SMs several times over

// Rows a warp walks: 64 where the matrix is wide enough to give kWarpsWanted warps (few band sums),
// down to 8 where it is narrow (fanout 16: one strip), so that the walks stay short and many.
struct Shape {
  std::int64_t rows, cols, strips, band_rows, bands;
  Shape(std::int64_t r, std::int64_t c) : rows(r), cols(c), strips((c + 31) / 32), band_rows(8) {
    while (band_rows < 64 && 2 * band_rows * kWarpsWanted <= rows * strips) band_rows *= 2;
    bands = (rows + band_rows - 1) / band_rows;
  }
  std::int64_t warps() const { return strips * bands; }
  int grid() const { return int((warps() + kWarps - 1) / kWarps); }
};

// The warp's (band, strip) and the lane's column; neighbouring warps take neighbouring strips of a band.
struct Walk {
  std::int64_t band, col, r0, r1;
  bool live;
  __device__ Walk(std::int64_t rows, std::int64_t cols, std::int64_t strips, std::int64_t band_rows, std::int64_t bands) {
    const std::int64_t w = std::int64_t(blockIdx.x) * kWarps + threadIdx.x / 32;
    band = w / strips;
    col = (w % strips) * 32 + threadIdx.x % 32;
    live = band < bands && col < cols;
    r0 = band * band_rows;
    r1 = live ? std::min(rows, r0 + band_rows) : r0;
  }
};

static __global__ void __launch_bounds__(kWarps * 32)
    band_sums_kernel(const std::uint32_t* __restrict__ a, std::int64_t rows, std::int64_t cols, std::int64_t strips, std::int64_t band_rows,
                     std::int64_t bands, std::uint32_t* __restrict__ sums) {
  const Walk w(rows, cols, strips, band_rows, bands);
  std::uint32_t s = 0;
#pragma unroll 8
  for (std::int64_t r = w.r0; r < w.r1; ++r) s += a[r * cols + w.col];
  if (w.live) sums[w.col * bands + w.band] = s;
}

static __global__ void __launch_bounds__(kWarps * 32)
    band_apply_kernel(const std::uint32_t* __restrict__ a, std::int64_t rows, std::int64_t cols, std::int64_t strips, std::int64_t band_rows,
                      std::int64_t bands, const std::uint32_t* __restrict__ bases, std::uint32_t* __restrict__ out) {
  const Walk w(rows, cols, strips, band_rows, bands);
  if (!w.live) return;
  std::uint32_t run = bases[w.col * bands + w.band];
#pragma unroll 8
  for (std::int64_t r = w.r0; r < w.r1; ++r) {
    const std::uint32_t v = a[r * cols + w.col];
    out[r * cols + w.col] = run;
    run += v;
  }
}

// The scratch's layout: the band sums, their scan, CUB's temporary storage.
struct Scratch {
  std::uint32_t *sums, *bases;
  void* cub;
  std::size_t cub_bytes, total;
  Scratch(void* base, const Shape& s, std::size_t bytes) {
    const std::size_t cells = std::size_t(s.cols * s.bands);
    Carve c(base);
    sums = c.take<std::uint32_t>(cells);
    bases = c.take<std::uint32_t>(cells);
    cub = c.take_rest(bytes, [&] { return exclusive_sum_u32_bytes(std::int64_t(cells)); }, cub_bytes);
    total = c.used();
  }
};

}  // namespace column_scan_detail

inline std::size_t column_scan_scratch_bytes(std::int64_t rows, std::int64_t cols) {
  return column_scan_detail::Scratch(nullptr, column_scan_detail::Shape(rows, cols), 0).total;
}

// a, out: rows x cols row-major (out may not alias a); the sums must fit in 32 bits; scratch:
// column_scan_scratch_bytes(rows, cols) bytes.
inline void column_exclusive_scan(const std::uint32_t* a, std::int64_t rows, std::int64_t cols, std::uint32_t* out, void* scratch,
                                  std::size_t scratch_bytes, cudaStream_t stream) {
  namespace d = column_scan_detail;
  if (rows <= 0 || cols <= 0) return;
  const d::Shape s(rows, cols);
  const d::Scratch w(scratch, s, scratch_bytes);
  d::band_sums_kernel<<<s.grid(), d::kWarps * 32, 0, stream>>>(a, rows, cols, s.strips, s.band_rows, s.bands, w.sums);
  LP_CUDA_LAUNCH("column_scan band_sums_kernel");
  std::size_t bytes = w.cub_bytes;
  LP_CUDA(cub::DeviceScan::ExclusiveSum(w.cub, bytes, w.sums, w.bases, int(cols * s.bands), stream));
  d::band_apply_kernel<<<s.grid(), d::kWarps * 32, 0, stream>>>(a, rows, cols, s.strips, s.band_rows, s.bands, w.bases, out);
  LP_CUDA_LAUNCH("column_scan band_apply_kernel");
}

}  // namespace lp
