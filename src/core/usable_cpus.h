// How many CPUs this process may run on, and running work on them.
#pragma once

#include <functional>

namespace gemmtune {

// The CPUs of the process's affinity mask (taskset, a container's cpuset), at least 1. Not
// std::thread::hardware_concurrency(): libstdc++ counts every online CPU there, so a process
// confined to one core planned two threads that took turns on it.
int usable_cpus();

// Runs work(0) .. work(workers - 1) at once, work(0) on the calling thread, and returns when
// all are done: the host-side helpers that spread over the usable CPUs (the reference GEMM,
// the random operands).
void run_workers(int workers, const std::function<void(int)>& work);

}  // namespace gemmtune
