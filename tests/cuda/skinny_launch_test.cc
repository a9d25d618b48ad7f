// Runs the skinny template's kernels on a GPU against the host reference: every input dtype,
// both layouts of A and of B, odd n and k (k not a multiple of a batch or of the split), m from
// 1 to 64, padded leading dims, alpha and beta, k = 0, and one kernel from several threads.
// Skipped where there is no CUDA device.
//
// GEMMTUNE_SKINNY_TEST_CONFIGS=N runs only the first N configs of each problem (compute-sanitizer
// runs take a few configs, not all).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "backends/cuda/cuda_backends.h"
#include "backends/cuda/skinny_backend.h"
#include "backends/cuda/skinny_config_space.h"
#include "cuda/launch_helpers.h"

namespace gemmtune::cuda {
namespace {

std::size_t config_limit(std::size_t otherwise) {
  const char* text = std::getenv("GEMMTUNE_SKINNY_TEST_CONFIGS");
  return text != nullptr ? std::size_t(std::atoi(text)) : otherwise;
}

std::unique_ptr<Backend> backend() { return make_skinny_backend(find_device("cuda:0")->cuda); }

// Runs the problem's default configs (the first `max_configs` of them, 0 for all, fewer where
// GEMMTUNE_SKINNY_TEST_CONFIGS asks) and expects every one to match; returns how many ran.
int verify(const Problem& p, std::size_t max_configs = 0) {
  auto skinny = backend();
  const std::size_t offered = skinny->configs(p, SearchSpace::default_space).size();
  const std::size_t limit = config_limit(max_configs);
  const std::size_t expected = limit == 0 ? offered : std::min(limit, offered);
  const int ran = testing::run_and_verify(*skinny, p, limit, {}, &compile_gemm_skinny);
  EXPECT_EQ(ran, int(expected)) << p.describe();
  return ran;
}

TEST(SkinnyLaunch, EveryDefaultConfigMatchesTheReferenceInEveryDtype) {
  SKIP_WITHOUT_GPU();
  int ran = 0;
  ran += verify(testing::test_problem(16, 4096, 4096, DType::bf16, "nt", DType::bf16, 0.0));
  ran += verify(testing::test_problem(7, 1032, 2000, DType::f16, "nt", DType::f32, 0.0));
  ran += verify(testing::test_problem(16, 2048, 4096, DType::s8, "nt", DType::s32, 0.0));
  EXPECT_GE(ran, 3 * int(std::min<std::size_t>(config_limit(12), 12)));
}

TEST(SkinnyLaunch, EveryLayoutWithOddSizesFromOneRowToSixtyFour) {
  SKIP_WITHOUT_GPU();
  int ran = 0;
  int problems = 0;
  for (const char* layout : {"nt", "nn", "tt", "tn"}) {
    for (std::int64_t m : {1, 13, 64}) {
      // n and k odd: the 16-byte loads give way to element loads at every row and tail.
      const Problem odd = testing::test_problem(m, 999, 1001, DType::bf16, layout, DType::bf16, 0.0);
      // k a multiple of 8 but not of a batch or of the split.
      const Problem aligned = testing::test_problem(m, 520, 1064, DType::f16, layout, DType::f32, 0.0);
      for (const Problem& p : {odd, aligned}) {
        if (backend()->configs(p, SearchSpace::default_space).empty()) {
          EXPECT_TRUE(m == 64 && p.b_layout() == Layout::row_major) << p.describe();  // would spill
          continue;
        }
        ran += verify(p, 3);
        ++problems;
      }
    }
  }
  EXPECT_EQ(problems, 4 * 3 * 2 - 4);
  EXPECT_GE(ran, problems);
}

TEST(SkinnyLaunch, SignedEightBitInBothLayoutsWithOddSizes) {
  SKIP_WITHOUT_GPU();
  int ran = 0;
  for (const char* layout : {"nt", "nn"}) {
    ran += verify(testing::test_problem(3, 777, 1111, DType::s8, layout, DType::s32, 0.0), 4);
    ran += verify(testing::test_problem(32, 1024, 4096, DType::s8, layout, DType::s32, 1.0), 4);
  }
  EXPECT_GE(ran, 2 * 2);
}

TEST(SkinnyLaunch, AlphaBetaAndPaddedLeadingDimensions) {
  SKIP_WITHOUT_GPU();
  int ran = 0;
  for (DType type : {DType::bf16, DType::f16, DType::s8}) {
    ProblemSpec spec = testing::test_problem(24, 1000, 2048, type, "nt", type == DType::s8 ? DType::s32 : type, 1.0).spec();
    spec.lda = 2048 + 64;
    spec.ldb = 2048 + 128;
    spec.ldc = 1000 + 8;
    spec.alpha = type == DType::s8 ? 1.0 : -0.5;
    spec.beta = type == DType::s8 ? 1.0 : 0.75;
    ran += verify(*Problem::create(spec), 4);
  }
  EXPECT_GE(ran, 3);
}

TEST(SkinnyLaunch, KZeroScalesC) {
  SKIP_WITHOUT_GPU();
  EXPECT_GE(verify(testing::test_problem(8, 640, 0, DType::bf16, "nt", DType::f32, 0.5), 2), 1);
}

TEST(SkinnyLaunch, AMisalignedOperandIsRefusedAtRunTimeWithTheReason) {
  SKIP_WITHOUT_GPU();
  const Problem p = testing::test_problem(8, 256, 256, DType::bf16, "nt", DType::bf16, 0.0);
  auto skinny = backend();
  auto kernel = skinny->prepare(p, skinny->configs(p, SearchSpace::default_space).at(0));
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().message();
  testing::DeviceBuffer a(8 * 256 * 2), b(256 * 256 * 2 + 16), c(8 * 256 * 2);
  const Status s = (*kernel)->run({a.ptr, static_cast<char*>(b.ptr) + 2, c.ptr, nullptr});
  EXPECT_EQ(s.code(), ErrorCode::unsupported);
  EXPECT_NE(s.message().find("16-byte aligned"), std::string::npos) << s.message();
}

TEST(SkinnyLaunch, OneSplitKernelRunsFromSeveralThreadsOnTheirOwnStreams) {
  SKIP_WITHOUT_GPU();
  const Problem p = testing::test_problem(16, 2048, 4096, DType::bf16, "nt", DType::bf16, 0.0);
  auto skinny = backend();
  int split = 0;
  for (const KernelConfig& c : skinny->configs(p, SearchSpace::default_space)) {
    if (c.split_k < 2) continue;
    auto kernel = skinny->prepare(p, c);
    ASSERT_TRUE(kernel.is_ok()) << c.to_string() << ": " << kernel.status().message();
    EXPECT_EQ(testing::run_from_threads(**kernel, p), 4) << c.to_string();
    ++split;
    break;
  }
  EXPECT_EQ(split, 1);
}

}  // namespace
}  // namespace gemmtune::cuda
