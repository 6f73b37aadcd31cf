#include <cuda/version>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "errors.hpp"
#include "gpu.hpp"
#include "multigpu.hpp"
#include "stats.hpp"
#include "kernels/common/cuda_check.cuh"

namespace harness {

namespace {

constexpr int kSinkWords = 1024;  // read_kernel's sink

// A read of n int4s: 16-byte loads, grid-stride, one word out per block (practically never
// written, sink[blockIdx.x % kSinkWords]) so the compiler keeps the loads. kStreaming: evict-first
// loads (the read ceiling); plain loads allocate in L2 as a variant's do (the flush).
template <bool kStreaming>
__global__ void read_kernel(const int4* __restrict__ in, std::int64_t n, int* __restrict__ sink) {
  int acc = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x) {
    const int4 v = kStreaming ? __ldcs(in + i) : in[i];
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x7fffffff) sink[blockIdx.x % kSinkWords] = acc;
}

// Four 16-byte loads in flight per thread before the first store: enough bytes in flight per SM
// to reach the copy rate of cudaMemcpy.
__global__ void copy_kernel(const int4* __restrict__ in, int4* __restrict__ out, std::int64_t n) {
  const std::int64_t stride = std::int64_t(gridDim.x) * blockDim.x;
  std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x;
  for (; i + 3 * stride < n; i += 4 * stride) {
    int4 v0 = __ldcs(in + i), v1 = __ldcs(in + i + stride), v2 = __ldcs(in + i + 2 * stride), v3 = __ldcs(in + i + 3 * stride);
    __stcs(out + i, v0);
    __stcs(out + i + stride, v1);
    __stcs(out + i + 2 * stride, v2);
    __stcs(out + i + 3 * stride, v3);
  }
  for (; i < n; i += stride) __stcs(out + i, __ldcs(in + i));
}

// The L2 flush between timed repetitions: a buffer twice the size of L2, read with plain loads
// (which allocate in L2 as a variant's do), evicts what the previous repetition left there and
// leaves L2 holding clean lines. Written instead (LP_L2_FLUSH=write, the harness's flush before
// this one), it left up to an L2 of dirty lines behind, whose write-back then ran inside the next
// timed region, on the variant's account: 7-12 us a run on the H200 at 2^26 inputs, 8-11% of a
// histogram's or multireduce's time, 1-4% of a sorted search's, nothing of the latency-bound scans
// (results/h200/*/probes/ceiling_rows_write_flush.json beside each study's ceiling_rows.json).
// read_kernel<false> is that read.

// LP_L2_FLUSH=write: the earlier flush, kept to rerun a result file's method (its salt changes the
// bytes each time, so no write is skipped as already there).
__global__ void flush_by_write_kernel(int4* buf, std::int64_t n, int salt) {
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < n;
       i += std::int64_t(gridDim.x) * blockDim.x)
    buf[i] = make_int4(salt, salt, salt, salt);
}

int grid_for(std::int64_t n, int threads) {
  int dev = 0, sms = 0;
  LP_CUDA(cudaGetDevice(&dev));
  LP_CUDA(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
  std::int64_t want = (n + threads - 1) / threads;
  return static_cast<int>(std::max<std::int64_t>(1, std::min<std::int64_t>(want, std::int64_t(sms) * 8)));
}

__global__ void noop_kernel() {}

__global__ void trap_kernel() { __trap(); }

}  // namespace

bool recover_context() {
  cudaGetLastError();  // a non-sticky error is cleared here; a sticky one comes back below
  if (cudaDeviceSynchronize() != cudaSuccess) return false;
  noop_kernel<<<1, 1>>>();
  if (cudaGetLastError() != cudaSuccess) return false;
  return cudaDeviceSynchronize() == cudaSuccess && cudaGetLastError() == cudaSuccess;
}

DeviceMemoryLimit::DeviceMemoryLimit(std::int64_t limit) {
  if (limit <= 0) return;
  size_t free = 0, total = 0;
  LP_CUDA(cudaMemGetInfo(&free, &total));
  if (std::int64_t(free) <= limit) return;  // already no more than the cap
  const std::int64_t bytes = std::int64_t(free) - limit;
  LP_CUDA(cudaMalloc(&ballast_, bytes));
  reserved_ = bytes;
}

DeviceMemoryLimit::~DeviceMemoryLimit() {
  if (ballast_) cudaFree(ballast_);  // destructors must not throw
}

void inject_fault(const std::string& kind, void* stream) {
  auto s = static_cast<cudaStream_t>(stream);
  try {
    if (kind == "launch") {
      noop_kernel<<<1, 4096, 0, s>>>();  // more threads than a block may have: cudaErrorInvalidConfiguration
      LP_CUDA_LAUNCH("noop_kernel");
    } else if (kind == "trap") {
      trap_kernel<<<1, 1, 0, s>>>();
      LP_CUDA_LAUNCH("trap_kernel");
      LP_CUDA(cudaStreamSynchronize(s));
    } else {
      throw std::invalid_argument("LP_INJECT_FAULT: unknown fault kind '" + kind + "' (launch or trap)");
    }
  } catch (const lp::CudaError& e) {
    throw lp::CudaError(e.code, std::string("injected fault (") + kind + "): " + e.what());
  }
}

std::string version_string(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

GpuInfo open_gpu(int device) {
  GpuInfo g;
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    // The runtime reports a machine without a driver as "driver version is insufficient": tell that
    // case (no GPU driver, so no GPU) from a driver older than the runtime and from no device.
    int driver = 0, runtime = 0;
    cudaDriverGetVersion(&driver);
    cudaRuntimeGetVersion(&runtime);
    if (e == cudaErrorInsufficientDriver && driver == 0)
      g.absent_reason = "no CUDA device found (no GPU driver is installed)";
    else if (e == cudaErrorInsufficientDriver)
      g.absent_reason = "the GPU driver (CUDA " + version_string(driver) + ") is older than this build's CUDA runtime (" +
                        version_string(runtime) + "): update the driver";
    else if (e == cudaErrorNoDevice || e == cudaSuccess)
      g.absent_reason = "no CUDA device found";
    else
      g.absent_reason = std::string("no usable CUDA device: ") + cudaGetErrorString(e);
    cudaGetLastError();  // this error is not sticky: clear it so that later calls do not report it again
    return g;
  }
  if (device < 0 || device >= count)
    throw UsageError("--device: " + std::to_string(device) + " is out of range (" + std::to_string(count) + " device(s))");
  LP_CUDA(cudaSetDevice(device));
  cudaDeviceProp p{};
  LP_CUDA(cudaGetDeviceProperties(&p, device));
  g.present = true;
  g.device = device;
  g.name = p.name;
  g.cc_major = p.major;
  g.cc_minor = p.minor;
  g.sms = p.multiProcessorCount;
  g.l2_bytes = p.l2CacheSize;
  g.memory_bytes = static_cast<std::int64_t>(p.totalGlobalMem);
  int clk = 0, mclk = 0, bus = 0;
  cudaDeviceGetAttribute(&clk, cudaDevAttrClockRate, device);
  cudaDeviceGetAttribute(&mclk, cudaDevAttrMemoryClockRate, device);
  cudaDeviceGetAttribute(&bus, cudaDevAttrGlobalMemoryBusWidth, device);
  g.sm_clock_mhz = clk / 1000;
  g.mem_clock_mhz = mclk / 1000;
  g.bus_width_bits = bus;
  LP_CUDA(cudaDriverGetVersion(&g.driver_version));
  LP_CUDA(cudaRuntimeGetVersion(&g.runtime_version));
  g.cccl_version = std::to_string(CCCL_MAJOR_VERSION) + "." + std::to_string(CCCL_MINOR_VERSION) + "." +
                   std::to_string(CCCL_PATCH_VERSION);
  return g;
}

std::int64_t free_device_bytes() {
  size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) != cudaSuccess) return 0;
  return static_cast<std::int64_t>(free);
}

Ceilings measure_ceilings(std::int64_t l2_bytes, std::int64_t free_bytes_hint) {
  // 16x L2 (800 MiB on an H100) keeps L2 hits negligible; shrink if memory is short.
  std::int64_t bytes = std::max<std::int64_t>(16 * l2_bytes, 256ll << 20);
  if (free_bytes_hint > 0) bytes = std::min(bytes, free_bytes_hint / 4);
  bytes = bytes / 16 * 16;
  std::int64_t n = bytes / 16;
  int4 *a = nullptr, *b = nullptr;
  int* sink = nullptr;
  cudaEvent_t t0, t1;
  LP_CUDA(cudaMalloc(&a, bytes));
  LP_CUDA(cudaMalloc(&b, bytes));
  LP_CUDA(cudaMalloc(&sink, kSinkWords * sizeof(int)));
  LP_CUDA(cudaMemset(a, 1, bytes));
  LP_CUDA(cudaEventCreate(&t0));
  LP_CUDA(cudaEventCreate(&t1));
  const int threads = 512;
  int grid = grid_for(n, threads);
  auto time = [&](auto&& body) {
    std::vector<double> ms;
    for (int r = 0; r < 23; ++r) {
      LP_CUDA(cudaEventRecord(t0));
      body();
      LP_CUDA(cudaEventRecord(t1));
      LP_CUDA(cudaEventSynchronize(t1));
      float x = 0;
      LP_CUDA(cudaEventElapsedTime(&x, t0, t1));
      if (r >= 3) ms.push_back(x);  // the first three are warm-up
    }
    return TimeStats::of(ms).median;
  };
  Ceilings c;
  c.bytes = bytes;
  double read_ms = time([&] {
    read_kernel<true><<<grid, threads>>>(a, n, sink);
    LP_CUDA_LAUNCH("read_kernel");
  });
  double copy_ms = time([&] {
    copy_kernel<<<grid, threads>>>(a, b, n);
    LP_CUDA_LAUNCH("copy_kernel");
  });
  double memcpy_ms = time([&] { LP_CUDA(cudaMemcpyAsync(b, a, bytes, cudaMemcpyDeviceToDevice)); });
  c.read_GBps = bytes / (read_ms * 1e6);
  c.copy_kernel_GBps = 2.0 * bytes / (copy_ms * 1e6);
  c.memcpy_GBps = 2.0 * bytes / (memcpy_ms * 1e6);
  // The ceiling is the better of the two: a fraction of it never flatters a variant.
  c.copy_GBps = std::max(c.copy_kernel_GBps, c.memcpy_GBps);
  LP_CUDA(cudaEventDestroy(t0));
  LP_CUDA(cudaEventDestroy(t1));
  LP_CUDA(cudaFree(a));
  LP_CUDA(cudaFree(b));
  LP_CUDA(cudaFree(sink));
  return c;
}

namespace {
// A buffer that evicts an L2 of l2_bytes: twice its size, at least 64 MiB, in int4s.
std::int64_t flush_bytes_for(std::int64_t l2_bytes) { return std::max<std::int64_t>(2 * l2_bytes, 64ll << 20) / 16 * 16; }
// The buffer with read_kernel's sink words after it, zeroed once (the reads see defined data).
void* alloc_flush(std::int64_t bytes) {
  void* buf = nullptr;
  LP_CUDA(cudaMalloc(&buf, bytes + kSinkWords * sizeof(int)));
  LP_CUDA(cudaMemset(buf, 0, bytes + kSinkWords * sizeof(int)));
  return buf;
}
bool flush_by_write() {
  static const bool w = [] {
    const char* e = std::getenv("LP_L2_FLUSH");
    return e && std::string(e) == "write";
  }();
  return w;
}
void launch_flush(void* buf, std::int64_t bytes, int salt, cudaStream_t stream) {
  const std::int64_t n = bytes / 16;
  if (flush_by_write()) {
    flush_by_write_kernel<<<grid_for(n, 512), 512, 0, stream>>>(static_cast<int4*>(buf), n, salt);
  } else {
    int* sink = reinterpret_cast<int*>(static_cast<char*>(buf) + bytes);
    read_kernel<false><<<grid_for(n, 512), 512, 0, stream>>>(static_cast<const int4*>(buf), n, sink);
  }
  LP_CUDA_LAUNCH("flush_kernel");
}
}  // namespace

std::string l2_flush_method() { return flush_by_write() ? "write" : "read"; }

GpuTimer::GpuTimer(std::int64_t l2_bytes) {
  cudaStream_t s;
  cudaEvent_t e0, e1;
  LP_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  LP_CUDA(cudaEventCreate(&e0));
  LP_CUDA(cudaEventCreate(&e1));
  stream_ = s;
  start_ = e0;
  stop_ = e1;
  flush_bytes_ = flush_bytes_for(l2_bytes);
  flush_buf_ = alloc_flush(flush_bytes_);
}

namespace {
std::mutex flush_mu;
std::set<int>& flush_devices() {
  static std::set<int> d;
  return d;
}
}  // namespace

void flush_l2_also(int device) {
  std::lock_guard<std::mutex> lock(flush_mu);
  flush_devices().insert(device);
}

struct GpuTimer::Other {
  int device = 0;
  void* buf = nullptr;
  std::int64_t bytes = 0;
  cudaStream_t stream = nullptr;
  cudaEvent_t done = nullptr;
};

GpuTimer::~GpuTimer() {
  // Destructors must not throw; errors here would only repeat one already reported.
  for (Other* o : others_) {
    DeviceScope on(o->device);
    cudaFree(o->buf);
    cudaEventDestroy(o->done);
    cudaStreamDestroy(o->stream);
    delete o;
  }
  cudaFree(flush_buf_);
  cudaEventDestroy(static_cast<cudaEvent_t>(start_));
  cudaEventDestroy(static_cast<cudaEvent_t>(stop_));
  cudaStreamDestroy(static_cast<cudaStream_t>(stream_));
}

void GpuTimer::flush_l2() {
  static int salt = 0;
  launch_flush(flush_buf_, flush_bytes_, ++salt, static_cast<cudaStream_t>(stream_));
  std::set<int> devices;
  {
    std::lock_guard<std::mutex> lock(flush_mu);
    devices = flush_devices();
  }
  int own = 0;
  LP_CUDA(cudaGetDevice(&own));
  for (int d : devices) {
    if (d == own) continue;
    Other* o = nullptr;
    for (Other* have : others_)
      if (have->device == d) o = have;
    DeviceScope on(d);
    if (!o) {
      o = new Other;
      o->device = d;
      others_.push_back(o);
      int l2 = 0;
      LP_CUDA(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, d));
      o->bytes = flush_bytes_for(l2);
      o->buf = alloc_flush(o->bytes);
      LP_CUDA(cudaStreamCreateWithFlags(&o->stream, cudaStreamNonBlocking));
      LP_CUDA(cudaEventCreateWithFlags(&o->done, cudaEventDisableTiming));
    }
    launch_flush(o->buf, o->bytes, salt, o->stream);
    LP_CUDA(cudaEventRecord(o->done, o->stream));
    LP_CUDA(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream_), o->done, 0));
  }
}

void GpuTimer::start() { LP_CUDA(cudaEventRecord(static_cast<cudaEvent_t>(start_), static_cast<cudaStream_t>(stream_))); }

double GpuTimer::stop_ms() {
  LP_CUDA(cudaEventRecord(static_cast<cudaEvent_t>(stop_), static_cast<cudaStream_t>(stream_)));
  LP_CUDA(cudaEventSynchronize(static_cast<cudaEvent_t>(stop_)));
  LP_CUDA(cudaGetLastError());
  float ms = 0;
  LP_CUDA(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(start_), static_cast<cudaEvent_t>(stop_)));
  return ms;
}

double time_enqueued_us(const std::function<void(void* stream)>& enqueue) {
  constexpr int kBackToBack = 16, kTrials = 5;
  cudaStream_t s;
  cudaEvent_t e0, e1;
  cudaGraph_t graph = nullptr;
  cudaGraphExec_t exec = nullptr;
  LP_CUDA(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  LP_CUDA(cudaEventCreate(&e0));
  LP_CUDA(cudaEventCreate(&e1));
  auto release = [&] {
    if (exec) cudaGraphExecDestroy(exec);
    if (graph) cudaGraphDestroy(graph);
    cudaEventDestroy(e0), cudaEventDestroy(e1), cudaStreamDestroy(s);
  };
  std::vector<double> us;
  try {
    enqueue(s);  // first-use set-up (attributes, occupancy queries) stays out of the capture
    LP_CUDA(cudaStreamSynchronize(s));
    // As a graph's nodes, the way auto's graph runs the look: no host launch latency between them.
    LP_CUDA(cudaStreamBeginCapture(s, cudaStreamCaptureModeThreadLocal));
    try {
      for (int k = 0; k < kBackToBack; ++k) enqueue(s);
    } catch (...) {
      cudaGraph_t dropped = nullptr;
      cudaStreamEndCapture(s, &dropped);
      if (dropped) cudaGraphDestroy(dropped);
      throw;
    }
    LP_CUDA(cudaStreamEndCapture(s, &graph));
    LP_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    LP_CUDA(cudaGraphLaunch(exec, s));  // warm-up
    for (int t = 0; t < kTrials; ++t) {
      LP_CUDA(cudaEventRecord(e0, s));
      LP_CUDA(cudaGraphLaunch(exec, s));
      LP_CUDA(cudaEventRecord(e1, s));
      LP_CUDA(cudaEventSynchronize(e1));
      float ms = 0;
      LP_CUDA(cudaEventElapsedTime(&ms, e0, e1));
      us.push_back(ms * 1e3 / kBackToBack);
    }
  } catch (...) {
    cudaStreamSynchronize(s);
    release();
    throw;
  }
  release();
  std::nth_element(us.begin(), us.begin() + kTrials / 2, us.end());
  return us[kTrials / 2];
}

}  // namespace harness
