// The skinny template compiles with NVRTC for sm_90a (no GPU needed) in every input dtype, both
// layouts of each operand and every row of its list, to tensor-core code without spills.
#include <gtest/gtest.h>

#include <set>

#include "backends/cuda/skinny_backend.h"
#include "backends/cuda/skinny_config_space.h"
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

}  // namespace
}  // namespace gemmtune::cuda
