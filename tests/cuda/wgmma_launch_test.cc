// Runs the Hopper template's kernels on a GPU and checks them against the host reference: every
// dtype, the four layouts, odd sizes (m, n, k not multiples of any tile, k not a multiple of a
// stage, m = 1), padded leading dimensions, alpha and beta. Skipped where there is no CUDA
// device, or no Hopper one.
//
// GEMMTUNE_WGMMA_TEST_CONFIGS=N runs only the first N configs of each problem (compute-sanitizer
// runs take a few configs, not all).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>

#include "backends/cuda/cuda_backends.h"
#include "backends/cuda/wgmma_backend.h"
#include "backends/cuda/wgmma_config_space.h"
#include "cuda/launch_helpers.h"

namespace gemmtune::cuda {
namespace {

#define SKIP_WITHOUT_HOPPER()                                                         \
  SKIP_WITHOUT_GPU();                                                                 \
  do {                                                                                \
    auto device_ = find_device("cuda:0");                                             \
    if (!device_.is_ok() || device_->cuda.cc_major != 9) GTEST_SKIP() << "not Hopper"; \
  } while (0)

std::size_t config_limit(std::size_t otherwise) {
  const char* text = std::getenv("GEMMTUNE_WGMMA_TEST_CONFIGS");
  return text != nullptr ? std::size_t(std::atoi(text)) : otherwise;
}

// `count` configs, or fewer where GEMMTUNE_WGMMA_TEST_CONFIGS asks for fewer.
int at_most(int count) {
  const std::size_t limit = config_limit(0);
  return limit == 0 ? count : std::min(count, int(limit));
}

std::unique_ptr<Backend> backend() { return make_wgmma_backend(find_device("cuda:0")->cuda); }

// Every config of `p` (or the first `max_configs`), compiled in parallel first.
int verify(const Problem& p, std::size_t max_configs = 0) {
  auto wgmma = backend();
  return testing::run_and_verify(*wgmma, p, config_limit(max_configs), {}, &compile_gemm_wgmma);
}

TEST(WgmmaLaunch, EveryDefaultConfigMatchesTheReferenceInEveryDtype) {
  SKIP_WITHOUT_HOPPER();
  int ran = 0;
  ran += verify(testing::test_problem(520, 1032, 1000, DType::bf16, "nt", DType::bf16, 0.0));
  ran += verify(testing::test_problem(520, 1032, 1000, DType::f16, "nt", DType::f32, 0.0));
  ran += verify(testing::test_problem(264, 392, 1040, DType::s8, "nt", DType::s32, 0.0));
  ran += verify(testing::test_problem(264, 392, 520, DType::f32, "nt", DType::f32, 0.0));
  EXPECT_GE(ran, 4 * at_most(10));
}

TEST(WgmmaLaunch, EveryLayoutOfSixteenBitInputsWithOddSizes) {
  SKIP_WITHOUT_HOPPER();
  int ran = 0;
  for (const char* layout : {"nn", "nt", "tn", "tt"}) {
    // m, n, k multiples of 8 (16 bytes, which TMA needs of each leading dimension) but of no
    // tile; k not a multiple of the 64 a stage holds.
    ran += verify(testing::test_problem(200, 328, 456, DType::f16, layout, DType::f16, 0.0), 4);
    ran += verify(testing::test_problem(136, 72, 1000, DType::bf16, layout, DType::f32, 0.0), 4);
  }
  EXPECT_EQ(ran, 4 * 2 * at_most(4));
}

TEST(WgmmaLaunch, SmallMRunsTheSwappedConfigsDownToOneRow) {
  SKIP_WITHOUT_HOPPER();
  int swapped = 0;
  for (std::int64_t m : {1, 8, 24, 64}) {
    const Problem p = testing::test_problem(m, 1024, 2048, DType::bf16, "nt", DType::bf16, 0.0);
    auto wgmma = backend();
    std::vector<KernelConfig> configs;
    for (const KernelConfig& c : wgmma->configs(p, SearchSpace::default_space)) {
      if (c.swap_ab) configs.push_back(c);
    }
    swapped += testing::run_and_verify(*wgmma, p, config_limit(0), configs, &compile_gemm_wgmma);
  }
  EXPECT_GE(swapped, 4 * at_most(4));
}

TEST(WgmmaLaunch, AlphaBetaAndPaddedLeadingDimensions) {
  SKIP_WITHOUT_HOPPER();
  int ran = 0;
  for (DType type : {DType::bf16, DType::f16, DType::s8, DType::f32}) {
    ProblemSpec spec = testing::test_problem(300, 264, 400, type, "nt", type == DType::s8 ? DType::s32 : type, 1.0).spec();
    spec.lda = 400 + 64;
    spec.ldb = 400 + 128;
    spec.ldc = 264 + 8;
    spec.alpha = type == DType::s8 ? 1.0 : -0.5;
    spec.beta = type == DType::s8 ? 1.0 : 0.75;
    ran += verify(*Problem::create(spec), 3);
  }
  EXPECT_EQ(ran, 4 * at_most(3));
}

TEST(WgmmaLaunch, KZeroScalesCAndAnEmptyProblemRuns) {
  SKIP_WITHOUT_HOPPER();
  EXPECT_EQ(verify(testing::test_problem(64, 64, 0, DType::bf16, "nt", DType::f32, 0.5), 2), 2);
}

TEST(WgmmaLaunch, AMisalignedOperandIsRefusedAtRunTimeWithTheReason) {
  SKIP_WITHOUT_HOPPER();
  const Problem p = testing::test_problem(128, 128, 128, DType::bf16, "nt", DType::bf16, 0.0);
  auto wgmma = backend();
  auto kernel = wgmma->prepare(p, wgmma->configs(p, SearchSpace::default_space).at(0));
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().message();
  testing::DeviceBuffer a(128 * 128 * 2 + 16), b(128 * 128 * 2), c(128 * 128 * 2);
  const Status s = (*kernel)->run({static_cast<char*>(a.ptr) + 2, b.ptr, c.ptr, nullptr});
  EXPECT_EQ(s.code(), ErrorCode::unsupported);
  EXPECT_NE(s.message().find("16-byte aligned"), std::string::npos) << s.message();
}

TEST(WgmmaLaunch, OneKernelRunsFromSeveralThreadsOnTheirOwnStreams) {
  SKIP_WITHOUT_HOPPER();
  const Problem p = testing::test_problem(512, 512, 512, DType::bf16, "nt", DType::bf16, 0.0);
  auto wgmma = backend();
  // The first config, and its split-k variant, whose runs share a workspace and take turns.
  const KernelConfig first = wgmma->configs(p, SearchSpace::default_space).at(0);
  KernelConfig split = first;
  split.split_k = 2;
  for (const KernelConfig& c : {first, split}) {
    auto kernel = wgmma->prepare(p, c);
    ASSERT_TRUE(kernel.is_ok()) << c.to_string() << ": " << kernel.status().message();
    EXPECT_EQ(testing::run_from_threads(**kernel, p), 4) << c.to_string();
  }
}

}  // namespace
}  // namespace gemmtune::cuda
