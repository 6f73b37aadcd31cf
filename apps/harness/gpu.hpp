// What the harness needs from the GPU, independent of any algorithm: device facts for the
// metadata, event timing, the L2 flush, and the bandwidth ceilings measured in the same run.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace harness {

struct GpuInfo {
  bool present = false;
  std::string absent_reason;  // when !present
  int device = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sms = 0;
  std::int64_t l2_bytes = 0;
  std::int64_t memory_bytes = 0;
  int sm_clock_mhz = 0, mem_clock_mhz = 0, bus_width_bits = 0;
  int driver_version = 0, runtime_version = 0;
  std::string cccl_version;
};

// A CUDA version number (12040) as "12.4".
std::string version_string(int v);

// Selects `device` and reads its properties; present=false (with the reason) when there is no
// usable device. Throws UsageError when devices exist but `device` is not one of them.
GpuInfo open_gpu(int device);

struct Ceilings {
  double read_GBps = 0;    // streaming read of a buffer far larger than L2
  double copy_GBps = 0;         // max of the two below: the ceiling that fractions refer to
  double copy_kernel_GBps = 0;  // our copy kernel, bytes read + bytes written
  double memcpy_GBps = 0;       // cudaMemcpy device to device, bytes read + bytes written
  std::int64_t bytes = 0;  // buffer size used
};
// Medians of repeated event timings, cold (buffers much larger than L2).
Ceilings measure_ceilings(std::int64_t l2_bytes, std::int64_t free_bytes_hint = 0);

// Times regions on one stream with CUDA events; flushes L2 on request.
class GpuTimer {
 public:
  explicit GpuTimer(std::int64_t l2_bytes);
  ~GpuTimer();
  GpuTimer(const GpuTimer&) = delete;
  GpuTimer& operator=(const GpuTimer&) = delete;
  void* stream() const { return stream_; }
  // Enqueued on the stream, outside the timed region: this device's L2, and that of every device
  // registered with flush_l2_also (the timed region then starts after those flushes too).
  void flush_l2();
  void start();
  double stop_ms();  // synchronises and checks for errors of the timed work

 private:
  void* stream_ = nullptr;
  void* start_ = nullptr;
  void* stop_ = nullptr;
  void* flush_buf_ = nullptr;
  std::int64_t flush_bytes_ = 0;
  struct Other;  // another device's flush buffer, stream and event, made at its first flush
  std::vector<Other*> others_;
};

// How GpuTimer::flush_l2 empties L2, as results record it: "read" (the default: a buffer twice its
// size read, leaving clean lines) or "write" (LP_L2_FLUSH=write: the same buffer written, the method
// of the results recorded before the files said; its dirty lines were written back in the next
// timed run).
std::string l2_flush_method();

// A device whose L2 every GpuTimer::flush_l2 of this process also flushes: the other GPUs of a
// multi-GPU point (DeviceGroup registers them), so that a cold repetition is cold on each GPU it uses.
void flush_l2_also(int device);

// GPU time in microseconds of what `enqueue` puts on the stream it is given, as a node of a CUDA
// graph: 16 enqueues captured into one graph, the median over a few launches of it divided by 16, so
// that the host's launch latency (which a kernel inside auto's graph does not pay) stays out.
double time_enqueued_us(const std::function<void(void* stream)>& enqueue);

// Bytes free on the current device (0 without one).
std::int64_t free_device_bytes();

// After an exception from GPU work: clears a non-sticky error (a bad launch configuration, an
// allocation that failed) and tells whether the context still works (a synchronisation and a
// trivial launch succeed). False after a sticky error (an illegal address, a trap): CUDA works
// again only in a new process.
bool recover_context();

// Makes the current device look as if only `limit` bytes were free to this process, by reserving
// the rest of what is free for as long as the object lives (the config's device_memory_limit):
// every allocation, the peers' own included, then fails where it would on a smaller GPU.
// limit <= 0: no cap.
class DeviceMemoryLimit {
 public:
  explicit DeviceMemoryLimit(std::int64_t limit);
  ~DeviceMemoryLimit();
  DeviceMemoryLimit(const DeviceMemoryLimit&) = delete;
  DeviceMemoryLimit& operator=(const DeviceMemoryLimit&) = delete;
  std::int64_t reserved() const { return reserved_; }

 private:
  void* ballast_ = nullptr;
  std::int64_t reserved_ = 0;
};

// The reliability tests' fault injection (LP_INJECT_FAULT, see the README): enqueues on `stream`
// a fault of `kind`: "launch", a launch with an impossible configuration (an error that leaves
// the context usable); "trap", a kernel that traps (a sticky error: the context is lost). Throws
// the lp::CudaError the fault raises (at once for "launch", at the next synchronisation for "trap").
void inject_fault(const std::string& kind, void* stream);

}  // namespace harness
