// Runs the skinny template's kernels on a GPU against the host reference: every input dtype,
// both layouts of A and of B, odd n and k (k not a multiple of a batch or of the split), m from
// 1 to 64, padded leading dims, alpha and beta, k = 0, and one kernel from several threads.
// gemv (kernel=gemv): every default config of every dtype pair at m 1 to 8 with odd n and k,
// the decode shapes with their splits, the exhaustive space (every split and grid) of one
// problem, k = 0, two launches in a row and from several threads (the counters are set back).
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
#include "backends/cuda/skinny_gemv.h"
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
  // verify() checks that each problem ran every config it offers; this, that those are not a
  // handful (the rows of warps that split k, and gemv at m = 7: 11 or more each).
  EXPECT_GE(ran, 3 * int(std::min<std::size_t>(config_limit(10), 10)));
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

// --- gemv ---

std::vector<KernelConfig> gemv_configs_of(const Problem& p, SearchSpace space = SearchSpace::default_space) {
  std::vector<KernelConfig> out;
  for (const KernelConfig& c : backend()->configs(p, space)) {
    if (c.kernel == kKernelGemv) out.push_back(c);
  }
  return out;
}

// An nt problem gemv takes: rows of A and B padded to 16 bytes (k itself may be odd), alpha 0.75
// (1 for s8), the beta given.
Problem gemv_problem(std::int64_t m, std::int64_t n, std::int64_t k, DType type, DType out, double beta) {
  ProblemSpec spec = testing::test_problem(m, n, k, type, "nt", out, beta).spec();
  const std::int64_t vector = type == DType::s8 ? 16 : 8;
  spec.lda = spec.ldb = std::max<std::int64_t>(vector, (k + vector - 1) / vector * vector);
  return *Problem::create(spec);
}

// Runs `configs` (every gemv default config when empty; the first GEMMTUNE_SKINNY_TEST_CONFIGS
// where set) and expects each to match; returns how many ran.
int verify_gemv(const Problem& p, std::vector<KernelConfig> configs = {}) {
  if (configs.empty()) configs = gemv_configs_of(p);
  EXPECT_FALSE(configs.empty()) << p.describe();
  const std::size_t limit = config_limit(0);
  if (limit != 0 && configs.size() > limit) configs.resize(limit);
  const int ran = testing::run_and_verify(*backend(), p, 0, configs, &compile_gemm_skinny);
  EXPECT_EQ(ran, int(configs.size())) << p.describe();
  return ran;
}

TEST(SkinnyLaunch, GemvEveryDefaultConfigInEveryDtypeFromOneRowToEightWithOddSizes) {
  SKIP_WITHOUT_GPU();
  const std::pair<DType, DType> pairs[] = {{DType::bf16, DType::bf16}, {DType::bf16, DType::f32}, {DType::f16, DType::f16},
                                           {DType::f16, DType::f32},   {DType::s8, DType::s32}};
  int ran = 0, problems = 0;
  for (std::int64_t m = 1; m <= 8; ++m) {
    for (const auto& [in, out] : pairs) {
      // n and k odd: partial row groups, k's last vector loaded element by element; beta 1 on
      // odd m (C read and scaled), 0 on even m (C not read).
      ran += verify_gemv(gemv_problem(m, 1031, 2053, in, out, m % 2 == 1 ? 1.0 : 0.0));
      ++problems;
    }
  }
  EXPECT_EQ(problems, 8 * 5);
  EXPECT_GE(ran, problems * int(std::min<std::size_t>(config_limit(4), 4)));
}

TEST(SkinnyLaunch, GemvDecodeShapesWithTheirSplitsAndAlphaBeta) {
  SKIP_WITHOUT_GPU();
  int ran = 0, split = 0;
  for (const Problem& p : {gemv_problem(1, 4096, 4096, DType::bf16, DType::bf16, 0.0),
                           gemv_problem(1, 4096, 14336, DType::bf16, DType::bf16, 0.0),
                           gemv_problem(8, 4096, 4096, DType::bf16, DType::bf16, 0.0)}) {
    ProblemSpec spec = p.spec();
    spec.alpha = -0.5;
    spec.beta = 0.75;
    const Problem scaled = *Problem::create(spec);
    for (const KernelConfig& c : gemv_configs_of(scaled)) split += c.split_k > 1;
    ran += verify_gemv(scaled);
  }
  const int per_problem_limit = int(config_limit(0));
  EXPECT_GE(ran, per_problem_limit == 0 ? 6 + 6 + 4 : 3 * std::min(per_problem_limit, 4));
  EXPECT_GE(split, 4);  // 1 x 4096 x 14336 splits k 2 to 4 ways in most rows
}

TEST(SkinnyLaunch, GemvExhaustiveSpaceEverySplitAndGrid) {
  SKIP_WITHOUT_GPU();
  const Problem p = gemv_problem(3, 1000, 3000, DType::bf16, DType::f32, 1.0);
  const std::vector<KernelConfig> configs = gemv_configs_of(p, SearchSpace::exhaustive);
  // 8 variants fit M 4 (r8u2s1.l1 and r8u1s2.l1 do not) × 2 warp counts × splits 1, 2, 4 (12
  // steps of k) × 2 grids; 9 distinct compiles.
  EXPECT_EQ(configs.size(), 96u);
  EXPECT_EQ(verify_gemv(p, configs), int(std::min<std::size_t>(configs.size(), config_limit(configs.size()))));
}

TEST(SkinnyLaunch, GemvKZeroScalesC) {
  SKIP_WITHOUT_GPU();
  EXPECT_GE(verify_gemv(gemv_problem(5, 640, 0, DType::bf16, DType::f32, 0.5)), 1);
}

// Runs `kernel` `times` times back to back on one stream, not waiting in between (with PDL the
// launches overlap), and checks C (beta 0: every run writes the same C).
bool runs_in_a_row_match(Kernel& kernel, const Problem& p, int times) {
  TestBuffers host(p, 5);
  const Reference reference = compute_reference(p, host);
  const std::size_t a_bytes = std::size_t(p.a_elements()) * dtype_size(p.a_type());
  const std::size_t b_bytes = std::size_t(p.b_elements()) * dtype_size(p.b_type());
  const std::size_t c_bytes = std::size_t(p.c_elements()) * dtype_size(p.c_type());
  testing::DeviceBuffer a(a_bytes), b(b_bytes), c(c_bytes);
  EXPECT_EQ(cudaMemcpy(a.ptr, host.a(), a_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(b.ptr, host.b(), b_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(c.ptr, host.c(), c_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  cudaStream_t stream = nullptr;
  EXPECT_EQ(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), cudaSuccess);
  bool launched = true;
  for (int i = 0; i < times; ++i) {
    const Status s = kernel.run({a.ptr, b.ptr, c.ptr, stream});
    EXPECT_TRUE(s.is_ok()) << s.message();
    launched = launched && s.is_ok();
  }
  EXPECT_EQ(cudaStreamSynchronize(stream), cudaSuccess);
  cudaStreamDestroy(stream);
  EXPECT_EQ(cudaMemcpy(host.c(), c.ptr, c_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
  const VerifyOutcome outcome = check_output(p, host, reference);
  EXPECT_TRUE(outcome.ok) << outcome.reason;
  return launched && outcome.ok;
}

TEST(SkinnyLaunch, GemvSplitRunsTwiceInARowAndFromSeveralThreads) {
  SKIP_WITHOUT_GPU();
  // Split k: a counter per row group, which the last warp of each group sets back to zero. A
  // second launch on counters left set would finish its groups early and write wrong sums.
  const Problem p = gemv_problem(2, 4096, 4096, DType::bf16, DType::bf16, 0.0);
  auto skinny = backend();
  testing::use_fresh_cubin_cache();
  int split = 0;
  for (const KernelConfig& c : gemv_configs_of(p)) {
    if (c.split_k < 2) continue;
    SCOPED_TRACE(c.to_string());
    auto kernel = skinny->prepare(p, c);
    ASSERT_TRUE(kernel.is_ok()) << kernel.status().message();
    EXPECT_TRUE(runs_in_a_row_match(**kernel, p, 2));
    EXPECT_TRUE(runs_in_a_row_match(**kernel, p, 7));
    if (split++ == 0) EXPECT_EQ(testing::run_from_threads(**kernel, p), 4);
  }
  EXPECT_GE(split, 2);  // r4u2s1.l1 (k2) and r8u1s2.l1 (k4) of both warp counts
}

TEST(SkinnyLaunch, GemvMisalignedOperandIsRefusedAtRunTimeWithTheReason) {
  SKIP_WITHOUT_GPU();
  const Problem p = gemv_problem(1, 256, 256, DType::bf16, DType::bf16, 0.0);
  auto skinny = backend();
  auto kernel = skinny->prepare(p, gemv_configs_of(p).at(0));
  ASSERT_TRUE(kernel.is_ok()) << kernel.status().message();
  testing::DeviceBuffer a(256 * 2 + 16), b(256 * 256 * 2), c(256 * 2);
  const Status s = (*kernel)->run({static_cast<char*>(a.ptr) + 8, b.ptr, c.ptr, nullptr});
  EXPECT_EQ(s.code(), ErrorCode::unsupported);
  EXPECT_NE(s.message().find("16-byte aligned"), std::string::npos) << s.message();
}

}  // namespace
}  // namespace gemmtune::cuda
