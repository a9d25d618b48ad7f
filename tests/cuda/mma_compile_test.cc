// Every config of the named lists, for problems covering the dtypes, the four layouts, odd
// shapes and split-k, compiles with NVRTC for sm_90a and runs on the tensor cores.
#include <gtest/gtest.h>

#include <cstdlib>

#include "backends/cuda/mma_backend.h"
#include "backends/cuda/mma_config_space.h"
#include "cuda/compile_helpers.h"
#include "cuda/h100.h"

namespace gemmtune::cuda {
namespace {

using testing::CompileJob;
using testing::h100;

Problem make(std::int64_t m, std::int64_t n, std::int64_t k, DType type, const char* layout, DType out,
             double beta = 0.0) {
  ProblemSpec spec = Problem::create(m, n, k, type, layout)->spec();
  spec.c_type = out;
  spec.beta = beta;
  spec.allow_tf32 = type == DType::f32;
  return *Problem::create(spec);
}

void expect_mma_compiles(const std::vector<CompileJob>& jobs, const char* mma_opcode) {
  EXPECT_EQ(testing::expect_all_compile(jobs, mma_opcode), int(jobs.size()));
}

std::vector<CompileJob> jobs_for(const Problem& p, SearchSpace space = SearchSpace::default_space) {
  std::vector<CompileJob> jobs;
  for (const KernelConfig& c : mma_configs(p, space, h100())) jobs.push_back({p, c});
  return jobs;
}

TEST(MmaCompile, EveryDefaultConfigCompilesForF16WithHmma) {
  // Odd sizes: partial tiles on every edge and k not a multiple of any block_k.
  expect_mma_compiles(jobs_for(make(1000, 1000, 999, DType::f16, "nn", DType::f16)), "HMMA");
}

TEST(MmaCompile, Bf16InEveryOtherLayoutAndF32OutputCompilesWithHmma) {
  std::vector<CompileJob> jobs;
  const char* layouts[] = {"nt", "tn", "tt"};
  for (int i = 0; i < 3; ++i) {
    const Problem p = make(77, 130, 300, DType::bf16, layouts[i], i == 1 ? DType::f32 : DType::bf16, 0.5);
    auto configs = mma_configs(p, SearchSpace::default_space, h100());
    for (std::size_t j = 0; j < configs.size() && j < 3; ++j) jobs.push_back({p, configs[j]});
  }
  expect_mma_compiles(jobs, "HMMA");
}

TEST(MmaCompile, EveryTf32ConfigCompilesWithHmma) {
  expect_mma_compiles(jobs_for(make(513, 257, 129, DType::f32, "tn", DType::f32)), "HMMA");
}

TEST(MmaCompile, EveryInt8ConfigCompilesWithImma) {
  expect_mma_compiles(jobs_for(make(1024, 1000, 1030, DType::s8, "nt", DType::s32, 1.0)), "IMMA");
}

TEST(MmaCompile, SplitKConfigsOfSkinnyShapesCompile) {
  std::vector<CompileJob> jobs;
  for (DType type : {DType::f16, DType::s8}) {
    const Problem p = make(33, 500, 4100, type, "tt", type == DType::s8 ? DType::s32 : DType::f32);
    for (const KernelConfig& c : mma_configs(p, SearchSpace::default_space, h100())) {
      if (c.split_k > 1) jobs.push_back({p, c});
    }
  }
  expect_mma_compiles(jobs, "MMA");
}

TEST(MmaCompile, FaultConfigsCompile) {
  setenv("GEMMTUNE_ALLOW_FAULT_CONFIGS", "1", 1);
  const Problem p = make(64, 64, 64, DType::f16, "nn", DType::f16);
  KernelConfig wild, spin;
  wild.kernel = kFaultIllegalAddress;
  spin.kernel = kFaultSpin;
  expect_mma_compiles({{p, wild}, {p, spin}}, "HMMA");
  const auto options = gemm_mma_options(p, wild, "sm_90a");
  EXPECT_NE(std::find(options.begin(), options.end(), "-DGEMMTUNE_FAULT=1"), options.end());
}

TEST(MmaCompile, TheTemplateNeedsNothingNewerThanAmpere) {
  testing::use_fresh_cubin_cache();
  const Problem p = make(100, 100, 100, DType::bf16, "nt", DType::bf16);
  for (int minor : {0, 9}) {
    CudaInfo device = h100();
    device.cc_major = 8;
    device.cc_minor = minor;
    device.shared_memory_per_block_optin = 101376;  // 99 KiB on sm_86/89; A100 has more
    const KernelConfig c = mma_configs(p, SearchSpace::default_space, device).at(0);
    auto artifact = compile_gemm_mma(p, c, device);
    ASSERT_TRUE(artifact.is_ok()) << device.arch() << ": " << artifact.status().message();
    EXPECT_TRUE(testing::looks_like_gemm_cubin(artifact->cubin));
  }
}

TEST(MmaCompile, ACompileErrorCarriesTheNvrtcLog) {
  auto result = compile_cubin("this is not CUDA;", {"--gpu-architecture=sm_90a"});
  ASSERT_FALSE(result.is_ok());
  EXPECT_NE(result.status().message().find("error"), std::string::npos) << result.status().message();
}

TEST(MmaCompile, VersionIsAHashOfTheTemplate) {
  EXPECT_EQ(mma_backend_version().rfind("gemm_mma-", 0), 0u);
  EXPECT_EQ(mma_backend_version().size(), 9u + 16u);
  EXPECT_NE(gemm_mma_source().find("mma.sync.aligned.m16n8k16"), std::string_view::npos);
  EXPECT_EQ(gemm_mma_source().find("#include"), std::string_view::npos) << "the template must need no headers";
}

}  // namespace
}  // namespace gemmtune::cuda
