// Runs the Hopper template's kernels on a GPU and checks them against the host reference: every
// dtype, the four layouts, odd sizes (m, n, k not multiples of any tile, k not a multiple of a
// stage, m = 1), padded leading dimensions (and ones TMA cannot address), alpha and beta, and stream-K (each kernel launched
// twice, so that tile counters a launch left non-zero would show). Skipped where there is no
// CUDA device, or no Hopper one.
//
// GEMMTUNE_WGMMA_TEST_CONFIGS=N runs only the first N configs of each problem (compute-sanitizer
// runs take a few configs, not all).
#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <initializer_list>
#include <vector>

#include "backends/cuda/cuda_backends.h"
#include "backends/cuda/wgmma_backend.h"
#include "backends/cuda/wgmma_config_space.h"
#include "cuda/launch_helpers.h"

namespace gemmtune::cuda {
namespace {

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

// The default list's configs for `p`, with those the tuner leaves out on small problems (large
// and clustered tiles that would keep few SMs busy): the tests cover every kind of tile.
std::vector<KernelConfig> list_configs(const Problem& p) { return wgmma_list_configs(p, find_device("cuda:0")->cuda); }

// Every config of the default list for `p` (or the first `max_configs`), compiled in parallel
// first.
int verify(const Problem& p, std::size_t max_configs = 0) {
  auto wgmma = backend();
  return testing::run_and_verify(*wgmma, p, config_limit(max_configs), list_configs(p), &compile_gemm_wgmma);
}

// Each of `configs` on each problem, launched twice and checked against the reference: with the
// problem's block_k, and fewer stages where its shared memory cannot hold the ones asked (each
// then expected to run). Returns how many ran; `expected` counts the pairs tried.
// Configs as the tuner prints them (block_k is fitted per problem by run_each_on_each).
std::vector<KernelConfig> parsed(std::initializer_list<const char*> texts) {
  std::vector<KernelConfig> configs;
  for (const char* text : texts) configs.push_back(*KernelConfig::parse(text));
  return configs;
}

// With `misaligned_c`, C starts one element past an aligned address (off TMA's 16-byte grid),
// and each kernel must have been compiled with the TMA store (`tma_kernels` counts them).
int run_each_on_each(std::initializer_list<Problem> problems, const std::vector<KernelConfig>& configs, int& expected,
                     bool misaligned_c = false, int* tma_kernels = nullptr) {
  int ran = 0;
  for (const Problem& p : problems) {
    auto wgmma = backend();
    std::vector<KernelConfig> fitted;
    for (KernelConfig c : configs) {
      c.block_k = wgmma_block_k(p.a_type());
      while (!wgmma->can_implement(p, c).is_ok() && c.stages > 2) --c.stages;
      EXPECT_TRUE(wgmma->can_implement(p, c).is_ok()) << c.to_string() << " for " << p.describe();
      fitted.push_back(c);
      if (tma_kernels != nullptr) *tma_kernels += wgmma_instance(p, c).c_tma ? 1 : 0;
    }
    expected += int(fitted.size());
    ran += testing::run_and_verify(*wgmma, p, 0, fitted, &compile_gemm_wgmma, 2, true,
                                   misaligned_c ? dtype_size(p.c_type()) : 0);
  }
  return ran;
}

// The stream-K variant of every config the default space offers `p` (split-k ones aside):
// every kind of tile, cooperative and ping-pong, clusters and swapped operands, wherever the
// space itself would offer stream-K or not.
std::vector<KernelConfig> stream_k_variants(const Backend& wgmma, const Problem& p) {
  std::vector<KernelConfig> variants;
  for (KernelConfig c : list_configs(p)) {
    if (c.split_k > 1) continue;
    c.stream_k = 1;
    if (std::find(variants.begin(), variants.end(), c) == variants.end()) variants.push_back(c);
  }
  return variants;
}

// Runs the stream-K variants of `p`'s configs (the first `max_configs`; all when 0), each
// launched twice. Expects every one to match; returns how many did.
int verify_stream_k(const Problem& p, std::size_t max_configs = 0) {
  auto wgmma = backend();
  const std::vector<KernelConfig> configs = stream_k_variants(*wgmma, p);
  const std::size_t limit = config_limit(max_configs);
  const int expected = int(limit == 0 ? configs.size() : std::min(configs.size(), limit));
  const int matched = testing::run_and_verify(*wgmma, p, limit, configs, &compile_gemm_wgmma, 2);
  EXPECT_EQ(matched, expected) << p.describe();
  return matched;
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

// Between 256 and 512 rows the swapped tiles split m evenly (300: two tiles of 152, a width
// that is no power of two and leaves the TMA-store epilogue out): bf16, f16 with f32 out and
// beta, s8 (its widths step by 16), and a tile count along m' that is not a multiple of it.
TEST(WgmmaLaunch, MidMSwappedTilesSplittingMEvenlyMatchTheReference) {
  SKIP_WITHOUT_HOPPER();
  int ran = 0, expected = 0, clustered = 0, tall = 0;
  for (const Problem& p : {testing::test_problem(300, 1000, 1040, DType::bf16, "nt", DType::bf16, 0.0),
                           testing::test_problem(264, 1032, 520, DType::f16, "nt", DType::f32, 0.5),
                           testing::test_problem(456, 392, 1040, DType::s8, "nt", DType::s32, 0.0)}) {
    auto wgmma = backend();
    std::vector<KernelConfig> configs;
    for (const KernelConfig& c : list_configs(p)) {
      if (!c.swap_ab) continue;
      configs.push_back(c);
      clustered += c.cluster_n == 2;
      tall += c.block_m == 256;
    }
    EXPECT_GE(configs.size(), 3u) << p.describe();
    expected += int(configs.size());
    ran += testing::run_and_verify(*wgmma, p, 0, configs, &compile_gemm_wgmma, 2);
  }
  EXPECT_EQ(ran, expected);
  // The 64-row tiles in a cluster of the two CTAs that share the weights, in every case; the
  // 256-row tile where its accumulators fit (300 and 264 rows, not 456).
  EXPECT_EQ(clustered, 3);
  EXPECT_EQ(tall, 2);
}

// The wave-fitted widths (wgmma_config_space.cc: 128×224, 256×112, 128×96, 128×144) are not whole
// 128-byte chunks of C: the TMA-store epilogue writes the chunks through one map and the rest of
// each row through the tail map (16-bit C: 32, 48, 32 and 16 columns; f32 and s32: 16 of 112 and
// 144, none of 224 and 96). Every output width (16-bit, f32, s32), beta 0 (TMA) and not (direct
// stores only), n past the last whole tile.
TEST(WgmmaLaunch, WaveFittedWidthsStoreTheirLastColumnsThroughTheTailMap) {
  SKIP_WITHOUT_HOPPER();
  std::vector<KernelConfig> configs;
  for (const WgmmaListEntry& e : {WgmmaListEntry{128, 224, 4, 2, false, 1, 1, false},
                                  WgmmaListEntry{256, 112, 4, 2, false, 1, 1, false},
                                  WgmmaListEntry{128, 96, 6, 2, false, 1, 1, false},
                                  WgmmaListEntry{128, 144, 5, 2, false, 1, 1, false}}) {
    configs.push_back(wgmma_list_config(e));
  }
  int expected = 0;
  const int ran = run_each_on_each({testing::test_problem(264, 1000, 1040, DType::bf16, "nt", DType::bf16, 0.0),
                                    testing::test_problem(264, 1000, 520, DType::f16, "nt", DType::f32, 0.5),
                                    testing::test_problem(136, 744, 1040, DType::s8, "nt", DType::s32, 0.0),
                                    testing::test_problem(136, 744, 520, DType::f32, "nt", DType::f32, 0.0)},
                                   configs, expected);
  EXPECT_EQ(ran, expected);
  EXPECT_EQ(expected, 16);
}

// Three consumer warpgroups of 64 rows each (192-row tiles, 152 registers a consumer thread),
// swapped and not, alone, in a cluster, with split-k and stream-K, in every dtype, on sizes past
// the last whole tile.
TEST(WgmmaLaunch, ThreeConsumerTilesMatchTheReference) {
  SKIP_WITHOUT_HOPPER();
  const std::vector<KernelConfig> configs =
      parsed({"bm=192 bn=80 stages=5 warps=16 gm=8 swap=1", "bm=192 bn=80 stages=5 warps=16 gm=8 cn=2 swap=1",
              "bm=192 bn=128 stages=4 warps=16 gm=8", "bm=192 bn=128 stages=4 warps=16 gm=8 splitk=2",
              "bm=192 bn=128 stages=4 warps=16 gm=8 streamk=1"});
  int expected = 0;
  const int ran = run_each_on_each({testing::test_problem(300, 1000, 1040, DType::bf16, "nt", DType::bf16, 0.0),
                                    testing::test_problem(264, 1032, 520, DType::f16, "nt", DType::f32, 0.5),
                                    testing::test_problem(200, 744, 1040, DType::s8, "nt", DType::s32, 0.0),
                                    testing::test_problem(136, 744, 520, DType::f32, "nt", DType::f32, 0.0)},
                                   configs, expected);
  EXPECT_EQ(ran, expected);
  EXPECT_EQ(expected, 20);
}

// Split clusters (reduce=cluster): the slices of a tile are the CTAs of one cluster and meet in
// the first one's shared memory. 2, 3, 4 and 8 slices, one and two consumers, swapped and not,
// k-blocks that the slices share unevenly (1040: 17 of 64), every dtype, each launched twice
// (the barriers' phases carry over from tile to tile and must start afresh in each launch).
TEST(WgmmaLaunch, SplitClustersSumTheirSlicesInDistributedSharedMemory) {
  SKIP_WITHOUT_HOPPER();
  const std::vector<KernelConfig> configs = parsed(
      {"bm=64 bn=16 stages=8 warps=8 gm=8 splitk=2 reduce=cluster swap=1",
       "bm=64 bn=32 stages=8 warps=8 gm=8 splitk=4 reduce=cluster swap=1",
       "bm=128 bn=32 stages=6 warps=12 gm=8 splitk=8 reduce=cluster swap=1",
       "bm=128 bn=128 stages=4 warps=12 gm=8 splitk=3 reduce=cluster"});
  int expected = 0;
  const int ran = run_each_on_each({testing::test_problem(40, 1000, 1040, DType::bf16, "nt", DType::bf16, 0.0),
                                    testing::test_problem(24, 392, 1040, DType::f16, "nt", DType::f32, 0.5),
                                    testing::test_problem(32, 744, 1040, DType::s8, "nt", DType::s32, 0.0),
                                    testing::test_problem(16, 744, 520, DType::f32, "nt", DType::f32, 0.0)},
                                   configs, expected);
  EXPECT_EQ(ran, expected);
  EXPECT_EQ(expected, 16);
}

TEST(WgmmaLaunch, SmallMRunsTheSwappedConfigsDownToOneRow) {
  SKIP_WITHOUT_HOPPER();
  int swapped = 0;
  for (std::int64_t m : {1, 8, 24, 64}) {
    const Problem p = testing::test_problem(m, 1024, 2048, DType::bf16, "nt", DType::bf16, 0.0);
    auto wgmma = backend();
    std::vector<KernelConfig> configs;
    for (const KernelConfig& c : list_configs(p)) {
      if (c.swap_ab) configs.push_back(c);
    }
    swapped += testing::run_and_verify(*wgmma, p, config_limit(0), configs, &compile_gemm_wgmma);
  }
  EXPECT_GE(swapped, 4 * at_most(4));
}

TEST(WgmmaLaunch, AlphaBetaAndPaddedLeadingDimensions) {
  SKIP_WITHOUT_HOPPER();
  int ran = 0;
  for (DType type : {DType::bf16, DType::f16, DType::s8, DType::f32}) ran += verify(testing::padded_with_alpha_beta(300, 264, 400, type), 3);
  EXPECT_EQ(ran, 4 * at_most(3));
}

// Leading dimensions that are not a multiple of 16 bytes, which TMA cannot address: the kernel
// reads a padded copy, made before it on every call (padded_operand.h). A transposed A
// of 300 and 100 rows (tn, tt), a row-major B of odd width (nn), and k-major operands of odd k
// in s8 and TF32 (nt: both padded); swapped configs among them.
TEST(WgmmaLaunch, OperandsTmaCannotAddressAreReadFromPaddedCopies) {
  SKIP_WITHOUT_HOPPER();
  int ran = 0, padded = 0;
  for (const Problem& p : {testing::test_problem(300, 264, 400, DType::bf16, "tn", DType::bf16, 0.0),
                           testing::test_problem(100, 520, 1040, DType::bf16, "tt", DType::f32, 0.5),
                           testing::test_problem(136, 1001, 520, DType::f16, "nn", DType::f32, 0.5),
                           testing::test_problem(264, 392, 1000, DType::s8, "nt", DType::s32, 0.0),
                           testing::test_problem(264, 392, 1001, DType::f32, "nt", DType::f32, 0.0)}) {
    const WgmmaMapping map = wgmma_mapping(p, list_configs(p).at(0));
    padded += (map.a.caller_ld != 0) + (map.b.caller_ld != 0);
    ran += verify(p, 4);
  }
  EXPECT_EQ(padded, 7) << "one padded operand in tn, tt and nn; both in s8 and TF32 nt";
  EXPECT_EQ(ran, 5 * at_most(4));
}

// A kernel compiled with the TMA-store epilogue (beta 0, an ldc TMA can address) called with a C
// off the 16-byte grid: C goes out through the staged fallback (gt_store_slice_staged). Whole
// chunks and a width with direct-stored last columns, ping-pong, split-k and stream-K, every
// output width, sizes past the last whole tile.
TEST(WgmmaLaunch, AnUnalignedCGoesOutThroughTheStagedStores) {
  SKIP_WITHOUT_HOPPER();
  const std::vector<KernelConfig> configs =
      parsed({"bm=128 bn=256 stages=4 warps=12 gm=8", "bm=128 bn=224 stages=4 warps=12 gm=8",
              "bm=64 bn=256 stages=4 warps=12 gm=8 pp=1", "bm=128 bn=128 stages=6 warps=12 gm=8 splitk=2",
              "bm=128 bn=128 stages=6 warps=12 gm=8 streamk=1"});
  int expected = 0, tma_kernels = 0;
  const int ran = run_each_on_each({testing::test_problem(264, 1000, 520, DType::bf16, "nt", DType::bf16, 0.0),
                                    testing::test_problem(136, 744, 520, DType::f16, "nt", DType::f32, 0.0),
                                    testing::test_problem(200, 744, 1040, DType::s8, "nt", DType::s32, 0.0)},
                                   configs, expected, true, &tma_kernels);
  EXPECT_EQ(ran, expected);
  EXPECT_EQ(expected, 15);
  EXPECT_EQ(tma_kernels, 15) << "every kernel here is compiled with the TMA store";
}

// beta != 0 or an ldc TMA cannot address: the kernel is compiled with the direct store alone.
TEST(WgmmaLaunch, KernelsForBetaOrAnUnalignedLdcAreCompiledWithoutTheTmaStore) {
  const KernelConfig c = *KernelConfig::parse("bm=128 bn=256 stages=4 warps=12 gm=8");
  EXPECT_TRUE(wgmma_instance(testing::test_problem(256, 1024, 512, DType::bf16, "nt", DType::bf16, 0.0), c).c_tma);
  EXPECT_FALSE(wgmma_instance(testing::test_problem(256, 1024, 512, DType::bf16, "nt", DType::bf16, 1.0), c).c_tma);
  EXPECT_FALSE(wgmma_instance(testing::test_problem(256, 1003, 512, DType::bf16, "nt", DType::bf16, 0.0), c).c_tma);
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
  // The first config, and its split-k and stream-K variants, whose runs share a workspace and
  // take turns.
  const KernelConfig first = wgmma->configs(p, SearchSpace::default_space).at(0);
  KernelConfig split = first;
  split.split_k = 2;
  KernelConfig stream_k = first;
  stream_k.stream_k = 1;
  for (const KernelConfig& c : {first, split, stream_k}) {
    auto kernel = wgmma->prepare(p, c);
    ASSERT_TRUE(kernel.is_ok()) << c.to_string() << ": " << kernel.status().message();
    EXPECT_EQ(testing::run_from_threads(**kernel, p), 4) << c.to_string();
  }
}

TEST(WgmmaLaunch, StreamKOnOddSizesInBothConsumerModesTwiceInARow) {
  SKIP_WITHOUT_HOPPER();
  int ran = 0;
  // k = 760: 11.9 k-blocks, the last one partial. 64×64 tiles make 272 for 132 SMs: two waves
  // run whole (two tiles a CTA) and 8 + 132 are shared, a cluster taking the tail of one tile,
  // a whole one and the head of another; 128×256 tiles make 40, all shared, a tile among 3-4
  // clusters; clusters of 2 along m leave a CTA's tile past the edge.
  ran += verify_stream_k(testing::test_problem(1000, 1032, 760, DType::bf16, "nt", DType::bf16, 0.0));
  // m-major A (tn) into f32, and every layout of B'.
  ran += verify_stream_k(testing::test_problem(520, 3000, 2056, DType::f16, "tn", DType::f32, 0.0), 6);
  ran += verify_stream_k(testing::test_problem(264, 1000, 1000, DType::bf16, "nn", DType::bf16, 0.0), 6);
  // Small m: swapped tiles, m' = 2056 along the tile's rows and n' = 24.
  ran += verify_stream_k(testing::test_problem(24, 2056, 1000, DType::bf16, "nt", DType::bf16, 0.0), 6);
  EXPECT_GE(ran, 3 * at_most(6) + at_most(10));
}

TEST(WgmmaLaunch, StreamKWithAlphaBetaS8Tf32AndPaddedLeadingDimensions) {
  SKIP_WITHOUT_HOPPER();
  int ran = 0;
  // k = 2080: 33 k-blocks of bf16, the last one half full (17 of s8, 65 of TF32); 3 × 3 tiles of
  // 128×256 shared by all the SMs.
  for (DType type : {DType::bf16, DType::f16, DType::s8, DType::f32}) {
    ran += verify_stream_k(testing::padded_with_alpha_beta(300, 520, 2080, type), 3);
  }
  EXPECT_EQ(ran, 4 * at_most(3));
}

TEST(WgmmaLaunch, StreamKWithKZeroScalesC) {
  SKIP_WITHOUT_HOPPER();
  // No k-blocks: nothing is shared out, every tile is written whole as beta·C.
  EXPECT_EQ(verify_stream_k(testing::test_problem(200, 136, 0, DType::bf16, "nt", DType::f32, 0.5), 2), at_most(2));
}

}  // namespace
}  // namespace gemmtune::cuda
