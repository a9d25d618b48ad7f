// The CUTLASS backend "cutlass": kernels/gemm_cutlass.cuh instantiated per config with nvcc
// into a shared object (CUTLASS 3's SM90 collective builders: TMA warp-specialized cooperative
// and ping-pong mainloops, persistent and stream-K schedulers), cached on disk by content,
// checked in the worker process before first use. Present when gemmtune knows where CUTLASS is
// (cutlass_compiler.h). These functions are what the backend is built from; tests use them
// without a GPU.
#pragma once

#include <memory>
#include <string_view>

#include "../../core/backend.h"
#include "cutlass_compiler.h"
#include "gemmtune/config.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"

namespace gemmtune::cuda {

// The text of kernels/gemm_cutlass.cuh (with kernels/cutlass_abi.h inlined), embedded at build time.
std::string_view gemm_cutlass_source();

// The shared object of one instance (its config checked first), from the cache or nvcc.
Result<CubinArtifact> compile_gemm_cutlass(const Problem& problem, const KernelConfig& config, const CudaInfo& device,
                                           const CutlassSetup& setup, bool recompile = false);

// The backend, or why it is absent (cutlass_setup()'s reason).
Result<std::unique_ptr<Backend>> make_cutlass_backend(const CudaInfo& device);

}  // namespace gemmtune::cuda
