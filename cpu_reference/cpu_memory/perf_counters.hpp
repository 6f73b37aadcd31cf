// Hardware counters for thesis Table 2.1 (TLB load miss rate) and the cache-miss rates beside it,
// through perf_event_open. Virtual machines and locked-down kernels often refuse them: each
// counter then reports why, and a caller records "unavailable", never 0.
#pragma once
#include <cstdint>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#if defined(__linux__)
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

namespace lp::cpu {

struct CounterResult {
  std::string name;
  bool available = false;
  std::uint64_t count = 0;
  std::string why;  // when not available
};

// dTLB load misses, last-level-cache read misses and L1D read misses of this process and the
// threads it starts while counting (inherit), user space only (what perf_event_paranoid = 2 allows).
class PerfCounters {
 public:
  PerfCounters() {
#if defined(__linux__)
    add("dtlb_misses", PERF_COUNT_HW_CACHE_DTLB);
    add("llc_misses", PERF_COUNT_HW_CACHE_LL);
    add("l1d_misses", PERF_COUNT_HW_CACHE_L1D);
#else
    for (const char* n : {"dtlb_misses", "llc_misses", "l1d_misses"}) c_.push_back({n, -1, "perf_event_open needs Linux"});
#endif
  }
  PerfCounters(const PerfCounters&) = delete;
  PerfCounters& operator=(const PerfCounters&) = delete;
  ~PerfCounters() {
#if defined(__linux__)
    for (auto& c : c_)
      if (c.fd >= 0) close(c.fd);
#endif
  }

  void start() {
#if defined(__linux__)
    for (auto& c : c_)
      if (c.fd >= 0) ioctl(c.fd, PERF_EVENT_IOC_RESET, 0), ioctl(c.fd, PERF_EVENT_IOC_ENABLE, 0);
#endif
  }

  std::vector<CounterResult> stop() {
    std::vector<CounterResult> out;
    for (auto& c : c_) {
      CounterResult r{c.name, false, 0, c.why};
#if defined(__linux__)
      if (c.fd >= 0) {
        ioctl(c.fd, PERF_EVENT_IOC_DISABLE, 0);
        std::uint64_t v[3] = {0, 0, 0};  // value, time enabled, time running
        if (read(c.fd, v, sizeof v) != ssize_t(sizeof v)) {
          r.why = "read failed";
        } else if (v[2] == 0) {
          r.why = "never scheduled on the PMU";  // e.g. a VM exposing the event but no counters
        } else {
          r.available = true;
          // Multiplexed: scale by enabled/running, as perf stat does.
          r.count = v[2] < v[1] ? std::uint64_t(double(v[0]) * double(v[1]) / double(v[2])) : v[0];
        }
      }
#endif
      out.push_back(r);
    }
    return out;
  }

 private:
  struct Counter {
    std::string name;
    int fd = -1;
    std::string why;
  };
#if defined(__linux__)
  void add(const char* name, std::uint64_t cache) {
    perf_event_attr a;
    std::memset(&a, 0, sizeof a);
    a.size = sizeof a;
    a.type = PERF_TYPE_HW_CACHE;
    a.config = cache | (std::uint64_t(PERF_COUNT_HW_CACHE_OP_READ) << 8) | (std::uint64_t(PERF_COUNT_HW_CACHE_RESULT_MISS) << 16);
    a.disabled = 1;
    a.inherit = 1;
    a.exclude_kernel = 1;
    a.exclude_hv = 1;
    a.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
    const int fd = int(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0));
    c_.push_back({name, fd, fd < 0 ? std::string("perf_event_open refused: ") + std::strerror(errno) : ""});
  }
#endif
  std::vector<Counter> c_;
};

}  // namespace lp::cpu
