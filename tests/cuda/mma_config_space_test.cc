#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstdlib>
#include <set>

#include "backends/cuda/cuda_backends.h"
#include "backends/cuda/mma_backend.h"
#include "backends/cuda/mma_config_space.h"
#include "cuda/h100.h"

namespace gemmtune::cuda {
namespace {

using testing::h100;

Problem make(std::int64_t m, std::int64_t n, std::int64_t k, DType type, const char* layout = "nn",
             bool tf32 = false) {
  ProblemSpec spec = Problem::create(m, n, k, type, layout)->spec();
  spec.allow_tf32 = tf32;
  return *Problem::create(spec);
}

KernelConfig tile(int block_m, int block_n, int block_k, int stages, int warps) {
  KernelConfig c = mma_list_config({block_m, block_n, block_k, stages, warps}, 1);
  c.group_m = kMmaGroupM;
  return c;
}

TEST(MmaConfigSpace, NamedListsHaveTheirRowCounts) {
  EXPECT_EQ(mma_default_list().size(), 12u);
  EXPECT_EQ(mma_int8_list().size(), 8u);
  EXPECT_EQ(mma_tf32_list().size(), 8u);
  EXPECT_EQ(mma_exhaustive_entries().size(), 5u * 4 * 3 * 2 * 3 * 4);
}

// On Hopper the backend offers its defaults only where the wgmma family cannot map the problem;
// elsewhere (and in the exhaustive space) the family's own list is what it offers.
TEST(MmaBackend, OnHopperItsDefaultsServeOnlyWhatWgmmaCannotMap) {
  CudaInfo ampere = h100();
  ampere.cc_major = 8;
  const auto on_hopper = make_mma_backend(h100());
  const auto on_ampere = make_mma_backend(ampere);
  int checked = 0;
  // wgmma maps these: 16-bit inputs in every layout, s8 and TF32 k-major only (layout nt), rows
  // whose byte strides TMA can address (multiples of 16).
  for (const Problem& p : {make(256, 4096, 4096, DType::bf16, "nt"), make(96, 64, 128, DType::f16, "tn"),
                           make(128, 96, 256, DType::s8, "nt")}) {
    ASSERT_FALSE(mma_configs(p, SearchSpace::default_space, h100()).empty()) << p.describe();
    EXPECT_TRUE(on_hopper->configs(p, SearchSpace::default_space).empty()) << p.describe();
    EXPECT_EQ(on_hopper->configs(p, SearchSpace::exhaustive), mma_configs(p, SearchSpace::exhaustive, h100()));
    EXPECT_EQ(on_ampere->configs(p, SearchSpace::default_space),
              mma_configs(p, SearchSpace::default_space, ampere));
    ++checked;
  }
  // wgmma reads 8-bit operands k-major only, and rows of 200 or 140 bytes (not multiples of 16)
  // only from padded copies: these stay this family's too.
  for (const Problem& p : {make(130, 90, 200, DType::s8, "tt"), make(100, 70, 45, DType::f16, "tn")}) {
    ASSERT_FALSE(mma_configs(p, SearchSpace::default_space, h100()).empty()) << p.describe();
    EXPECT_EQ(on_hopper->configs(p, SearchSpace::default_space), mma_configs(p, SearchSpace::default_space, h100()));
    ++checked;
  }
  EXPECT_EQ(checked, 5);
}

TEST(MmaConfigSpace, EveryListRowIsWellFormedForItsDtype) {
  const Problem big_f16 = make(4096, 4096, 4096, DType::f16);
  const Problem big_s8 = make(4096, 4096, 4096, DType::s8);
  const Problem big_tf32 = make(4096, 4096, 4096, DType::f32, "nn", true);
  auto check_list = [](const std::vector<MmaListEntry>& list, const Problem& p) {
    for (const MmaListEntry& e : list) {
      const KernelConfig c = tile(e.block_m, e.block_n, e.block_k, e.stages, e.warps);
      EXPECT_TRUE(mma_can_implement(p, c, h100()).is_ok())
          << c.to_string() << ": " << mma_can_implement(p, c, h100()).message();
    }
  };
  check_list(mma_default_list(), big_f16);
  check_list(mma_int8_list(), big_s8);
  check_list(mma_tf32_list(), big_tf32);
}

TEST(MmaConfigSpace, F32WithoutTf32IsDeclinedWithTheReason) {
  const Problem p = make(256, 256, 256, DType::f32);
  EXPECT_TRUE(mma_configs(p, SearchSpace::default_space, h100()).empty());
  KernelConfig c = mma_configs(make(256, 256, 256, DType::f32, "nn", true), SearchSpace::default_space, h100()).at(0);
  Status s = mma_can_implement(p, c, h100());
  EXPECT_EQ(s.code(), ErrorCode::unsupported);
  EXPECT_EQ(s.message(), "f32 without TF32 has no tensor-core path; cublaslt covers it");
}

TEST(MmaConfigSpace, Tf32FlagIsOnlyForF32AndShowsInTheKey) {
  ProblemSpec spec = Problem::create(8, 8, 8, DType::f16)->spec();
  spec.allow_tf32 = true;
  EXPECT_EQ(Problem::create(spec).status().code(), ErrorCode::invalid_argument);
  const Problem plain = make(8, 8, 8, DType::f32);
  const Problem tf32 = make(8, 8, 8, DType::f32, "nn", true);
  EXPECT_EQ(ProblemKey::of(plain).to_string(), "f32.f32.f32:nn:8x8x8:ld8.8.8:b0");
  EXPECT_EQ(ProblemKey::of(tf32).to_string(), "f32.f32.f32:nn:8x8x8:ld8.8.8:b0:tf32");
  EXPECT_FALSE(ProblemKey::of(plain) == ProblemKey::of(tf32));
}

TEST(MmaConfigSpace, SmallProblemsGetBlocksScaledDownToTheirDims) {
  for (const KernelConfig& c : mma_configs(make(20, 24, 16, DType::f16), SearchSpace::default_space, h100())) {
    EXPECT_LE(c.block_k, 16) << c.to_string();
    // 32 is next_power_of_2(20) and (24); only a warp layout may ask for more.
    EXPECT_LE(c.block_m, 32) << c.to_string();
    EXPECT_LE(c.block_n, 64) << c.to_string();
  }
}

TEST(MmaConfigSpace, SkinnyShapesGetSplitKAndSquareOnesDoNot) {
  bool skinny_split = false;
  for (const KernelConfig& c : mma_configs(make(32, 4096, 8192, DType::bf16), SearchSpace::default_space, h100())) {
    skinny_split |= c.split_k > 1;
  }
  EXPECT_TRUE(skinny_split);
  skinny_split = false;
  for (const KernelConfig& c : mma_configs(make(24, 200, 3000, DType::f16, "nt"), SearchSpace::default_space, h100())) {
    skinny_split |= c.split_k > 1;
  }
  EXPECT_TRUE(skinny_split);
  for (const KernelConfig& c : mma_configs(make(4096, 4096, 4096, DType::bf16), SearchSpace::default_space, h100())) {
    EXPECT_EQ(c.split_k, 1) << c.to_string();
  }
}

TEST(MmaConfigSpace, ConfigsOverTheSharedMemoryLimitArePrunedWithTheReason) {
  CudaInfo small = h100();
  small.shared_memory_per_block_optin = 48 * 1024;
  const Problem p = make(4096, 4096, 4096, DType::f16);
  for (const KernelConfig& c : mma_configs(p, SearchSpace::exhaustive, small)) {
    EXPECT_LE(mma_shared_memory_bytes(c, p), 48 * 1024);
  }
  Status s = check_mma_limits(tile(256, 256, 128, 2, 8), p, small);
  EXPECT_NE(s.message().find("shared memory"), std::string::npos) << s.message();
}

TEST(MmaConfigSpace, AccumulatorsThatWouldSpillArePruned) {
  // 256·256 / 128 threads = 512 accumulators each
  Status s = check_mma_limits(tile(256, 256, 32, 1, 4), make(4096, 4096, 4096, DType::f16), h100());
  EXPECT_NE(s.message().find("accumulators"), std::string::npos) << s.message();
}

TEST(MmaConfigSpace, WideS8TilesWhosePrefetchWouldSpillArePruned) {
  // 128 accumulators pass the accumulator bound, but with 48 words of the next s8 k-tile in
  // flight ptxas spilled kilobytes per thread.
  Status s = check_mma_limits(tile(128, 256, 128, 2, 8), make(4096, 4096, 4096, DType::s8), h100());
  EXPECT_NE(s.message().find("registers"), std::string::npos) << s.message();
  EXPECT_TRUE(check_mma_limits(tile(128, 256, 32, 2, 8), make(4096, 4096, 4096, DType::f16), h100()).is_ok());
}

TEST(MmaConfigSpace, FaultConfigsNeedTheEnvironmentSwitch) {
  const Problem p = make(64, 64, 64, DType::f16);
  KernelConfig fault;
  fault.kernel = kFaultIllegalAddress;
  unsetenv("GEMMTUNE_ALLOW_FAULT_CONFIGS");
  EXPECT_EQ(mma_can_implement(p, fault, h100()).code(), ErrorCode::unsupported);
  setenv("GEMMTUNE_ALLOW_FAULT_CONFIGS", "1", 1);
  EXPECT_TRUE(mma_can_implement(p, fault, h100()).is_ok());
  fault.kernel = kFaultSpin;
  EXPECT_TRUE(mma_can_implement(p, fault, h100()).is_ok());
  fault.kernel = kKernelStream;  // a kernel of another family
  EXPECT_FALSE(mma_can_implement(p, fault, h100()).is_ok());
  unsetenv("GEMMTUNE_ALLOW_FAULT_CONFIGS");
  for (SearchSpace space : {SearchSpace::default_space, SearchSpace::exhaustive}) {
    for (const KernelConfig& c : mma_configs(p, space, h100())) EXPECT_EQ(c.kernel, 0);
  }
}

TEST(MmaConfigSpace, WarpLayoutsTileTheBlockWithWholeMmaTiles) {
  auto layout = warp_layout(128, 128, 8);
  ASSERT_TRUE(layout);
  EXPECT_EQ(layout->warps_m * layout->warps_n, 8);
  EXPECT_EQ(128 % (16 * layout->warps_m), 0);
  EXPECT_FALSE(warp_layout(16, 16, 8));  // 8 warps need at least 16x64 or 128x8
}

rc::Gen<Problem> any_problem() {
  return rc::gen::apply(
      [](int m, int n, int k, int type, int layout, bool beta) {
        static const DType types[] = {DType::f16, DType::bf16, DType::s8, DType::f32};
        static const char* layouts[] = {"nn", "nt", "tn", "tt"};
        ProblemSpec spec = Problem::create(m, n, k, types[type], layouts[layout])->spec();
        spec.allow_tf32 = types[type] == DType::f32;
        spec.beta = beta ? 1.0 : 0.0;
        return *Problem::create(spec);
      },
      rc::gen::inRange(1, 10000), rc::gen::inRange(1, 10000), rc::gen::inRange(1, 10000), rc::gen::inRange(0, 4),
      rc::gen::inRange(0, 4), rc::gen::arbitrary<bool>());
}

RC_GTEST_PROP(MmaConfigSpace, EveryGeneratedConfigIsImplementableFitsTheDeviceAndIsUnique, ()) {
  const Problem p = *any_problem();
  const SearchSpace space = *rc::gen::element(SearchSpace::default_space, SearchSpace::exhaustive);
  const CudaInfo device = h100();
  const auto configs = mma_configs(p, space, device);
  RC_ASSERT(!configs.empty());
  RC_ASSERT(configs.size() <= (space == SearchSpace::exhaustive ? kMmaExhaustiveCap : kMmaDefaultCap));
  std::set<KernelConfig> seen;
  for (const KernelConfig& c : configs) {
    RC_ASSERT(mma_can_implement(p, c, device).is_ok());
    RC_ASSERT(mma_shared_memory_bytes(c, p) <= device.shared_memory_per_block_optin);
    RC_ASSERT(std::int64_t(c.block_m) * c.block_n / (c.warps * 32) <= 128);
    RC_ASSERT(c.warps * 32 <= device.max_threads_per_block);
    RC_ASSERT(c.block_k % mma_k(p.a_type()) == 0);
    RC_ASSERT(seen.insert(c).second);
  }
}

}  // namespace
}  // namespace gemmtune::cuda
