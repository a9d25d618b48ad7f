// Where a call's operands lie. The families that move operands in 16-byte pieces (TMA, vector
// loads) refuse a call whose operand is off that grid, before anything is enqueued: Session::gemm
// then runs that call with a family that reads any address (cuBLASLt, mma).
#pragma once

#include <cstdint>

namespace gemmtune::cuda {

inline bool aligned16(const void* p) { return (reinterpret_cast<std::uintptr_t>(p) & 15) == 0; }

}  // namespace gemmtune::cuda
