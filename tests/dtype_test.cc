#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "gemmtune/dtype.h"

namespace gemmtune {
namespace {

TEST(Dtype, EveryF16BitPatternSurvivesARoundTripThroughF32) {
  for (std::uint32_t bits = 0; bits < 0x10000; ++bits) {
    const float value = f16_to_f32(std::uint16_t(bits));
    if (std::isnan(value)) continue;
    ASSERT_EQ(f32_to_f16(value), bits) << "bits " << bits;
  }
}

TEST(Dtype, KnownF16ValuesConvert) {
  EXPECT_EQ(f16_to_f32(0x3c00), 1.0f);
  EXPECT_EQ(f16_to_f32(0xc000), -2.0f);
  EXPECT_EQ(f16_to_f32(0x0001), std::ldexp(1.0f, -24));  // smallest subnormal
  EXPECT_EQ(f32_to_f16(65520.0f), 0x7c00);               // rounds to infinity
  EXPECT_EQ(f32_to_f16(1.0f + std::ldexp(1.0f, -11)), 0x3c00);  // tie to even
}

TEST(Dtype, Bf16RoundsToNearestEven) {
  EXPECT_EQ(f32_to_bf16(1.0f), 0x3f80);
  EXPECT_EQ(bf16_to_f32(0x3f80), 1.0f);
  EXPECT_EQ(f32_to_bf16(1.0f + std::ldexp(1.0f, -8)), 0x3f80);  // tie to even: down
  EXPECT_TRUE(std::isnan(bf16_to_f32(f32_to_bf16(std::nanf("")))));
}

TEST(Dtype, NamesParseBackAndUnknownNamesAreRejected) {
  for (DType t : {DType::f32, DType::f16, DType::bf16, DType::s8, DType::s32}) {
    EXPECT_EQ(*parse_dtype(dtype_name(t)), t);
  }
  auto bad = parse_dtype("f7");
  ASSERT_FALSE(bad.is_ok());
  EXPECT_NE(bad.status().message().find("unknown dtype 'f7'"), std::string::npos);
}

// The converted value is the nearest representable one: no neighbour is closer.
// Floats spread over f16's whole range, subnormals included: a 24-bit mantissa times 2^e.
float float_in_f16_range() {
  const int mantissa = *rc::gen::inRange(-(1 << 24), 1 << 24);
  const int exponent = *rc::gen::inRange(-50, -8);
  return std::ldexp(float(mantissa), exponent);
}

RC_GTEST_PROP(Dtype, F32ToF16PicksTheNearestF16, ()) {
  const float x = float_in_f16_range();
  const std::uint16_t h = f32_to_f16(x);
  const double err = std::fabs(double(f16_to_f32(h)) - double(x));
  for (int delta : {-1, 1}) {
    const std::uint16_t neighbour = std::uint16_t(h + delta);
    const float nv = f16_to_f32(neighbour);
    if (std::isnan(nv) || std::isinf(nv) || (std::signbit(nv) != std::signbit(f16_to_f32(h)) && nv != 0)) continue;
    RC_ASSERT(err <= std::fabs(double(nv) - double(x)));
  }
}

RC_GTEST_PROP(Dtype, F32ToBf16PicksTheNearestBf16, ()) {
  const float x = std::ldexp(float(*rc::gen::inRange(-(1 << 24), 1 << 24)), *rc::gen::inRange(-140, 100));
  const std::uint16_t h = f32_to_bf16(x);
  const double err = std::fabs(double(bf16_to_f32(h)) - double(x));
  for (int delta : {-1, 1}) {
    const float nv = bf16_to_f32(std::uint16_t(h + delta));
    if (!std::isfinite(nv) || std::signbit(nv) != std::signbit(bf16_to_f32(h))) continue;
    RC_ASSERT(err <= std::fabs(double(nv) - double(x)));
  }
}

}  // namespace
}  // namespace gemmtune
