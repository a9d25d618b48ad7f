// gemm_mma.cuh run on the host by tests/cuda/kernel_emulation.h, checked against the reference:
// every dtype, the four layouts, partial tiles, k not a multiple of block_k (nor of the 4 s8
// elements of a word), one and two stages, split-k and the block swizzle. Runs without a GPU.
#include <gtest/gtest.h>

#include "backends/cuda/mma_config_space.h"
#include "core/test_buffers.h"
#include "core/verify.h"
#include "cuda/h100.h"
#include "cuda/kernel_emulation.h"

// Each configuration is one inclusion of the template in its own namespace.
#define GT_IN 0
#define GT_OUT 1
#define GT_A_KCONTIG 1
#define GT_B_KCONTIG 0
#define GT_BM 64
#define GT_BN 64
#define GT_BK 32
#define GT_WM 2
#define GT_WN 2
#define GT_STAGES 2
#define GT_GROUP_M 8
#define GT_SPLIT_K 1
namespace emu_f16_nn {
#include "backends/cuda/kernels/gemm_mma.cuh"
}
#include "cuda/kernel_emulation_undef.h"

#define GT_IN 0
#define GT_OUT 0
#define GT_A_KCONTIG 0
#define GT_B_KCONTIG 1
#define GT_BM 32
#define GT_BN 64
#define GT_BK 64
#define GT_WM 1
#define GT_WN 4
#define GT_STAGES 1
#define GT_GROUP_M 8
#define GT_SPLIT_K 1
namespace emu_f16_tt_f32 {
#include "backends/cuda/kernels/gemm_mma.cuh"
}
#include "cuda/kernel_emulation_undef.h"

#define GT_IN 1
#define GT_OUT 2
#define GT_A_KCONTIG 0
#define GT_B_KCONTIG 0
#define GT_BM 64
#define GT_BN 32
#define GT_BK 32
#define GT_WM 2
#define GT_WN 1
#define GT_STAGES 2
#define GT_GROUP_M 8
#define GT_SPLIT_K 1
namespace emu_bf16_tn {
#include "backends/cuda/kernels/gemm_mma.cuh"
}
#include "cuda/kernel_emulation_undef.h"

#define GT_IN 2
#define GT_OUT 0
#define GT_A_KCONTIG 1
#define GT_B_KCONTIG 1
#define GT_BM 32
#define GT_BN 32
#define GT_BK 16
#define GT_WM 1
#define GT_WN 2
#define GT_STAGES 2
#define GT_GROUP_M 8
#define GT_SPLIT_K 1
namespace emu_tf32_nt {
#include "backends/cuda/kernels/gemm_mma.cuh"
}
#include "cuda/kernel_emulation_undef.h"

#define GT_IN 3
#define GT_OUT 3
#define GT_A_KCONTIG 1
#define GT_B_KCONTIG 1
#define GT_BM 32
#define GT_BN 64
#define GT_BK 64
#define GT_WM 1
#define GT_WN 4
#define GT_STAGES 2
#define GT_GROUP_M 8
#define GT_SPLIT_K 1
namespace emu_s8_nt {
#include "backends/cuda/kernels/gemm_mma.cuh"
}
#include "cuda/kernel_emulation_undef.h"

#define GT_IN 0
#define GT_OUT 1
#define GT_A_KCONTIG 1
#define GT_B_KCONTIG 0
#define GT_BM 16
#define GT_BN 64
#define GT_BK 32
#define GT_WM 1
#define GT_WN 4
#define GT_STAGES 2
#define GT_GROUP_M 8
#define GT_SPLIT_K 4
namespace emu_f16_split4 {
#include "backends/cuda/kernels/gemm_mma.cuh"
}
#include "cuda/kernel_emulation_undef.h"

#define GT_IN 3
#define GT_OUT 3
#define GT_A_KCONTIG 0
#define GT_B_KCONTIG 1
#define GT_BM 16
#define GT_BN 32
#define GT_BK 32
#define GT_WM 1
#define GT_WN 2
#define GT_STAGES 1
#define GT_GROUP_M 8
#define GT_SPLIT_K 2
namespace emu_s8_split2_tt {
#include "backends/cuda/kernels/gemm_mma.cuh"
}
#include "cuda/kernel_emulation_undef.h"

#define GT_IN 0
#define GT_OUT 0
#define GT_A_KCONTIG 1
#define GT_B_KCONTIG 0
#define GT_BM 16
#define GT_BN 32
#define GT_BK 16
#define GT_WM 1
#define GT_WN 2
#define GT_STAGES 2
#define GT_GROUP_M 2
#define GT_SPLIT_K 1
namespace emu_f16_swizzle {
#include "backends/cuda/kernels/gemm_mma.cuh"
}
#include "cuda/kernel_emulation_undef.h"

namespace gemmtune::cuda {
namespace {

KernelConfig config(int bm, int bn, int bk, int stages, int warps, int group_m, int split_k) {
  KernelConfig c;
  c.block_m = bm;
  c.block_n = bn;
  c.block_k = bk;
  c.stages = stages;
  c.warps = warps;
  c.group_m = group_m;
  c.split_k = split_k;
  return c;
}

// Launches one emulated instantiation the way MmaKernel::run does, then checks C.
template <class In, class Out, class Acc>
void run_and_check(void (*gemm)(const In*, const In*, Out*, Acc*, long long, long long, long long, long long,
                                long long, long long, float, float),
                   void (*reduce)(const Acc*, Out*, long long, long long, long long, float, float), const Problem& p,
                   const KernelConfig& c, int warps_m, int warps_n) {
  // The macros above must say what the backend would pass for this config.
  auto layout = warp_layout(c.block_m, c.block_n, c.warps);
  ASSERT_TRUE(layout);
  ASSERT_EQ(layout->warps_m, warps_m);
  ASSERT_EQ(layout->warps_n, warps_n);
  ASSERT_TRUE(check_mma_config_shape(c, p).is_ok()) << check_mma_config_shape(c, p).message();

  TestBuffers buffers(p, 7);
  const Reference reference = compute_reference(p, buffers);
  buffers.reset_c();
  std::vector<Acc> workspace(std::size_t(std::max(1, c.split_k)) * std::size_t(p.m() * p.n()) + 1);
  const long long blocks = ((p.m() + c.block_m - 1) / c.block_m) * ((p.n() + c.block_n - 1) / c.block_n);
  const float alpha = float(p.alpha()), beta = float(p.beta());
  auto* out = static_cast<Out*>(buffers.c());
  gt_emu::launch(gemm, unsigned(blocks), unsigned(std::max(1, c.split_k)), unsigned(c.warps * 32),
                 std::size_t(mma_shared_memory_bytes(c, p)), static_cast<const In*>(buffers.a()),
                 static_cast<const In*>(buffers.b()), out, workspace.data(), (long long)p.m(), (long long)p.n(),
                 (long long)p.k(), (long long)p.lda(), (long long)p.ldb(), (long long)p.ldc(), alpha, beta);
  if (c.split_k > 1) {
    gt_emu::launch(reduce, unsigned((p.m() * p.n() + 255) / 256), 1, 256, 0, static_cast<const Acc*>(workspace.data()),
                   out, (long long)p.m(), (long long)p.n(), (long long)p.ldc(), alpha, beta);
  }
  const VerifyOutcome outcome = check_output(p, buffers, reference);
  EXPECT_TRUE(outcome.ok) << p.describe() << " " << c.to_string() << ": " << outcome.reason;
}

TEST(MmaKernelEmulation, F16RowMajorWithPartialTilesMatchesTheReference) {
  run_and_check(emu_f16_nn::gemmtune_gemm, emu_f16_nn::gemmtune_splitk_reduce,
                testing::test_problem(70, 90, 100, DType::f16, "nn", DType::f16, 0.0), config(64, 64, 32, 2, 4, 8, 1), 2, 2);
}

TEST(MmaKernelEmulation, F16ColumnMajorOneStageF32OutputWithBetaAndPaddedC) {
  run_and_check(emu_f16_tt_f32::gemmtune_gemm, emu_f16_tt_f32::gemmtune_splitk_reduce,
                testing::test_problem(45, 70, 130, DType::f16, "tt", DType::f32, 0.5, 80), config(32, 64, 64, 1, 4, 8, 1), 1, 4);
}

TEST(MmaKernelEmulation, Bf16TnWithBetaOneMatchesTheReference) {
  run_and_check(emu_bf16_tn::gemmtune_gemm, emu_bf16_tn::gemmtune_splitk_reduce,
                testing::test_problem(33, 40, 70, DType::bf16, "tn", DType::bf16, 1.0), config(64, 32, 32, 2, 2, 8, 1), 2, 1);
}

TEST(MmaKernelEmulation, Tf32NtMatchesTheReferenceWithinTf32Rounding) {
  run_and_check(emu_tf32_nt::gemmtune_gemm, emu_tf32_nt::gemmtune_splitk_reduce,
                testing::test_problem(50, 37, 29, DType::f32, "nt", DType::f32, 0.0), config(32, 32, 16, 2, 2, 8, 1), 1, 2);
}

TEST(MmaKernelEmulation, Int8NtWithKNotAMultipleOfFourIsExact) {
  run_and_check(emu_s8_nt::gemmtune_gemm, emu_s8_nt::gemmtune_splitk_reduce,
                testing::test_problem(40, 70, 150, DType::s8, "nt", DType::s32, 1.0), config(32, 64, 64, 2, 4, 8, 1), 1, 4);
}

TEST(MmaKernelEmulation, F16SplitKFourSlicesWithAShortLastSlice) {
  run_and_check(emu_f16_split4::gemmtune_gemm, emu_f16_split4::gemmtune_splitk_reduce,
                testing::test_problem(20, 60, 300, DType::f16, "nn", DType::f16, 0.0), config(16, 64, 32, 2, 4, 8, 4), 1, 4);
}

TEST(MmaKernelEmulation, Int8SplitKColumnMajorIsExact) {
  run_and_check(emu_s8_split2_tt::gemmtune_gemm, emu_s8_split2_tt::gemmtune_splitk_reduce,
                testing::test_problem(17, 33, 100, DType::s8, "tt", DType::s32, 0.0), config(16, 32, 32, 1, 2, 8, 2), 1, 2);
}

TEST(MmaKernelEmulation, BlockSwizzleCoversEveryTileOnce) {
  run_and_check(emu_f16_swizzle::gemmtune_gemm, emu_f16_swizzle::gemmtune_splitk_reduce,
                testing::test_problem(100, 100, 20, DType::f16, "nn", DType::f32, 0.0), config(16, 32, 16, 2, 2, 2, 1), 1, 2);
}

TEST(MmaKernelEmulation, KZeroScalesC) {
  run_and_check(emu_f16_tt_f32::gemmtune_gemm, emu_f16_tt_f32::gemmtune_splitk_reduce,
                testing::test_problem(45, 70, 0, DType::f16, "tt", DType::f32, 0.5, 80), config(32, 64, 64, 1, 4, 8, 1), 1, 4);
}

}  // namespace
}  // namespace gemmtune::cuda
