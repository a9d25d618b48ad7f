// gemm_skinny.cuh run on the host by tests/cuda/kernel_emulation.h, checked against the
// reference: every input dtype, both layouts of A and of B, the permuted k of the 16-byte loads
// and the nn byte permutes, partial blocks of n, k tails, A in several passes, one and two
// stages, and split k finished by the last slice. Runs without a GPU.
#include <gtest/gtest.h>

#include "backends/cuda/skinny_config_space.h"
#include "core/test_buffers.h"
#include "core/verify.h"
#include "cuda/h100.h"
#include "cuda/kernel_emulation.h"

// skinny_instance's pass for bf16 at five mma tiles (checked by run_and_check).
#define GT_TEST_PASS_BF16_MT5 448

// Each configuration is one inclusion of the template in its own namespace; the macros are the
// ones skinny_instance gives for the test's problem and config (checked below).
#define GT_IN 1
#define GT_OUT 2
#define GT_A_KCONTIG 1
#define GT_B_KCONTIG 1
#define GT_MT 1
#define GT_WARPS 2
#define GT_KWARPS 1
#define GT_TILES 1
#define GT_BK 64
#define GT_STAGES 2
#define GT_PASS 1024
#define GT_SPLIT_K 3
#define GT_VEC 1
namespace emu_bf16_nt_split3 {
#include "backends/cuda/kernels/gemm_skinny.cuh"
}
#include "cuda/kernel_emulation_skinny_undef.h"

#define GT_IN 0
#define GT_OUT 0
#define GT_A_KCONTIG 1
#define GT_B_KCONTIG 0
#define GT_MT 2
#define GT_WARPS 2
#define GT_KWARPS 1
#define GT_TILES 4
#define GT_BK 32
#define GT_STAGES 1
#define GT_PASS 1024
#define GT_SPLIT_K 1
#define GT_VEC 0
namespace emu_f16_nn_f32 {
#include "backends/cuda/kernels/gemm_skinny.cuh"
}
#include "cuda/kernel_emulation_skinny_undef.h"

#define GT_IN 3
#define GT_OUT 3
#define GT_A_KCONTIG 0
#define GT_B_KCONTIG 1
#define GT_MT 2
#define GT_WARPS 2
#define GT_KWARPS 1
#define GT_TILES 2
#define GT_BK 128
#define GT_STAGES 2
#define GT_PASS 2048
#define GT_SPLIT_K 2
#define GT_VEC 0
namespace emu_s8_tt_split2 {
#include "backends/cuda/kernels/gemm_skinny.cuh"
}
#include "cuda/kernel_emulation_skinny_undef.h"

#define GT_IN 3
#define GT_OUT 3
#define GT_A_KCONTIG 1
#define GT_B_KCONTIG 0
#define GT_MT 1
#define GT_WARPS 2
#define GT_KWARPS 1
#define GT_TILES 4
#define GT_BK 64
#define GT_STAGES 2
#define GT_PASS 2048
#define GT_SPLIT_K 2
#define GT_VEC 1
namespace emu_s8_nn_split2 {
#include "backends/cuda/kernels/gemm_skinny.cuh"
}
#include "cuda/kernel_emulation_skinny_undef.h"

// A's passes: 64 rows of m leave room for 128 words of k at a time, so k = 600 takes several.
#define GT_IN 1
#define GT_OUT 0
#define GT_A_KCONTIG 1
#define GT_B_KCONTIG 1
#define GT_MT 8
#define GT_WARPS 2
#define GT_KWARPS 1
#define GT_TILES 1
#define GT_BK 64
#define GT_STAGES 2
#define GT_PASS 256
#define GT_SPLIT_K 1
#define GT_VEC 1
namespace emu_bf16_m64_passes {
#include "backends/cuda/kernels/gemm_skinny.cuh"
}
#include "cuda/kernel_emulation_skinny_undef.h"

// Warps that split k (GT_KWARPS): all four on the same rows, A's fragments from global memory,
// k's tail inside the last group's run.
#define GT_IN 1
#define GT_OUT 2
#define GT_A_KCONTIG 1
#define GT_B_KCONTIG 1
#define GT_MT 1
#define GT_WARPS 4
#define GT_KWARPS 4
#define GT_TILES 1
#define GT_BK 64
#define GT_STAGES 2
#define GT_PASS 1024
#define GT_SPLIT_K 1
#define GT_VEC 1
namespace emu_bf16_nt_kwarps4 {
#include "backends/cuda/kernels/gemm_skinny.cuh"
}
#include "cuda/kernel_emulation_skinny_undef.h"

// Two groups of two warps along n, A column-major (element loads), one stage, split k as well.
#define GT_IN 3
#define GT_OUT 3
#define GT_A_KCONTIG 0
#define GT_B_KCONTIG 1
#define GT_MT 2
#define GT_WARPS 4
#define GT_KWARPS 2
#define GT_TILES 2
#define GT_BK 128
#define GT_STAGES 1
#define GT_PASS 2048
#define GT_SPLIT_K 2
#define GT_VEC 0
namespace emu_s8_tt_kwarps2_split2 {
#include "backends/cuda/kernels/gemm_skinny.cuh"
}
#include "cuda/kernel_emulation_skinny_undef.h"

// nn with two groups of one warp, beta, and more groups than some CTAs' batches.
#define GT_IN 0
#define GT_OUT 0
#define GT_A_KCONTIG 1
#define GT_B_KCONTIG 0
#define GT_MT 2
#define GT_WARPS 2
#define GT_KWARPS 2
#define GT_TILES 4
#define GT_BK 32
#define GT_STAGES 2
#define GT_PASS 1024
#define GT_SPLIT_K 3
#define GT_VEC 1
namespace emu_f16_nn_kwarps2_split3 {
#include "backends/cuda/kernels/gemm_skinny.cuh"
}
#include "cuda/kernel_emulation_skinny_undef.h"

// A staged per group in shared memory (GT_A_GROUP): four groups of two warps along n that meet at
// named barriers, 37 rows of m (rows 37..39 of the ring stay zero), k's tail element by element.
#define GT_IN 1
#define GT_OUT 2
#define GT_A_KCONTIG 1
#define GT_B_KCONTIG 1
#define GT_MT 5
#define GT_WARPS 8
#define GT_KWARPS 4
#define GT_A_GROUP 1
#define GT_TILES 1
#define GT_BK 64
#define GT_STAGES 2
#define GT_PASS GT_TEST_PASS_BF16_MT5
#define GT_SPLIT_K 1
#define GT_VEC 1
namespace emu_bf16_nt_agroup4 {
#include "backends/cuda/kernels/gemm_skinny.cuh"
}
#include "cuda/kernel_emulation_skinny_undef.h"

// A column-major staged per group of two warps (every vector element by element), one stage, split k.
#define GT_IN 3
#define GT_OUT 3
#define GT_A_KCONTIG 0
#define GT_B_KCONTIG 1
#define GT_MT 2
#define GT_WARPS 4
#define GT_KWARPS 2
#define GT_A_GROUP 1
#define GT_TILES 2
#define GT_BK 128
#define GT_STAGES 1
#define GT_PASS 2048
#define GT_SPLIT_K 2
#define GT_VEC 0
namespace emu_s8_tt_agroup2_split2 {
#include "backends/cuda/kernels/gemm_skinny.cuh"
}
#include "cuda/kernel_emulation_skinny_undef.h"

// nn, beta, A staged per group of one warp (__syncwarp), groups with no batch.
#define GT_IN 0
#define GT_OUT 0
#define GT_A_KCONTIG 1
#define GT_B_KCONTIG 0
#define GT_MT 2
#define GT_WARPS 2
#define GT_KWARPS 2
#define GT_A_GROUP 1
#define GT_TILES 4
#define GT_BK 32
#define GT_STAGES 2
#define GT_PASS 1024
#define GT_SPLIT_K 3
#define GT_VEC 1
namespace emu_f16_nn_agroup2_split3 {
#include "backends/cuda/kernels/gemm_skinny.cuh"
}
#include "cuda/kernel_emulation_skinny_undef.h"

namespace gemmtune::cuda {
namespace {

KernelConfig config(const Problem& p, int warps, int tiles, int block_k, int stages, int split_k, int k_warps = 0,
                    bool a_group = false) {
  KernelConfig c;
  c.a_source = a_group ? kASourceGroup : kASourceSmem;
  c.block_m = int((p.m() + 7) / 8 * 8);
  c.warps = warps;
  c.k_warps = k_warps;
  c.block_n = warps / std::max(1, k_warps) * 16 * tiles;
  c.block_k = block_k;
  c.stages = stages;
  c.split_k = split_k;
  return c;
}

struct Macros {
  int mt, pass, vec;
  int a_group = 0;
};

// Launches one emulated instantiation the way SkinnyKernel::run does, then checks C.
template <class In, class Out, class Acc>
void run_and_check(void (*gemm)(const In*, const In*, Out*, Acc*, int*, long long, long long, long long, long long,
                                long long, long long, float, float, int),
                   const Problem& p, const KernelConfig& c, Macros macros) {
  ASSERT_TRUE(check_skinny_config_shape(c, p).is_ok()) << check_skinny_config_shape(c, p).message();
  const SkinnyInstance w = skinny_instance(p, c);
  ASSERT_EQ(w.mt, macros.mt);
  ASSERT_EQ(w.pass, macros.pass);
  ASSERT_EQ(int(w.vec), macros.vec);
  ASSERT_EQ(int(w.a_group), macros.a_group);

  TestBuffers buffers(p, 11);
  const Reference reference = compute_reference(p, buffers);
  buffers.reset_c();
  std::vector<unsigned char> scratch(std::size_t(w.workspace_bytes(p.n())) + 16, 0);
  auto* workspace = reinterpret_cast<Acc*>(scratch.data());
  auto* counters = reinterpret_cast<int*>(scratch.data() + w.counters_offset(p.n()));
  const unsigned blocks = unsigned((p.n() + w.block_n() - 1) / w.block_n());
  // Twice: the last slice of each block must leave its counter at zero for the next launch.
  for (int launch = 0; launch < 2; ++launch) {
    buffers.reset_c();
    gt_emu::launch_grid(gemm, GtEmuDim3{blocks, unsigned(w.split_k), 1}, unsigned(w.threads()),
                        std::size_t(w.shared_bytes()), static_cast<const In*>(buffers.a()),
                        static_cast<const In*>(buffers.b()), static_cast<Out*>(buffers.c()), workspace, counters,
                        (long long)p.m(), (long long)p.n(), (long long)p.k(), (long long)p.lda(), (long long)p.ldb(),
                        (long long)p.ldc(), float(p.alpha()), float(p.beta()), /*b_early=*/1);
    const VerifyOutcome outcome = check_output(p, buffers, reference);
    EXPECT_TRUE(outcome.ok) << p.describe() << " " << c.to_string() << " launch " << launch << ": " << outcome.reason;
    EXPECT_EQ(buffers.check_guards(), "");
    if (w.split_k > 1) {
      for (unsigned b = 0; b < blocks; ++b) EXPECT_EQ(counters[b], 0) << "block " << b;
    }
  }
}

TEST(SkinnyKernelEmulation, Bf16NtSplitInThreeWithKTailsAndAPartialBlock) {
  // k = 200: four batches of 64, the last partial; n = 100 in blocks of 32.
  const Problem p = testing::test_problem(5, 100, 200, DType::bf16, "nt", DType::bf16, 0.0);
  run_and_check(emu_bf16_nt_split3::gemmtune_gemm_skinny, p, config(p, 2, 1, 64, 2, 3), {1, 1024, 1});
}

TEST(SkinnyKernelEmulation, F16NnWithBytePermutesElementLoadsAndBeta) {
  // ldb = n = 150: rows not 16-byte aligned, so element loads; 13 rows of m in two mma tiles.
  const Problem p = testing::test_problem(13, 150, 90, DType::f16, "nn", DType::f32, 0.5, 160);
  run_and_check(emu_f16_nn_f32::gemmtune_gemm_skinny, p, config(p, 2, 4, 32, 1, 1), {2, 1024, 0});
}

TEST(SkinnyKernelEmulation, Int8ColumnMajorAWithKNotAMultipleOfFourIsExact) {
  const Problem p = testing::test_problem(9, 70, 150, DType::s8, "tt", DType::s32, 1.0);
  run_and_check(emu_s8_tt_split2::gemmtune_gemm_skinny, p, config(p, 2, 2, 128, 2, 2), {2, 2048, 0});
}

TEST(SkinnyKernelEmulation, Int8NnSixteenByteLoadsSplitInTwo) {
  // lda = k = 304 and ldb = n = 208: 16-byte rows; k a batch and 48 elements past three.
  const Problem p = testing::test_problem(3, 208, 304, DType::s8, "nn", DType::s32, 0.0);
  run_and_check(emu_s8_nn_split2::gemmtune_gemm_skinny, p, config(p, 2, 4, 64, 2, 2), {1, 2048, 1});
}

TEST(SkinnyKernelEmulation, SixtyFourRowsTakeAInSeveralPasses) {
  const Problem p = testing::test_problem(64, 40, 600, DType::bf16, "nt", DType::f32, 0.0);
  run_and_check(emu_bf16_m64_passes::gemmtune_gemm_skinny, p, config(p, 2, 1, 64, 2, 1), {8, 256, 1});
}

TEST(SkinnyKernelEmulation, FourWarpsSplitKInTheBlockWithAFromGlobalMemory) {
  // k = 600: nine batches of 64 and a partial one over four groups; n = 100 in blocks of 16.
  const Problem p = testing::test_problem(5, 100, 600, DType::bf16, "nt", DType::bf16, 0.0);
  run_and_check(emu_bf16_nt_kwarps4::gemmtune_gemm_skinny, p, config(p, 4, 1, 64, 2, 1, 4), {1, 1024, 1});
}

TEST(SkinnyKernelEmulation, Int8TwoWarpGroupsAlongKAndSplitKIsExact) {
  const Problem p = testing::test_problem(9, 70, 333, DType::s8, "tt", DType::s32, 1.0);
  run_and_check(emu_s8_tt_kwarps2_split2::gemmtune_gemm_skinny, p, config(p, 4, 2, 128, 1, 2, 2), {2, 2048, 0});
}

TEST(SkinnyKernelEmulation, F16NnWarpGroupsAlongKWithBetaAndEmptyRuns) {
  // ldb = n = 136 and lda = k = 104 (16-byte rows): four batches of 32, the last partial, over
  // three slices of two groups, so some groups have no batch.
  const Problem p = testing::test_problem(13, 136, 104, DType::f16, "nn", DType::f32, 0.5, 144);
  run_and_check(emu_f16_nn_kwarps2_split3::gemmtune_gemm_skinny, p, config(p, 2, 4, 32, 2, 3, 2), {2, 1024, 1});
}

TEST(SkinnyKernelEmulation, GroupsStageAInSharedMemoryWithRowsPastMAndAKTail) {
  // k = 600: nine batches of 64 and a partial one over four groups; m = 37 in five mma tiles.
  const Problem p = testing::test_problem(37, 100, 600, DType::bf16, "nt", DType::bf16, 0.0);
  run_and_check(emu_bf16_nt_agroup4::gemmtune_gemm_skinny, p, config(p, 8, 1, 64, 2, 1, 4, true),
                {5, GT_TEST_PASS_BF16_MT5, 1, 1});
}

TEST(SkinnyKernelEmulation, Int8ColumnMajorAStagedPerGroupAndSplitKIsExact) {
  const Problem p = testing::test_problem(9, 70, 333, DType::s8, "tt", DType::s32, 1.0);
  run_and_check(emu_s8_tt_agroup2_split2::gemmtune_gemm_skinny, p, config(p, 4, 2, 128, 1, 2, 2, true),
                {2, 2048, 0, 1});
}

TEST(SkinnyKernelEmulation, F16NnAStagedPerOneWarpGroupWithBetaAndEmptyRuns) {
  const Problem p = testing::test_problem(13, 136, 104, DType::f16, "nn", DType::f32, 0.5, 144);
  run_and_check(emu_f16_nn_agroup2_split3::gemmtune_gemm_skinny, p, config(p, 2, 4, 32, 2, 3, 2, true),
                {2, 1024, 1, 1});
}

TEST(SkinnyKernelEmulation, AStagedPerGroupNeedsWarpsThatSplitK) {
  const Problem p = testing::test_problem(9, 70, 333, DType::bf16, "nt", DType::bf16, 0.0);
  EXPECT_FALSE(check_skinny_config_shape(config(p, 4, 1, 64, 2, 1, 0, true), p).is_ok());
  EXPECT_TRUE(check_skinny_config_shape(config(p, 4, 1, 64, 2, 1, 2, true), p).is_ok());
}

}  // namespace
}  // namespace gemmtune::cuda
