// The random operands and the poisoned C of TestBuffers, which every harness verifies against:
// filled on several threads, they must be the values one splitmix64 stream gives in order, so
// a seed means the same operands on any machine.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <utility>

#include "core/reference_gemm.h"
#include "core/test_buffers.h"
#include "gemmtune/problem.h"

namespace gemmtune {
namespace {

// The operands drawn one element at a time, A then B, as the fill did before it was split.
int mismatches_against_one_stream(const Problem& p, std::uint64_t seed) {
  TestBuffers buffers(p, seed);
  Random rng(seed);
  int wrong = 0;
  for (auto [data, elements] : {std::pair{buffers.a(), p.a_elements()}, std::pair{buffers.b(), p.b_elements()}}) {
    for (std::int64_t i = 0; i < elements; ++i) {
      const double expected =
          p.a_type() == DType::s8 ? double(std::int64_t(rng.next() % 256) - 128) : rng.uniform(-1.0, 1.0);
      std::uint8_t want[8] = {};
      store_from_double(want, p.a_type(), 0, expected);
      const std::size_t size = dtype_size(p.a_type());
      if (std::memcmp(static_cast<const std::uint8_t*>(data) + std::size_t(i) * size, want, size) != 0) ++wrong;
    }
  }
  return wrong;
}

TEST(TestBuffers, OperandsFilledOnSeveralThreadsAreOneSeedsStreamInOrder) {
  // 2 M elements of A and of B: over the million-element chunk, so more than one thread fills
  // each wherever two CPUs are usable. And a small one, filled inline.
  EXPECT_EQ(mismatches_against_one_stream(*Problem::create(2048, 1024, 1024, DType::bf16, "nt"), 11), 0);
  EXPECT_EQ(mismatches_against_one_stream(*Problem::create(1536, 1536, 1024, DType::s8, "nt"), 12), 0);
  EXPECT_EQ(mismatches_against_one_stream(*Problem::create(17, 33, 65, DType::f32, "nn"), 13), 0);
}

TEST(TestBuffers, ResetPoisonsEveryElementOfCAndNoPaddingOrGuard) {
  ProblemSpec spec = Problem::create(1500, 1000, 8, DType::f16, "nt")->spec();
  spec.ldc = 1004;
  const Problem p = *Problem::create(spec);
  TestBuffers buffers(p, 3);
  std::memset(buffers.c(), 0, std::size_t(p.c_elements()) * 2);  // written over, padding too
  buffers.reset_c();
  std::int64_t poisoned = 0;
  for (std::int64_t i = 0; i < p.m(); ++i) {
    for (std::int64_t j = 0; j < p.n(); ++j) {
      poisoned += std::isnan(load_as_double(buffers.c(), p.c_type(), p.c_index(i, j))) ? 1 : 0;
    }
  }
  EXPECT_EQ(poisoned, p.m() * p.n());
  EXPECT_EQ(buffers.check_guards(), "") << "the padding is back to guard bytes";
}

}  // namespace
}  // namespace gemmtune
