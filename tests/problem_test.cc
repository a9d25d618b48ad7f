#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <thread>
#include <vector>

#include "gemmtune/problem.h"

namespace gemmtune {
namespace {

TEST(Problem, TightLeadingDimensionsFollowTheLayout) {
  auto nn = Problem::create(100, 300, 200, DType::f32, "nn");
  ASSERT_TRUE(nn.is_ok());
  EXPECT_EQ(nn->lda(), 200);
  EXPECT_EQ(nn->ldb(), 300);
  EXPECT_EQ(nn->ldc(), 300);
  auto tt = Problem::create(100, 300, 200, DType::f32, "tt");
  ASSERT_TRUE(tt.is_ok());
  EXPECT_EQ(tt->lda(), 100);
  EXPECT_EQ(tt->ldb(), 200);
}

TEST(Problem, NegativeDimensionIsRejectedWithItsName) {
  auto p = Problem::create(-5, 3, 3, DType::f32);
  ASSERT_FALSE(p.is_ok());
  EXPECT_EQ(p.status().code(), ErrorCode::invalid_argument);
  EXPECT_NE(p.status().message().find("m must be >= 0 (got -5)"), std::string::npos);
}

TEST(Problem, LeadingDimensionTooSmallForTheLayoutIsRejected) {
  ProblemSpec spec;
  spec.m = 4;
  spec.n = 8;
  spec.k = 16;
  spec.lda = 15;  // row-major A needs lda >= k
  auto p = Problem::create(spec);
  ASSERT_FALSE(p.is_ok());
  EXPECT_NE(p.status().message().find("lda must be >= 16"), std::string::npos);
  spec.lda = 0;
  spec.b_layout = Layout::col_major;
  spec.ldb = 8;  // column-major B needs ldb >= k
  EXPECT_FALSE(Problem::create(spec).is_ok());
}

TEST(Problem, UnsupportedDtypeCombinationsAreRejected) {
  ProblemSpec spec;
  spec.m = spec.n = spec.k = 4;
  spec.a_type = DType::f32;
  spec.b_type = DType::bf16;
  EXPECT_EQ(Problem::create(spec).status().code(), ErrorCode::unsupported);
  spec.b_type = DType::s8;
  spec.a_type = DType::s8;
  spec.c_type = DType::f32;  // s8 gives s32
  EXPECT_EQ(Problem::create(spec).status().code(), ErrorCode::unsupported);
  spec.c_type = DType::s32;
  EXPECT_TRUE(Problem::create(spec).is_ok());
  spec.alpha = 0.5;  // no fractional scale for integer GEMM
  EXPECT_FALSE(Problem::create(spec).is_ok());
}

TEST(Problem, NonFiniteScalarsAreRejected) {
  ProblemSpec spec;
  spec.m = spec.n = spec.k = 4;
  spec.beta = std::nan("");
  EXPECT_FALSE(Problem::create(spec).is_ok());
}

TEST(Problem, DtypeOrLayoutNoEnumeratorNamesIsRejectedWithItsField) {
  // A spec filled from numbers (the C ABI, a worker message) can hold DType(9); a layout of 7
  // was taken for column-major.
  ProblemSpec spec = Problem::create(8, 8, 8, DType::f32)->spec();
  spec.c_type = DType(9);
  auto bad_type = Problem::create(spec);
  ASSERT_FALSE(bad_type.is_ok());
  EXPECT_NE(bad_type.status().message().find("c_type: dtype 9 is not"), std::string::npos) << bad_type.status().message();
  spec = Problem::create(8, 8, 8, DType::f32)->spec();
  spec.b_layout = Layout(7);
  auto bad_layout = Problem::create(spec);
  ASSERT_FALSE(bad_layout.is_ok());
  EXPECT_NE(bad_layout.status().message().find("b_layout: layout 7 is not"), std::string::npos)
      << bad_layout.status().message();
}

TEST(Problem, ZeroSizedDimsAreValid) {
  EXPECT_TRUE(Problem::create(0, 5, 7, DType::f32).is_ok());
  EXPECT_TRUE(Problem::create(5, 0, 7, DType::f32).is_ok());
  auto p = Problem::create(5, 7, 0, DType::f32);
  ASSERT_TRUE(p.is_ok());
  EXPECT_EQ(p->a_elements(), 0);
}

TEST(Problem, UnknownLayoutLettersAreRejected) {
  auto p = Problem::create(4, 4, 4, DType::f32, "nx");
  ASSERT_FALSE(p.is_ok());
  EXPECT_NE(p.status().message().find("unknown layout 'nx'"), std::string::npos);
}

TEST(ProblemKey, IgnoresAlphaButSeparatesZeroBeta) {
  ProblemSpec spec;
  spec.m = spec.n = spec.k = 8;
  const auto base = ProblemKey::of(*Problem::create(spec));
  spec.alpha = 3;
  EXPECT_EQ(ProblemKey::of(*Problem::create(spec)), base);
  spec.beta = 1;
  EXPECT_NE(ProblemKey::of(*Problem::create(spec)), base);
  EXPECT_EQ(base.to_string(), "f32.f32.f32:nn:8x8x8:ld8.8.8:b0");
}

// A problem's identity is shared by its copies and by no other problem, equal or not, also
// across threads (each takes its own block of numbers), and is never 0 (a dispatcher's "none").
TEST(Problem, CopiesShareTheIdentityAndNoOtherProblemHasIt) {
  const Problem first = *Problem::create(8, 8, 8, DType::f32);
  const Problem copy = first;
  Problem assigned = *Problem::create(1, 2, 3, DType::f32);
  assigned = first;
  EXPECT_EQ(copy.identity(), first.identity());
  EXPECT_EQ(assigned.identity(), first.identity());
  std::vector<std::uint64_t> seen{first.identity()};
  for (int i = 0; i < 100; ++i) seen.push_back(Problem::create(8, 8, 8, DType::f32)->identity());
  std::vector<std::thread> threads;
  std::vector<std::vector<std::uint64_t>> per_thread(4);
  for (auto& ids : per_thread) {
    threads.emplace_back([&ids] {
      for (int i = 0; i < 100; ++i) ids.push_back(Problem::create(8, 8, 8, DType::f32)->identity());
    });
  }
  for (auto& thread : threads) thread.join();
  for (const auto& ids : per_thread) seen.insert(seen.end(), ids.begin(), ids.end());
  ASSERT_EQ(seen.size(), 501u);
  EXPECT_EQ(std::count(seen.begin(), seen.end(), 0u), 0);
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(std::adjacent_find(seen.begin(), seen.end()), seen.end()) << "two problems share an identity";
}

RC_GTEST_PROP(Problem, EveryAcceptedProblemAddressesOnlyItsBuffers, ()) {
  ProblemSpec spec;
  spec.m = *rc::gen::inRange<std::int64_t>(0, 300);
  spec.n = *rc::gen::inRange<std::int64_t>(0, 300);
  spec.k = *rc::gen::inRange<std::int64_t>(0, 300);
  spec.a_layout = *rc::gen::element(Layout::row_major, Layout::col_major);
  spec.b_layout = *rc::gen::element(Layout::row_major, Layout::col_major);
  spec.lda = *rc::gen::inRange<std::int64_t>(0, 400);
  spec.ldb = *rc::gen::inRange<std::int64_t>(0, 400);
  spec.ldc = *rc::gen::inRange<std::int64_t>(0, 400);
  auto p = Problem::create(spec);
  if (!p.is_ok()) {
    RC_ASSERT(p.status().code() == ErrorCode::invalid_argument);
    return;
  }
  // The last element of each operand is inside the span the buffers are sized by.
  if (spec.m > 0 && spec.k > 0) RC_ASSERT(p->a_index(spec.m - 1, spec.k - 1) < p->a_elements());
  if (spec.k > 0 && spec.n > 0) RC_ASSERT(p->b_index(spec.k - 1, spec.n - 1) < p->b_elements());
  if (spec.m > 0 && spec.n > 0) RC_ASSERT(p->c_index(spec.m - 1, spec.n - 1) < p->c_elements());
  // Distinct (i, j) of C never alias: ldc covers a row.
  RC_ASSERT(p->ldc() >= spec.n);
  // Equal problems have equal keys and hashes.
  auto again = Problem::create(spec);
  RC_ASSERT(ProblemKey::of(*p) == ProblemKey::of(*again));
  RC_ASSERT(ProblemKey::of(*p).hash() == ProblemKey::of(*again).hash());
}

}  // namespace
}  // namespace gemmtune
