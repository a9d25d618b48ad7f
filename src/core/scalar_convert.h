// Scalar f16/bf16 <-> f32 conversions with internal linkage. Kernel files are compiled several
// times with different -m flags (AVX2, AVX-512); if they shared inline functions with external
// linkage, the linker could keep an AVX-512 copy for every caller and crash older CPUs. Each
// file that includes this gets its own copy. The public dtype.h functions wrap these.
#pragma once

#include <cmath>
#include <cstdint>
#include <cstring>

namespace gemmtune {
namespace {

inline float bf16_bits_to_float(std::uint16_t bits) {
  const std::uint32_t wide = std::uint32_t{bits} << 16;
  float value;
  std::memcpy(&value, &wide, sizeof value);
  return value;
}

// Round to nearest even, as hardware conversions do; NaN stays NaN.
inline std::uint16_t float_to_bf16_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40);
  const std::uint32_t rounding = 0x7fffu + ((bits >> 16) & 1u);
  return static_cast<std::uint16_t>((bits + rounding) >> 16);
}

inline float f16_bits_to_float(std::uint16_t bits) {
  const std::uint32_t sign = std::uint32_t(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> 10) & 0x1fu;
  const std::uint32_t mantissa = bits & 0x3ffu;
  std::uint32_t out;
  if (exponent == 0) {
    // Zero or subnormal: mantissa · 2^-24 is exact in binary32.
    float magnitude = float(mantissa) * (1.0f / 16777216.0f);
    std::memcpy(&out, &magnitude, sizeof out);
    out |= sign;
  } else if (exponent == 0x1f) {
    out = sign | 0x7f800000u | (mantissa << 13);
  } else {
    out = sign | ((exponent + 112) << 23) | (mantissa << 13);
  }
  float value;
  std::memcpy(&value, &out, sizeof value);
  return value;
}

inline std::uint16_t float_to_f16_bits(float value) {
  std::uint32_t bits;
  std::memcpy(&bits, &value, sizeof bits);
  const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return sign | 0x7e00u;   // NaN
  if (magnitude >= 0x477ff000u) return sign | 0x7c00u;  // rounds to or beyond infinity
  if (magnitude < 0x38800000u) {
    // Subnormal or zero in binary16: scaled by 2^24 the value's integer part is the mantissa;
    // nearbyint rounds to nearest even under the default rounding mode.
    float magnitude_value;
    std::memcpy(&magnitude_value, &magnitude, sizeof magnitude_value);
    return sign | static_cast<std::uint16_t>(std::nearbyint(magnitude_value * 16777216.0f));
  }
  // Normal: drop 13 mantissa bits, round to nearest even, rebias the exponent (127 → 15).
  const std::uint32_t rounded = magnitude + 0xfffu + ((magnitude >> 13) & 1u);
  return sign | static_cast<std::uint16_t>((rounded - 0x38000000u) >> 13);
}

}  // namespace
}  // namespace gemmtune
