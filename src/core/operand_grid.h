// The address bits of A and of B that put them off the grid a kernel was tuned at, in one word
// (Kernel::operand_grid_mask, read on every call): A's in the low half, B's in the high half.
// A family may read a small operand where it lies and a large one only from a copy on its grid
// (Backend::operand_grid_bytes), so the two may differ.
#pragma once

#include <cstdint>

namespace gemmtune {

static_assert(sizeof(std::uintptr_t) == 8, "the masks of A and B share one 64-bit word");

struct OperandGridMasks {
  std::uintptr_t a = 0, b = 0;  // each below 2^32
};

constexpr std::uintptr_t pack_grid_masks(OperandGridMasks masks) { return masks.a | (masks.b << 32); }
constexpr OperandGridMasks unpack_grid_masks(std::uintptr_t packed) {
  return {packed & 0xffffffffu, packed >> 32};
}

// Whether A or B lies off its grid: two ANDs a call.
inline bool off_grid(const void* a, const void* b, std::uintptr_t packed) {
  return ((reinterpret_cast<std::uintptr_t>(a) & (packed & 0xffffffffu)) |
          (reinterpret_cast<std::uintptr_t>(b) & (packed >> 32))) != 0;
}

}  // namespace gemmtune
