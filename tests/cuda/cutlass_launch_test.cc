// Runs the cutlass family's kernels on a GPU against the host reference: s8·s8→s32 (the seed's
// case) and bf16 over the whole default list, f16 and bf16 in the other layouts and output
// types, sizes that are no multiple of any tile, padded leading dimensions with alpha and beta,
// each kernel launched twice (stream-K's workspace must serve the next launch); one stream-K
// kernel from several threads on their own streams; a problem TMA cannot address refused with
// the reason. Skipped where there is no Hopper GPU or no CUTLASS. The objects are built once
// into a cache the family's tests share (cutlass_helpers.h): the first run on a machine spends
// a few minutes in nvcc.
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstdio>

#include "backends/cuda/cuda_backends.h"
#include "backends/cuda/cutlass_config_space.h"
#include "cuda/cutlass_helpers.h"
#include "cuda/launch_helpers.h"

namespace gemmtune::cuda {
namespace {

#define SKIP_WITHOUT_HOPPER_AND_CUTLASS()                                             \
  SKIP_WITHOUT_GPU();                                                                 \
  SKIP_WITHOUT_CUTLASS();                                                             \
  do {                                                                                \
    auto device_ = find_device("cuda:0");                                             \
    if (!device_.is_ok() || device_->cuda.cc_major != 9) GTEST_SKIP() << "not Hopper"; \
  } while (0)

std::unique_ptr<Backend> backend() {
  testing::use_cutlass_objects_cache();
  auto made = make_cutlass_backend(find_device("cuda:0")->cuda);
  EXPECT_TRUE(made.is_ok()) << made.status().message();
  return made.is_ok() ? std::move(*made) : nullptr;
}

// The default list's rows for `p` (the first `rows` of them when given), built in parallel
// first, each run twice against the reference. CUTLASS's own check of an instance against a
// problem (Gemm::can_implement) runs in the object, so a row may be refused at prepare: with
// `may_refuse` that is allowed when the reason names it; otherwise every row must run. Returns
// how many rows matched both times.
int verify(const Problem& p, std::size_t rows = 0, bool may_refuse = false) {
  auto cutlass = backend();
  std::vector<KernelConfig> configs;
  for (const CutlassListEntry& e : cutlass_default_list()) {
    const KernelConfig c = cutlass_list_config(e, p.a_type());
    if (cutlass->can_implement(p, c).is_ok()) configs.push_back(c);
  }
  if (rows != 0 && configs.size() > rows) configs.resize(rows);
  std::vector<testing::CompileJob> jobs;
  for (const KernelConfig& c : configs) jobs.push_back({p, c});
  testing::compile_all(jobs, find_device("cuda:0")->cuda, &testing::compile_cutlass);
  std::vector<KernelConfig> accepted;
  for (const KernelConfig& c : configs) {
    auto kernel = cutlass->prepare(p, c);
    if (kernel.is_ok()) {
      accepted.push_back(c);
      continue;
    }
    const bool refused = kernel.status().message().find("CUTLASS cannot implement") != std::string::npos;
    EXPECT_TRUE(may_refuse && refused) << c.to_string() << " on " << p.describe() << ": " << kernel.status().message();
    std::printf("refused: %s\n", kernel.status().message().c_str());
  }
  const int matched = testing::run_and_verify(*cutlass, p, 0, accepted, nullptr, 2, false);
  EXPECT_EQ(matched, int(accepted.size())) << p.describe();
  return matched;
}

TEST(CutlassLaunch, EveryDefaultRowMatchesTheReferenceInS8AndBf16) {
  SKIP_WITHOUT_HOPPER_AND_CUTLASS();
  int ran = 0;
  // Sizes of whole tiles: every row runs.
  ran += verify(testing::test_problem(1024, 1024, 1024, DType::s8, "nt", DType::s32, 0.0));
  ran += verify(testing::test_problem(512, 1024, 1024, DType::bf16, "nt", DType::bf16, 0.0));
  EXPECT_EQ(ran, 2 * int(cutlass_default_list().size()));
  // n and k multiples of 16 bytes (TMA) but of no tile, m odd: what CUTLASS takes must match.
  ran = verify(testing::test_problem(1000, 1040, 1040, DType::s8, "nt", DType::s32, 0.0), 0, true);
  ran += verify(testing::test_problem(520, 1032, 1000, DType::bf16, "nt", DType::bf16, 0.0), 0, true);
  EXPECT_GE(ran, int(cutlass_default_list().size()));
}

TEST(CutlassLaunch, OtherLayoutsAndOutputTypesOfSixteenBitInputs) {
  SKIP_WITHOUT_HOPPER_AND_CUTLASS();
  int ran = 0;
  ran += verify(testing::test_problem(200, 328, 456, DType::f16, "nn", DType::f32, 0.0), 2, true);
  ran += verify(testing::test_problem(136, 264, 1000, DType::bf16, "tn", DType::bf16, 0.0), 2, true);
  ran += verify(testing::test_problem(264, 136, 520, DType::f16, "tt", DType::f16, 0.0), 2, true);
  EXPECT_GE(ran, 3);
}

TEST(CutlassLaunch, AlphaBetaAndPaddedLeadingDimensions) {
  SKIP_WITHOUT_HOPPER_AND_CUTLASS();
  int ran = 0;
  for (DType type : {DType::s8, DType::bf16}) ran += verify(testing::padded_with_alpha_beta(300, 264, 400, type), 5, true);
  EXPECT_GE(ran, 5);
}

TEST(CutlassLaunch, AStreamKKernelRunsFromSeveralThreadsOnTheirOwnStreams) {
  SKIP_WITHOUT_HOPPER_AND_CUTLASS();
  auto cutlass = backend();
  // 300×1024: 12 tiles of 128×128 with k = 4096 for 132 SMs: CUTLASS's heuristic splits k, so the
  // kernel uses its workspace, which runs on different streams must take turns on.
  const Problem p = testing::test_problem(300, 1024, 4096, DType::bf16, "nt", DType::bf16, 0.0);
  const KernelConfig c = cutlass_list_config({128, 128, false, 1, 1, true}, DType::bf16);
  ASSERT_TRUE(testing::compile_cutlass(p, c, find_device("cuda:0")->cuda, false).is_ok());
  auto kernel = cutlass->prepare(p, c);
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().message();
  std::printf("stream-K workspace: %zu bytes\n", (*kernel)->workspace_bytes());
  EXPECT_EQ(testing::run_from_threads(**kernel, p), 4);
}

TEST(CutlassLaunch, AProblemTmaCannotAddressIsRefusedWithTheReason) {
  SKIP_WITHOUT_HOPPER_AND_CUTLASS();
  auto cutlass = backend();
  ProblemSpec spec = testing::test_problem(256, 256, 256, DType::bf16, "nt", DType::bf16, 0.0).spec();
  spec.lda = 260;
  const Problem p = *Problem::create(spec);
  EXPECT_TRUE(cutlass->configs(p, SearchSpace::default_space).empty());
  const Status refused = cutlass->can_implement(p, cutlass_list_config(cutlass_default_list()[0], DType::bf16));
  EXPECT_NE(refused.message().find("leading dimension 260"), std::string::npos) << refused.message();
}

}  // namespace
}  // namespace gemmtune::cuda
