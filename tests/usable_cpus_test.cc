// usable_cpus() counts the CPUs a process may run on, not every online CPU: a process under
// taskset or in a container's cpuset plans its threads on what it has.
#include "core/usable_cpus.h"

#include <gtest/gtest.h>
#include <sched.h>

#include <thread>

#include "gemmtune/device.h"

namespace gemmtune {
namespace {

int affinity_count() {
  cpu_set_t set;
  CPU_ZERO(&set);
  EXPECT_EQ(sched_getaffinity(0, sizeof(set), &set), 0);
  return CPU_COUNT(&set);
}

TEST(UsableCpus, CountsTheAffinityMask) {
  EXPECT_EQ(usable_cpus(), affinity_count());
  EXPECT_GE(usable_cpus(), 1);
  // The CPU device plans its threads (config spaces, device class) on the same count.
  EXPECT_EQ(host_cpu().logical_cores, usable_cpus());
}

// A thread confined to each one of the process's CPUs in turn sees exactly one.
TEST(UsableCpus, AThreadConfinedToOneCpuSeesOne) {
  cpu_set_t all;
  CPU_ZERO(&all);
  ASSERT_EQ(sched_getaffinity(0, sizeof(all), &all), 0);
  int checked = 0;
  for (int cpu = 0; cpu < CPU_SETSIZE; ++cpu) {
    if (!CPU_ISSET(cpu, &all)) continue;
    int seen = -1;
    std::thread confined([&] {
      cpu_set_t one;
      CPU_ZERO(&one);
      CPU_SET(cpu, &one);
      if (sched_setaffinity(0, sizeof(one), &one) == 0) seen = usable_cpus();
    });
    confined.join();
    EXPECT_EQ(seen, 1) << "confined to cpu " << cpu;
    ++checked;
  }
  EXPECT_EQ(checked, affinity_count());
  // The confinement was the thread's own: this one still sees them all.
  EXPECT_EQ(usable_cpus(), checked);
}

}  // namespace
}  // namespace gemmtune
