// The verifier holds every element of C to its own bound: a kernel wrong in one element of any
// row, or one that drops the last few steps of k in a few rows, is rejected in every dtype,
// while the reference's own output (and, in backend_correctness_test, every real kernel's)
// passes.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/reference_gemm.h"
#include "core/test_buffers.h"
#include "core/verify.h"

namespace gemmtune {
namespace {

struct Case {
  DType in, out;
  const char* layout;
  double alpha, beta;
};

const Case kCases[] = {
    {DType::f32, DType::f32, "nn", 1.0, 0.0},   {DType::f32, DType::f32, "tt", -0.75, 0.5},
    {DType::f16, DType::f16, "nt", 1.0, 0.0},   {DType::f16, DType::f32, "tn", 0.5, 1.0},
    {DType::bf16, DType::bf16, "nn", 1.0, 0.0}, {DType::bf16, DType::f32, "nt", 2.0, -1.0},
    {DType::s8, DType::s32, "tn", 1.0, 0.0},    {DType::s8, DType::s32, "nt", 1.0, 1.0},
};

Problem make(const Case& c, std::int64_t m, std::int64_t n, std::int64_t k, bool tf32 = false) {
  ProblemSpec spec = Problem::create(m, n, k, c.in, c.layout)->spec();
  spec.c_type = c.out;
  spec.alpha = c.alpha;
  spec.beta = c.beta;
  spec.allow_tf32 = tf32;
  return *Problem::create(spec);
}

// C as a kernel that skipped the last `dropped` steps of k in rows [row, row + rows) would
// leave it, the other rows right.
void compute_with_dropped_tail(const Problem& p, TestBuffers& buffers, std::int64_t row, std::int64_t rows,
                               std::int64_t dropped) {
  reference_gemm(p, buffers.a(), buffers.b(), buffers.c());
  for (std::int64_t i = row; i < row + rows; ++i) {
    for (std::int64_t j = 0; j < p.n(); ++j) {
      double sum = 0;
      for (std::int64_t kk = 0; kk < p.k() - dropped; ++kk) {
        sum += load_as_double(buffers.a(), p.a_type(), p.a_index(i, kk)) *
               load_as_double(buffers.b(), p.b_type(), p.b_index(kk, j));
      }
      const double initial = p.beta() != 0 ? load_as_double(buffers.c_initial(), p.c_type(), p.c_index(i, j)) : 0;
      store_from_double(buffers.c(), p.c_type(), p.c_index(i, j), p.alpha() * sum + p.beta() * initial);
    }
  }
}

TEST(Verify, TheReferencesOwnOutputPassesInEveryDtype) {
  int checked = 0;
  for (const Case& c : kCases) {
    const Problem p = make(c, 300, 130, 700);
    TestBuffers buffers(p, 7);
    const Reference reference = compute_reference(p, buffers);
    reference_gemm(p, buffers.a(), buffers.b(), buffers.c());
    const VerifyOutcome outcome = check_output(p, buffers, reference);
    EXPECT_TRUE(outcome.ok) << p.describe() << ": " << outcome.reason;
    EXPECT_LT(outcome.error, 1.0);
    ++checked;
  }
  EXPECT_EQ(checked, 8);
}

TEST(Verify, OneWrongElementInAnyRowIsRejectedInEveryDtype) {
  int rejected = 0;
  for (const Case& c : kCases) {
    const Problem p = make(c, 300, 130, 700);
    TestBuffers buffers(p, 8);
    const Reference reference = compute_reference(p, buffers);
    // Rows an evenly spaced sample of 8 would have skipped, and the first and last.
    for (std::int64_t i : {0, 137, 211, 299}) {
      buffers.reset_c();  // C is an input when beta != 0: start each run from its initial values
      reference_gemm(p, buffers.a(), buffers.b(), buffers.c());
      const std::int64_t j = (i * 31) % p.n(), index = p.c_index(i, j);
      const double right = load_as_double(buffers.c(), p.c_type(), index);
      // Off by one (and a quarter of itself for floats): one element among 39,000, which an
      // error averaged over C (or over sampled rows that miss it) would not have seen.
      store_from_double(buffers.c(), p.c_type(), index, c.out == DType::s32 ? right + 1 : right + 1.0 + 0.25 * std::fabs(right));
      const VerifyOutcome outcome = check_output(p, buffers, reference);
      EXPECT_FALSE(outcome.ok) << p.describe() << " with (" << i << ", " << j << ") wrong";
      EXPECT_NE(outcome.reason.find("element (" + std::to_string(i) + ", " + std::to_string(j) + ")"),
                std::string::npos)
          << outcome.reason;
      ++rejected;
    }
  }
  EXPECT_EQ(rejected, 8 * 4);
}

TEST(Verify, ADroppedTailOfKInAFewRowsIsRejectedInEveryDtype) {
  int rejected = 0;
  for (const Case& c : kCases) {
    const Problem p = make(c, 300, 130, 700);
    TestBuffers buffers(p, 9);
    const Reference reference = compute_reference(p, buffers);
    compute_with_dropped_tail(p, buffers, 150, 3, 8);  // rows 150-152 miss the last 8 of 700 steps
    const VerifyOutcome outcome = check_output(p, buffers, reference);
    EXPECT_FALSE(outcome.ok) << p.describe();
    EXPECT_NE(outcome.reason.find("element (15"), std::string::npos) << outcome.reason;
    ++rejected;
  }
  EXPECT_EQ(rejected, 8);
}

TEST(Verify, Tf32IsHeldToItsInputRoundingAndNoMore) {
  const Case c{DType::f32, DType::f32, "nt", 1.0, 0.0};
  const Problem plain = make(c, 64, 64, 512), tf32 = make(c, 64, 64, 512, true);
  TestBuffers buffers(plain, 10);
  const Reference reference = compute_reference(plain, buffers);
  reference_gemm(plain, buffers.a(), buffers.b(), buffers.c());
  // An error of 2^-12 of an element's magnitude: past f32's bound at k = 512, within TF32's.
  const std::int64_t index = plain.c_index(5, 9);
  const double magnitude = reference.a_norms[5] * reference.b_norms[9];
  const double right = load_as_double(buffers.c(), DType::f32, index);
  store_from_double(buffers.c(), DType::f32, index, right + magnitude * std::ldexp(1.0, -12));
  EXPECT_FALSE(check_output(plain, buffers, reference).ok);
  EXPECT_TRUE(check_output(tf32, buffers, reference).ok) << check_output(tf32, buffers, reference).reason;
}

TEST(Verify, NonFiniteReferencesMustBeMatchedExactly) {
  const Case c{DType::f32, DType::f32, "nn", 1.0, 0.0};
  const Problem p = make(c, 4, 4, 4);
  TestBuffers buffers(p, 12);
  float* a = const_cast<float*>(static_cast<const float*>(buffers.a()));
  a[p.a_index(1, 2)] = std::nanf("");                              // row 1 of C: NaN
  a[p.a_index(2, 0)] = std::numeric_limits<float>::infinity();    // row 2: ±infinity or NaN
  const Reference reference = compute_reference(p, buffers);
  reference_gemm(p, buffers.a(), buffers.b(), buffers.c());
  EXPECT_TRUE(check_output(p, buffers, reference).ok) << check_output(p, buffers, reference).reason;
  float* out = static_cast<float*>(buffers.c());
  out[p.c_index(1, 3)] = 0.0f;  // a finite value where the reference is NaN
  EXPECT_NE(check_output(p, buffers, reference).reason.find("element (1, 3)"), std::string::npos);
}

}  // namespace
}  // namespace gemmtune
