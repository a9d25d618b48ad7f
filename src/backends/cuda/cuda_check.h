// CUDA runtime and NVRTC return codes as Status, naming the call that failed. (The driver API
// is resolved at run time, not linked; mma_backend.cc checks its results itself. cuBLASLt is
// opened on first use: its statuses are checked in cublaslt_library.h.)
#pragma once

#include <cuda_runtime.h>
#include <nvrtc.h>

#include <string>

#include "gemmtune/status.h"

namespace gemmtune::cuda {

inline Status check(cudaError_t code, const char* what) {
  if (code == cudaSuccess) return Status::ok();
  return Status(ErrorCode::unavailable, std::string(what) + ": " + cudaGetErrorName(code) + " (" +
                                            cudaGetErrorString(code) + ")");
}

inline Status check(nvrtcResult code, const char* what) {
  if (code == NVRTC_SUCCESS) return Status::ok();
  return Status(ErrorCode::unsupported, std::string(what) + ": " + nvrtcGetErrorString(code));
}

}  // namespace gemmtune::cuda
