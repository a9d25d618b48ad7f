// Copies of a call's A and B moved onto the grid a family's kernels were tuned at, for calls
// whose operands lie off it (a view into a larger buffer). Kernels are tuned on operands where
// the device's allocator puts them (cudaMalloc: 256 bytes). On the H200 a TMA kernel refuses an
// operand off the 16-byte grid and reads one 16 bytes off the 256-byte grid in up to 1.7x the
// time, and cuBLASLt's algorithms for 2-byte aligned bf16 run 4-11x slower than aligned ones;
// the copy costs one read and one write of the operand
// (bench/results/2026-12-01d-h200-operands-off-grid.md).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>

#include "backend.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"

namespace gemmtune {

class OperandRelocation {
 public:
  virtual ~OperandRelocation() = default;
  // Enqueues on args.stream a copy of A and of B where its address has a bit of `grid_mask` set
  // (into a buffer on the 256-byte grid), then `kernel` with the copies in their place (C where
  // it is), and gives the copies' buffer to the next call once the stream is past the kernel.
  // Safe from several threads: calls take turns on it.
  virtual Status run(const GemmArgs& args, std::uintptr_t grid_mask,
                     const std::function<Status(const GemmArgs&)>& kernel) = 0;
};

// The address bits that may put an operand off the grid of one of the device's families
// (Backend::operand_grid_bytes): 255 on a CUDA device, 0 on the CPU, whose kernels read any
// address as fast. Session::gemm tests A and B against it on every call.
std::uintptr_t operand_grid_mask(const DeviceInfo& device);

// For one problem on the device. unsupported where no operand can be moved (the CPU; a copy
// past the size cap); an operand past the cap alone is left where it is.
Result<std::unique_ptr<OperandRelocation>> create_operand_relocation(const DeviceInfo& device, const Problem& problem);

}  // namespace gemmtune
