// Runs the cuda backend's kernels on a GPU and checks them against the host reference.
// Skipped on machines without a CUDA device.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <thread>

#include "backends/cuda/cuda_backends.h"
#include "backends/cuda/mma_backend.h"
#include "backends/cuda/mma_config_space.h"
#include "core/test_buffers.h"
#include "core/verify.h"
#include "cuda/h100.h"
#include "cuda/launch_helpers.h"

namespace gemmtune::cuda {
namespace {

// The family's own default list for `p`, also on Hopper, where the backend leaves it out of
// the default space wherever wgmma maps the problem: these tests check the template itself.
std::vector<KernelConfig> family_defaults(const Problem& p, const CudaInfo& device) {
  return mma_configs(p, SearchSpace::default_space, device);
}

// Prepares each of the first `max_configs` configs (all when 0), runs it, checks C.
void run_and_verify(const Problem& p, std::size_t max_configs = 0) {
  auto device = detect_device(0, host_cpu());
  ASSERT_TRUE(device.is_ok()) << device.status().message();
  testing::run_and_verify(*make_mma_backend(device->cuda), p, max_configs, family_defaults(p, device->cuda));
}

TEST(MmaLaunch, ASplitKKernelRunsFromSeveralThreadsOnTheirOwnStreams) {
  SKIP_WITHOUT_GPU();
  testing::use_fresh_cubin_cache();
  const Problem p = testing::test_problem(24, 200, 3000, DType::f16, "nt", DType::f32, 0.0);
  auto device = detect_device(0, host_cpu());
  ASSERT_TRUE(device.is_ok());
  auto backend = make_mma_backend(device->cuda);
  KernelConfig split;
  for (const KernelConfig& c : family_defaults(p, device->cuda)) {
    if (c.split_k > 1) split = c;
  }
  ASSERT_GT(split.split_k, 1);
  auto kernel = backend->prepare(p, split);
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().message();
  EXPECT_EQ(testing::run_from_threads(**kernel, p), 4);
}

TEST(MmaLaunch, PrepareWithoutADeviceFailsWithAReasonAfterCompiling) {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && count > 0) GTEST_SKIP() << "this machine has a CUDA device";
  cudaGetLastError();
  testing::use_fresh_cubin_cache();
  auto backend = make_mma_backend(testing::h100());
  const Problem p = testing::test_problem(64, 64, 64, DType::f16, "nn", DType::f16, 0.0);
  auto kernel = backend->prepare(p, family_defaults(p, testing::h100()).at(0));
  ASSERT_FALSE(kernel.is_ok());
  EXPECT_EQ(kernel.status().code(), ErrorCode::unavailable) << kernel.status().message();
  EXPECT_EQ(nvrtc_compile_stats().compilations, 1u);
}

TEST(MmaLaunch, F16MatchesTheReferenceForEveryDefaultConfig) {
  SKIP_WITHOUT_GPU();
  run_and_verify(testing::test_problem(257, 129, 77, DType::f16, "nn", DType::f16, 0.0));
}

TEST(MmaLaunch, F16InEveryLayoutWithBetaAndPaddedC) {
  SKIP_WITHOUT_GPU();
  for (const char* layout : {"nn", "nt", "tn", "tt"}) run_and_verify(testing::test_problem(100, 70, 45, DType::f16, layout, DType::f32, 0.5, 80), 3);
}

TEST(MmaLaunch, Bf16MatchesTheReference) {
  SKIP_WITHOUT_GPU();
  run_and_verify(testing::test_problem(300, 200, 130, DType::bf16, "tn", DType::bf16, 1.0), 4);
}

TEST(MmaLaunch, Tf32MatchesTheReference) {
  SKIP_WITHOUT_GPU();
  run_and_verify(testing::test_problem(129, 257, 99, DType::f32, "nt", DType::f32, 0.0), 4);
}

TEST(MmaLaunch, Int8MatchesTheReferenceExactly) {
  SKIP_WITHOUT_GPU();
  run_and_verify(testing::test_problem(130, 90, 200, DType::s8, "tt", DType::s32, 1.0), 4);
}

TEST(MmaLaunch, SplitKOfASkinnyShapeMatchesTheReference) {
  SKIP_WITHOUT_GPU();
  run_and_verify(testing::test_problem(17, 300, 4099, DType::f16, "nn", DType::f16, 0.0));
  run_and_verify(testing::test_problem(9, 64, 2100, DType::s8, "nt", DType::s32, 0.0));
}

TEST(MmaLaunch, ZeroSizedProblemsRunAndKZeroScalesC) {
  SKIP_WITHOUT_GPU();
  run_and_verify(testing::test_problem(33, 40, 0, DType::f16, "nn", DType::f32, 0.5), 2);
}

}  // namespace
}  // namespace gemmtune::cuda
