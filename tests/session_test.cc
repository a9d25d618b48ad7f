#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <cstring>
#include <thread>

#include "core/reference_gemm.h"
#include "core/test_buffers.h"
#include "gemmtune/gemmtune.h"
#include "gemmtune/session.h"

namespace gemmtune {
namespace {

SessionOptions fast_options() {
  SessionOptions options;
  options.tuning.timing.samples = 1;
  options.tuning.timing.min_sample_ms = 0.05;
  options.tuning.timing.warmup_runs = 0;
  return options;
}

// C from Session::gemm equals the reference on the same inputs (within the dtype's rounding).
void expect_matches_reference(Session& session, const Problem& p, std::uint64_t seed) {
  TestBuffers buffers(p, seed);
  std::vector<float> expected(std::size_t(p.c_elements()));
  std::memcpy(expected.data(), buffers.c_initial(), expected.size() * sizeof(float));
  reference_gemm(p, buffers.a(), buffers.b(), expected.data());
  std::vector<float> c(expected.size());
  std::memcpy(c.data(), buffers.c_initial(), c.size() * sizeof(float));
  ASSERT_TRUE(session.gemm(p, buffers.a(), buffers.b(), c.data()).is_ok());
  for (std::size_t i = 0; i < c.size(); ++i) ASSERT_NEAR(c[i], expected[i], 1e-4) << "element " << i;
}

TEST(Session, FirstCallTunesAndLaterCallsReuseThePick) {
  auto session = *Session::create(fast_options());
  const Problem p = *Problem::create(33, 17, 21, DType::f32);
  EXPECT_EQ(session->pick(p).status().code(), ErrorCode::not_found);
  expect_matches_reference(*session, p, 1);
  auto pick = session->pick(p);
  ASSERT_TRUE(pick.is_ok());
  EXPECT_FALSE(pick->backend.empty());
  expect_matches_reference(*session, p, 2);
  EXPECT_EQ(session->pick(p)->config, pick->config);
}

TEST(Session, ProblemsDifferingOnlyInAlphaGetTheirOwnKernels) {
  auto session = *Session::create(fast_options());
  ProblemSpec spec;
  spec.m = spec.n = spec.k = 16;
  expect_matches_reference(*session, *Problem::create(spec), 3);
  spec.alpha = 2.5;
  spec.beta = -1.0;
  expect_matches_reference(*session, *Problem::create(spec), 4);
}

// Session::gemm recognises the problem it ran last by its identity: a problem made again in
// the same place on the stack (the identity of a destroyed one can never come back) with
// another shape, or an equal problem made anew, gets its own shape's kernel every time.
TEST(Session, ProblemsMadeAgainWhereTheLastOneLayRunTheirOwnShape) {
  auto session = *Session::create(fast_options());
  const std::int64_t shapes[][3] = {{5, 7, 3}, {7, 5, 3}, {5, 7, 3}, {5, 7, 3}, {3, 9, 2}, {7, 5, 3}};
  int checked = 0;
  for (int round = 0; round < 2; ++round) {
    for (const auto& shape : shapes) {
      const Problem p = *Problem::create(shape[0], shape[1], shape[2], DType::f32);
      expect_matches_reference(*session, p, std::uint64_t(checked));
      expect_matches_reference(*session, p, std::uint64_t(checked) + 100);  // the same object again
      ++checked;
    }
  }
  EXPECT_EQ(checked, 12);
}

TEST(Session, NullOperandsAreRejected) {
  auto session = *Session::create(fast_options());
  const Problem p = *Problem::create(4, 4, 4, DType::f32);
  float buffer[16] = {};
  Status s = session->gemm(p, nullptr, buffer, buffer);
  EXPECT_EQ(s.code(), ErrorCode::invalid_argument);
  EXPECT_NE(s.message().find("A is null"), std::string::npos);
}

TEST(Session, UnknownDevicesAndBackendsAreRejectedAtCreation) {
  SessionOptions options = fast_options();
  options.device = "tpu";
  EXPECT_EQ(Session::create(options).status().code(), ErrorCode::not_found);
  options.device = "cpu";
  options.tuning.backends = {"nonesuch"};
  auto s = Session::create(options);
  ASSERT_FALSE(s.is_ok());
  EXPECT_NE(s.status().message().find("nonesuch"), std::string::npos);
}

TEST(Session, ABackendFilterLimitsTheChoices) {
  SessionOptions options = fast_options();
  options.tuning.backends = {"reference"};
  auto session = *Session::create(options);
  auto report = session->tune(*Problem::create(8, 8, 8, DType::f32));
  ASSERT_TRUE(report.is_ok());
  for (const ChoiceReport& c : report->choices) EXPECT_EQ(c.backend, "reference");
  EXPECT_EQ(report->best_choice()->backend, "reference");
}

TEST(Session, ManyThreadsCallingAtOnceAllGetCorrectResults) {
  auto session = *Session::create(fast_options());
  std::vector<std::thread> threads;
  std::atomic<int> failures{0};
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      const Problem p = *Problem::create(8 + (t % 3), 12, 10, DType::f32);
      for (int i = 0; i < 20; ++i) {
        TestBuffers buffers(p, std::uint64_t(t * 100 + i));
        std::vector<float> expected(std::size_t(p.c_elements())), c(expected.size());
        reference_gemm(p, buffers.a(), buffers.b(), expected.data());
        if (!session->gemm(p, buffers.a(), buffers.b(), c.data()).is_ok()) ++failures;
        for (std::size_t e = 0; e < c.size(); ++e) {
          if (std::fabs(c[e] - expected[e]) > 1e-4) ++failures;
        }
      }
    });
  }
  for (auto& thread : threads) thread.join();
  EXPECT_EQ(failures.load(), 0);
}

TEST(CApi, GemmThroughTheCAbiMatchesTheReference) {
  gemmtune_session* session = nullptr;
  ASSERT_EQ(gemmtune_session_create("cpu", &session), 0) << gemmtune_last_error();
  gemmtune_problem p = gemmtune_problem_make(5, 6, 7, GEMMTUNE_F32);
  std::vector<float> a(35), b(42), c(30);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = float(i % 7) - 3;
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = float(i % 5) - 2;
  ASSERT_EQ(gemmtune_gemm(session, &p, a.data(), b.data(), c.data()), 0) << gemmtune_last_error();
  for (int i = 0; i < 5; ++i) {
    for (int j = 0; j < 6; ++j) {
      float sum = 0;
      for (int k = 0; k < 7; ++k) sum += a[std::size_t(i * 7 + k)] * b[std::size_t(k * 6 + j)];
      EXPECT_FLOAT_EQ(c[std::size_t(i * 6 + j)], sum);
    }
  }
  gemmtune_session_destroy(session);
}

TEST(CApi, ErrorsReturnTheirCodeAndAMessage) {
  gemmtune_session* session = nullptr;
  EXPECT_EQ(gemmtune_session_create("tpu", &session), int(ErrorCode::not_found));
  EXPECT_EQ(session, nullptr);
  EXPECT_NE(std::string(gemmtune_last_error()).find("unknown device"), std::string::npos);
  ASSERT_EQ(gemmtune_session_create("cpu", &session), 0);
  gemmtune_problem p = gemmtune_problem_make(-1, 2, 2, GEMMTUNE_F32);
  float x[4] = {};
  EXPECT_EQ(gemmtune_gemm(session, &p, x, x, x), int(ErrorCode::invalid_argument));
  EXPECT_NE(std::string(gemmtune_last_error()).find("m must be >= 0"), std::string::npos);
  p = gemmtune_problem_make(2, 2, 2, GEMMTUNE_F32);
  p.a_type = gemmtune_dtype(42);
  EXPECT_EQ(gemmtune_gemm(session, &p, x, x, x), int(ErrorCode::invalid_argument));
  gemmtune_session_destroy(session);
}

}  // namespace
}  // namespace gemmtune
