// The skinny template compiles with NVRTC for sm_90a (no GPU needed) in every input dtype, both
// layouts of each operand and every row of its list, to tensor-core code without spills; gemv
// (kernel=gemv) every row of its default list, m 1 to 8, every input dtype, with ptxas refusing
// any spill (no cuobjdump needed).
#include <gtest/gtest.h>

#include <set>

#include "backends/cuda/skinny_backend.h"
#include "backends/cuda/skinny_config_space.h"
#include "backends/cuda/skinny_gemv.h"
#include "cuda/compile_helpers.h"
#include "cuda/h100.h"

namespace gemmtune::cuda {
namespace {

using testing::CompileJob;
using testing::h100;

Problem make(std::int64_t m, std::int64_t n, std::int64_t k, DType type, const char* layout, DType out) {
  ProblemSpec spec = Problem::create(m, n, k, type, layout)->spec();
  spec.c_type = out;
  return *Problem::create(spec);
}

// Each distinct instance of the problem's default tensor-core configs (split 1 and split > 1 are two).
std::vector<CompileJob> jobs_of(const Problem& p) {
  std::vector<CompileJob> jobs;
  std::set<std::pair<std::string, bool>> seen;
  for (const KernelConfig& c : skinny_mma_configs(p, SearchSpace::default_space, h100())) {
    KernelConfig base = c;
    base.split_k = 1;
    if (seen.insert({base.to_string(), c.split_k > 1}).second) jobs.push_back({p, c});
  }
  return jobs;
}

TEST(SkinnyCompile, EveryListRowOfSixteenBitInputsCompilesToHmmaWithoutSpills) {
  std::vector<CompileJob> jobs;
  for (const Problem& p : {make(1, 4096, 4096, DType::bf16, "nt", DType::bf16),
                           make(32, 4096, 4096, DType::bf16, "nt", DType::bf16),
                           make(64, 4096, 4096, DType::bf16, "nt", DType::bf16),
                           make(16, 4096, 4096, DType::f16, "nn", DType::f32),
                           make(5, 1000, 1001, DType::f16, "tt", DType::f16)}) {
    auto more = jobs_of(p);
    EXPECT_FALSE(more.empty()) << p.describe();
    jobs.insert(jobs.end(), more.begin(), more.end());
  }
  const int compiled = testing::expect_all_compile(jobs, "HMMA", &compile_gemm_skinny);
  EXPECT_EQ(std::size_t(compiled), jobs.size());
  EXPECT_GE(compiled, 20);
}

// Every default row of the tensor-core kernel at the decode sizes, through ptxas's own report
// (no cuobjdump needed): the register estimate is an upper bound for 8-warp blocks, but a block
// of 16 warps gets at most 128 registers a thread, so A staged per group (a=group) in such a
// block must fit there.
TEST(SkinnyCompile, EveryDefaultRowAtTheDecodeSizesCompilesWithoutSpills) {
  std::vector<testing::PtxasJob> jobs;
  int staged = 0;
  for (std::int64_t m : {8, 16, 32, 64}) {
    const Problem p = make(m, 4096, 4096, DType::bf16, "nt", DType::bf16);
    for (const CompileJob& job : jobs_of(p)) {
      if (job.config.split_k > 1) continue;  // the same registers as split 1, give or take the fix-up
      const SkinnyInstance w = skinny_instance(p, job.config);
      jobs.push_back({job.config.to_string() + " for " + p.describe(), std::string(gemm_skinny_source()),
                      w.options(h100().arch())});
      staged += w.a_group;
    }
  }
  EXPECT_GE(staged, 6);
  EXPECT_EQ(testing::expect_no_spills(jobs), int(jobs.size()));
}

TEST(SkinnyCompile, SignedEightBitCompilesToImmaInBothLayouts) {
  std::vector<CompileJob> jobs;
  for (const Problem& p : {make(8, 4096, 4096, DType::s8, "nt", DType::s32), make(32, 4096, 4096, DType::s8, "nn", DType::s32)}) {
    auto more = jobs_of(p);
    EXPECT_FALSE(more.empty()) << p.describe();
    jobs.insert(jobs.end(), more.begin(), more.end());
  }
  const int compiled = testing::expect_all_compile(jobs, "IMMA", &compile_gemm_skinny);
  EXPECT_EQ(std::size_t(compiled), jobs.size());
}

// gemv's default configs of one problem, each distinct instance (the grid and the split's size
// change no code, split 1 and split > 1 no macro either: one compile per kernel variant).
std::vector<CompileJob> gemv_jobs_of(const Problem& p) {
  std::vector<CompileJob> jobs;
  std::set<std::vector<std::string>> seen;
  for (const KernelConfig& c : gemv_configs(p, SearchSpace::default_space, h100())) {
    if (seen.insert(gemv_instance(p, c).options(h100().arch())).second) jobs.push_back({p, c});
  }
  return jobs;
}

// The cubin of a gemv job compiled with ptxas told to fail on any spill: the check
// skinny_compile_test makes with cuobjdump, made without it.
Result<CubinArtifact> compile_gemv_refusing_spills(const Problem& p, const KernelConfig& c, const CudaInfo& device,
                                                   bool /*recompile*/) {
  std::vector<std::string> options = gemv_instance(p, c).options(device.arch());
  options.push_back("--ptxas-options=--warn-on-spills");
  options.push_back("--ptxas-options=--warning-as-error");
  auto cubin = compile_cubin(gemm_gemv_source(), options);
  if (!cubin.is_ok()) return cubin.status();
  return CubinArtifact{*cubin, cubin_key(gemm_gemv_source(), options), false};
}

TEST(SkinnyCompile, EveryGemvListRowCompilesWithoutSpillsFromOneRowToEight) {
  std::vector<CompileJob> jobs;
  for (std::int64_t m : {1, 2, 3, 5, 8}) {
    for (const Problem& p : {make(m, 4096, 4096, DType::bf16, "nt", DType::bf16),
                             make(m, 4096, 14336, DType::f16, "nt", DType::f32)}) {
      auto more = gemv_jobs_of(p);
      EXPECT_GE(more.size(), 4u) << p.describe();
      jobs.insert(jobs.end(), more.begin(), more.end());
    }
  }
  const int compiled = testing::expect_all_compile(jobs, "FFMA", &compile_gemv_refusing_spills);
  EXPECT_EQ(std::size_t(compiled), jobs.size());
  std::printf("gemv: %d instances compiled without spills\n", compiled);
  EXPECT_GE(compiled, 40);
}

TEST(SkinnyCompile, GemvOfSignedEightBitCompilesToDp4aWithoutSpills) {
  std::vector<CompileJob> jobs;
  for (std::int64_t m : {1, 4, 8}) {
    auto more = gemv_jobs_of(make(m, 4096, 4096, DType::s8, "nt", DType::s32));
    EXPECT_GE(more.size(), 4u) << m;
    jobs.insert(jobs.end(), more.begin(), more.end());
  }
  const int compiled = testing::expect_all_compile(jobs, "IDP", &compile_gemv_refusing_spills);
  EXPECT_EQ(std::size_t(compiled), jobs.size());
}

TEST(SkinnyCompile, PtxasRefusingSpillsCatchesAGemvThatSpills) {
  // The guard above must bite: r8u2s2 at m 8 holds 8·2·2 vectors and 64 accumulators and
  // spills (the config space never offers it: its estimate is 54 + 6·32 + 4·64 = 502).
  const Problem p = make(8, 4096, 4096, DType::bf16, "nt", DType::bf16);
  KernelConfig c;
  c.kernel = kKernelGemv;
  c.block_m = 8;
  c.warps = 4;
  c.block_n = 8 * 4;
  c.block_k = 2 * 256;
  c.stages = 2;
  c.split_k = 1;
  c.a_source = 1;
  EXPECT_FALSE(check_gemv_config_shape(c, p).is_ok());
  const auto spilled = compile_gemv_refusing_spills(p, c, h100(), false);
  ASSERT_FALSE(spilled.is_ok());
  EXPECT_NE(spilled.status().message().find("spill"), std::string::npos) << spilled.status().message();
}

}  // namespace
}  // namespace gemmtune::cuda
