#include "gemmtune/dtype.h"

#include <string>

#include "enum_codes.h"
#include "scalar_convert.h"

namespace gemmtune {

std::string_view dtype_name(DType type) {
  switch (type) {
    case DType::f32: return "f32";
    case DType::f16: return "f16";
    case DType::bf16: return "bf16";
    case DType::s8: return "s8";
    case DType::s32: return "s32";
  }
  return "?";
}

std::size_t dtype_size(DType type) {
  switch (type) {
    case DType::f32: return 4;
    case DType::f16: return 2;
    case DType::bf16: return 2;
    case DType::s8: return 1;
    case DType::s32: return 4;
  }
  return 0;
}

bool is_float(DType type) { return type == DType::f32 || type == DType::f16 || type == DType::bf16; }

Result<DType> dtype_from_code(std::int64_t code) {
  if (code < std::int64_t(DType::f32) || code > std::int64_t(DType::s32)) {
    return invalid_argument("dtype " + std::to_string(code) + " is not one of 0 (f32), 1 (f16), 2 (bf16), 3 (s8), 4 (s32)");
  }
  return DType(code);
}

Result<DType> parse_dtype(std::string_view name) {
  for (DType type : {DType::f32, DType::f16, DType::bf16, DType::s8, DType::s32}) {
    if (name == dtype_name(type)) return type;
  }
  return invalid_argument("unknown dtype '" + std::string(name) +
                          "' (expected one of f32, f16, bf16, s8, s32)");
}

float f16_to_f32(std::uint16_t bits) { return f16_bits_to_float(bits); }
std::uint16_t f32_to_f16(float value) { return float_to_f16_bits(value); }
float bf16_to_f32(std::uint16_t bits) { return bf16_bits_to_float(bits); }
std::uint16_t f32_to_bf16(float value) { return float_to_bf16_bits(value); }

}  // namespace gemmtune
