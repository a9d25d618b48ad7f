// Element types of GEMM operands, and the bit-exact conversions between them that every backend
// and the reference share (so that "the same inputs" means the same bits everywhere).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "gemmtune/status.h"

namespace gemmtune {

enum class DType : std::uint8_t {
  f32,   // IEEE binary32
  f16,   // IEEE binary16, passed as uint16_t bit patterns
  bf16,  // bfloat16 (upper half of binary32), passed as uint16_t bit patterns
  s8,    // int8_t
  s32,   // int32_t: the output and accumulator of s8 products
};

std::string_view dtype_name(DType type);
std::size_t dtype_size(DType type);
bool is_float(DType type);
// Accepts the names dtype_name() prints: f32, f16, bf16, s8, s32.
Result<DType> parse_dtype(std::string_view name);

// Round to nearest even, as hardware conversions do; NaN stays NaN.
float bf16_to_f32(std::uint16_t bits);
std::uint16_t f32_to_bf16(float value);
float f16_to_f32(std::uint16_t bits);
std::uint16_t f32_to_f16(float value);

}  // namespace gemmtune
