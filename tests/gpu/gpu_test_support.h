// What every GPU test file needs: whether a device is there (CI has none: the tests skip with a
// notice) and a session on it that tunes quickly.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include "gemmtune/session.h"

namespace gemmtune {

inline bool have_gpu() {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  return ok;
}

#define REQUIRE_GPU()                                                                              \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU tests run on a GPU machine (scripts/gpu-check)"

inline SessionOptions gpu_options() {
  SessionOptions options;
  options.device = "cuda:0";
  options.tuning.timing.samples = 3;
  options.tuning.timing.min_sample_ms = 0.2;
  return options;
}

}  // namespace gemmtune
