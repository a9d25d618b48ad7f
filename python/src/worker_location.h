// Where the CUDA backends find gemmtune-worker from a Python process.
#pragma once

namespace gemmtune::python {

// The CUDA backends check each JIT-compiled kernel in gemmtune-worker, a separate process, and
// look for it beside the running executable: in a Python process, beside /usr/bin/python3,
// where it is not, and the kernels would be checked in the caller's own CUDA context (a kernel
// that faults would break it). When GEMMTUNE_WORKER is unset and this build has the CUDA
// backends, this sets it to the worker of the module's own tree: the first bin/gemmtune-worker
// in a folder above the module (build/bin beside build/python; PREFIX/bin above
// PREFIX/lib/python3/dist-packages).
void point_at_worker();

}  // namespace gemmtune::python
