// The skinny template backend "skinny": kernels/gemm_skinny.cuh instantiated per (problem
// dtypes and layouts, config) with NVRTC, for m ≤ 64 (LLM decoding): the weights streamed once
// into registers by many CTAs over n and k, the slices of k summed inside the launch. Cached on
// disk by content and checked in the worker process before first use, as the other NVRTC
// families are. For m ≤ 8 with k contiguous in A and B the family also offers gemv
// (kernels/gemm_gemv.cuh, config field kernel=gemv): CUDA-core dot products, a warp a few rows of B. These functions are what the backend is built from; tests use them without a GPU.
#pragma once

#include <string>
#include <string_view>

#include "gemmtune/config.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"
#include "nvrtc_compiler.h"

namespace gemmtune::cuda {

// The texts of kernels/gemm_skinny.cuh and kernels/gemm_gemv.cuh, embedded at build time.
std::string_view gemm_skinny_source();
std::string_view gemm_gemv_source();
// "gemm_skinny-" + 16 hex digits of the SHA-256 of the two templates.
std::string skinny_backend_version();

// Ok when the backend can run `config` on `problem` on `device`, else why not.
Status skinny_can_implement(const Problem& problem, const KernelConfig& config, const CudaInfo& device);

// The cubin of one instantiation (checked with skinny_can_implement first), from the cache or NVRTC.
Result<CubinArtifact> compile_gemm_skinny(const Problem& problem, const KernelConfig& config, const CudaInfo& device,
                                          bool recompile = false);

}  // namespace gemmtune::cuda
