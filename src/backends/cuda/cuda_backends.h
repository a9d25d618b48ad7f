// Factories of the CUDA backends and the CUDA pieces the registry needs.
#pragma once

#include <memory>

#include "../../core/backend.h"
#include "../../core/device_call_timer.h"
#include "../../core/harness.h"
#include "../../core/operand_relocation.h"
#include "cutlass_backend.h"  // make_cutlass_backend, cutlass_setup: "cutlass", when CUTLASS is located

namespace gemmtune::cuda {

// Reads the device's properties (cudaGetDeviceProperties) and the library versions.
Result<DeviceInfo> detect_device(int index, const CpuInfo& host);
// Device operands, the host reference, CUDA-event timing over rotated input sets.
Result<std::unique_ptr<Harness>> make_cuda_harness(const DeviceInfo& device);
// CUDA events around a program's calls, for the in-use check of a route.
Result<std::unique_ptr<DeviceCallTimer>> make_cuda_call_timer(const DeviceInfo& device, std::int64_t slots);

// Copies of calls' A and B moved onto a family's grid, for calls whose operands lie off it.
std::unique_ptr<OperandRelocation> make_operand_relocation(const CudaInfo& device);

std::unique_ptr<Backend> make_cublaslt_backend(const CudaInfo& device);  // "cublaslt"
std::unique_ptr<Backend> make_mma_backend(const CudaInfo& device);     // "mma"
std::unique_ptr<Backend> make_wgmma_backend(const CudaInfo& device);     // "wgmma"
std::unique_ptr<Backend> make_skinny_backend(const CudaInfo& device);    // "skinny"

}  // namespace gemmtune::cuda
