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
#include "operand_grid.h"

namespace gemmtune {

// The most one operand's copy may take on a device with `memory_bytes` of memory: a 64th of
// it, and 64 MiB at least. A larger operand stays where it is (a kernel that cannot read it
// there refuses the call, and the session runs it on one that can): on the H200, bf16
// 4096×4096×14336 with A (117 MB) one element off ran cuBLASLt's algorithm for that alignment in
// 4600 us, against 581 aligned (bench/results/2026-12-01f-h200-cublaslt-grid.md); its copy
// takes some 50 us.
inline std::int64_t max_relocated_operand_bytes(std::int64_t memory_bytes) {
  constexpr std::int64_t kFloor = std::int64_t(64) << 20;
  return memory_bytes / 64 > kFloor ? memory_bytes / 64 : kFloor;
}

class OperandRelocation {
 public:
  virtual ~OperandRelocation() = default;
  // A call of `problem`: enqueues on args.stream a copy of A and of B where its address has a
  // bit of its mask in `grid_mask` set (core/operand_grid.h; a copy within
  // max_relocated_operand_bytes of the device's memory), into a buffer on the
  // 256-byte grid, then `kernel` with the copies in their place (C where it is); the buffer
  // goes to the next call once the stream is past the kernel. Without a copy to make, `kernel`
  // on the caller's operands. Safe from several threads: calls take turns on the buffer.
  virtual Status run(const Problem& problem, const GemmArgs& args, std::uintptr_t grid_mask,
                     const std::function<Status(const GemmArgs&)>& kernel) = 0;
};

// One per session: one buffer, grown to the largest call's copies and shared by every
// problem's calls (a buffer per problem would hold a copy of A for every m a program meets).
// Null where the device's kernels read any address (the CPU).
std::unique_ptr<OperandRelocation> create_operand_relocation(const DeviceInfo& device);

}  // namespace gemmtune
