// The threads the CPU baselines run on (beyond the thesis): how many, and running one function on
// each of them, each pinned to a CPU of its own.
#pragma once
#include <algorithm>
#include <thread>
#include <vector>
#if defined(__linux__)
#include <pthread.h>
#include <sched.h>
#endif

namespace lp::cpu {

inline int resolve_threads(int threads) {
  return threads > 0 ? threads : std::max(1, int(std::thread::hardware_concurrency()));
}

// Runs f(t) for t in [0, threads) on threads-1 new threads and the caller. Thread t runs on the
// t-th CPU this process may use (its affinity mask, so `taskset` still narrows it), where there
// are at least as many CPUs as threads; otherwise the scheduler places them; the caller's own
// affinity is restored when they are done. Unpinned, the GPU host's 16 virtual CPUs gave 16
// threads 5 GB/s of private-bucket multireduce in one call where pinned threads reached 26-33 GB/s
// in the same run (results/h200-host/probe_threads.txt): the guest's scheduler moved threads away
// from their cache-resident buckets and stacked them on busy CPUs.
template <class F>
void run_threads(int threads, F f) {
  std::vector<int> cpus;  // the CPU of each thread; empty: not pinned
#if defined(__linux__)
  cpu_set_t caller;
  const bool known = sched_getaffinity(0, sizeof(caller), &caller) == 0;
  if (known && CPU_COUNT(&caller) >= threads)
    for (int cpu = 0; cpu < CPU_SETSIZE && int(cpus.size()) < threads; ++cpu)
      if (CPU_ISSET(cpu, &caller)) cpus.push_back(cpu);
#endif
  auto pinned = [&](int t) {
#if defined(__linux__)
    if (!cpus.empty()) {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpus[std::size_t(t)], &one);
      pthread_setaffinity_np(pthread_self(), sizeof(one), &one);
    }
#endif
    f(t);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(pinned, t);
  pinned(0);
  for (auto& th : pool) th.join();
#if defined(__linux__)
  if (!cpus.empty()) pthread_setaffinity_np(pthread_self(), sizeof(caller), &caller);
#endif
}

}  // namespace lp::cpu
