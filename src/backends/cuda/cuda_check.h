// CUDA runtime, NVRTC and cuBLASLt return codes as Status, naming the call that failed. (The
// driver API is resolved at run time, not linked; mma_backend.cc checks its results itself.)
#pragma once

#include <cublasLt.h>
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

inline Status check(cublasStatus_t code, const char* what) {
  if (code == CUBLAS_STATUS_SUCCESS) return Status::ok();
  return Status(ErrorCode::unsupported, std::string(what) + ": " + cublasLtGetStatusName(code) + " (" +
                                            cublasLtGetStatusString(code) + ")");
}

}  // namespace gemmtune::cuda
