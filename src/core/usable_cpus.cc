#include "usable_cpus.h"

#include <sched.h>

#include <algorithm>
#include <thread>
#include <vector>

namespace gemmtune {

int usable_cpus() {
  cpu_set_t set;
  CPU_ZERO(&set);
  if (sched_getaffinity(0, sizeof(set), &set) == 0) {
    const int count = CPU_COUNT(&set);
    if (count > 0) return count;
  }
  return int(std::max(1u, std::thread::hardware_concurrency()));
}

void run_workers(int workers, const std::function<void(int)>& work) {
  std::vector<std::thread> pool;
  for (int t = 1; t < workers; ++t) pool.emplace_back(work, t);
  work(0);
  for (std::thread& thread : pool) thread.join();
}

}  // namespace gemmtune
