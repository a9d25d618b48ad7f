// Isolation of untrusted JIT kernels (pytorch#95542): before a freshly compiled kernel runs in
// the caller's CUDA context, a worker process with its own context loads it, runs it on
// random operands under a time limit and checks it against the reference. An illegal address,
// a trap or a hang then kills the worker, not the caller, and the config is marked bad.
#pragma once

#include <string>

#include "gemmtune/config.h"
#include "gemmtune/problem.h"
#include "gemmtune/status.h"

namespace gemmtune::cuda {

// True inside the worker process: backends there must not ask the worker again.
bool in_worker();

// Ok when the worker ran `backend` with `config` (compiled to the cubin cached under
// `cubin_key`) on `problem` (device `device_index`) and the result matched the reference; else
// why not ("worker: illegal memory access", "worker: timed out after 20 s", "worker: wrong
// result: ..."). A cubin the worker passed on this problem before, in this process or (marked in
// the cubin cache) an earlier one, is ok without asking again. When no worker can be started
// the answer is ok with a one-time warning: the kernel is then checked in process as usual.
Status verify_in_worker(int device_index, const Problem& problem, const std::string& backend,
                        const KernelConfig& config, const std::string& cubin_key);

}  // namespace gemmtune::cuda
