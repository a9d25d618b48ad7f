// How many CPUs this process may run on.
#pragma once

namespace gemmtune {

// The CPUs of the process's affinity mask (taskset, a container's cpuset), at least 1. Not
// std::thread::hardware_concurrency(): libstdc++ counts every online CPU there, so a process
// confined to one core planned two threads that took turns on it.
int usable_cpus();

}  // namespace gemmtune
