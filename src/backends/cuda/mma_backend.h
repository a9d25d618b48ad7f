// The NVRTC template backend "mma": gemm_mma.cuh instantiated per (problem, config) by -D
// macros, compiled for the device's arch, cached on disk, loaded into the primary context.
// These functions are what the backend is built from; tests use them without a GPU.
//
// Environment:
//   GEMMTUNE_CUBIN_CACHE=DIR         where compiled cubins are kept (default
//                                    $XDG_CACHE_HOME/gemmtune/cubins or ~/.cache/gemmtune/cubins)
//   GEMMTUNE_ALLOW_FAULT_CONFIGS=1   can_implement accepts the fault-injection configs
//                                    (kernel=fault_address, kernel=fault_spin) for isolation tests
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/config.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"
#include "nvrtc_compiler.h"

namespace gemmtune::cuda {

// The text of kernels/gemm_mma.cuh, embedded at build time.
std::string_view gemm_mma_source();
// "gemm_mma-" + the first 16 hex digits of the SHA-256 of the template: an edited kernel
// invalidates picks stored for the old one.
std::string mma_backend_version();

// Ok when the backend can run `config` on `problem` on `device`, else why not.
Status mma_can_implement(const Problem& problem, const KernelConfig& config, const CudaInfo& device);

// NVRTC options of one instantiation: arch, language, and the -D macros gemm_mma.cuh reads.
std::vector<std::string> gemm_mma_options(const Problem& problem, const KernelConfig& config, const std::string& arch);

// The cubin of one instantiation (checked with mma_can_implement first), from the cache or NVRTC.
Result<CubinArtifact> compile_gemm_mma(const Problem& problem, const KernelConfig& config, const CudaInfo& device,
                                       bool recompile = false);

}  // namespace gemmtune::cuda
