// The Hopper template backend "wgmma": kernels/gemm_wgmma.cuh instantiated per (problem,
// config) with NVRTC for sm_90a (TMA loads, warp-specialised wgmma, a persistent grid), cached
// on disk by content, checked in the worker process before first use. These functions are
// what the backend is built from; tests use them without a GPU.
#pragma once

#include <string>
#include <string_view>

#include "gemmtune/config.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"
#include "nvrtc_compiler.h"

namespace gemmtune::cuda {

// The text of kernels/gemm_wgmma.cuh, embedded at build time.
std::string_view gemm_wgmma_source();
// "gemm_wgmma-" + 16 hex digits of the SHA-256 of the template and of the instruction prelude
// the host writes for it: an edit of either retires the picks stored for the old kernels.
std::string wgmma_backend_version();

// Ok when the backend can run `config` on `problem` on `device`, else why not.
Status wgmma_can_implement(const Problem& problem, const KernelConfig& config, const CudaInfo& device);

// The cubin of one instantiation (checked with wgmma_can_implement first), from the cache or NVRTC.
Result<CubinArtifact> compile_gemm_wgmma(const Problem& problem, const KernelConfig& config, const CudaInfo& device,
                                         bool recompile = false);

}  // namespace gemmtune::cuda
