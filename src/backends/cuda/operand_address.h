// Where a call's operands lie. The families that move operands in 16-byte pieces (TMA, vector
// loads) refuse a call whose operand is off that grid, before anything is enqueued: Session::gemm
// then runs that call with a family that reads any address (cuBLASLt, mma).
#pragma once

#include <cstddef>
#include <cstdint>

namespace gemmtune::cuda {

inline bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15) == 0; }

// The grid, in bytes, of an operand of `operand_bytes` that a TMA family (wgmma, cutlass) reads.
// TMA needs 16-byte addresses, and reads one off the 256-byte grid slower. On the H200, bf16
// nt, A 16 bytes off, read in place against copied onto the grid first (µs; aligned):
//   16 × 4096 × 14336 (A 459 KB)    33.2 against 35.5   (31.9)
//   32 × 4096 × 14336 (A 917 KB)    37.2 against 36.7   (32.9)
//   64 × 4096 × 14336 (A 1.8 MB)    45.5 against 37.7   (33.4)
//   4096³             (A 32 MiB)    308  against 205    (183)
// (bench/results/2026-12-01e-h200-cublaslt-padded.md, 2026-12-01d-h200-operands-off-grid.md):
// an operand of up to half a MiB is read where it lies, from 16 bytes up.
inline constexpr std::int64_t kTmaReadInPlaceBytes = std::int64_t(512) << 10;
inline std::size_t tma_operand_grid_bytes(std::int64_t operand_bytes) {
  return operand_bytes <= kTmaReadInPlaceBytes ? 16 : 256;
}

}  // namespace gemmtune::cuda
