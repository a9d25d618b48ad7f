// CUDA runtime return codes as Status, naming the call that failed. (The driver API is
// resolved at run time, not linked; mma_backend.cc checks its results itself. cuBLASLt and
// NVRTC are opened on first use: their results are checked in cublaslt_library.h and
// nvrtc_library.h.)
#pragma once

#include <cuda_runtime.h>

#include <string>

#include "gemmtune/status.h"

namespace gemmtune::cuda {

inline Status check(cudaError_t code, const char* what) {
  if (code == cudaSuccess) return Status::ok();
  return Status(ErrorCode::unavailable, std::string(what) + ": " + cudaGetErrorName(code) + " (" +
                                            cudaGetErrorString(code) + ")");
}

// Makes `device` the calling thread's current device where it is not: what a call allocates
// (a buffer grown, a workspace for a new stream) lies on the current device.
inline Status make_device_current(int device) {
  int current = -1;
  if (cudaGetDevice(&current) == cudaSuccess && current == device) return Status::ok();
  return check(cudaSetDevice(device), "cudaSetDevice");
}

}  // namespace gemmtune::cuda
