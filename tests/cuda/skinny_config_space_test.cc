// The skinny template's config space: which problems it takes, how it scales the list to m and
// splits k to fill the SMs, and why it prunes; none of it needs a GPU.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <set>

#include "backends/cuda/skinny_backend.h"
#include "backends/cuda/skinny_config_space.h"
#include "backends/cuda/skinny_gemv.h"
#include "cuda/h100.h"

namespace gemmtune::cuda {
namespace {

using testing::h100;

Problem make(std::int64_t m, std::int64_t n, std::int64_t k, DType type, const char* layout = "nt") {
  return *Problem::create(m, n, k, type, layout);
}

TEST(SkinnyConfigSpace, OffersDecodeShapesOfEveryInputDtypeAndNothingAbove64Rows) {
  int offered = 0;
  for (DType type : {DType::f16, DType::bf16, DType::s8}) {
    for (std::int64_t m : {1, 8, 16, 32, 64}) {
      const auto configs = skinny_configs(make(m, 4096, 4096, type), SearchSpace::default_space, h100());
      EXPECT_FALSE(configs.empty()) << "m=" << m << " " << dtype_name(type);
      offered += configs.empty() ? 0 : 1;
    }
  }
  EXPECT_EQ(offered, 15);
  EXPECT_TRUE(skinny_configs(make(65, 4096, 4096, DType::bf16), SearchSpace::default_space, h100()).empty());
  EXPECT_TRUE(skinny_configs(make(8, 4096, 4096, DType::f32), SearchSpace::default_space, h100()).empty());
  const Status big = check_skinny_problem(make(65, 64, 64, DType::bf16));
  EXPECT_EQ(big.code(), ErrorCode::unsupported);
  EXPECT_NE(big.message().find("above"), std::string::npos) << big.message();
  const Status f32 = check_skinny_problem(make(8, 64, 64, DType::f32));
  EXPECT_NE(f32.message().find("f16, bf16 and s8"), std::string::npos) << f32.message();
}

TEST(SkinnyConfigSpace, BlockMIsMRoundedUpToEightAndSplitsFillTheMachine) {
  for (std::int64_t m : {1, 5, 8, 17, 64}) {
    const Problem p = make(m, 4096, 4096, DType::bf16);
    const auto configs = skinny_mma_configs(p, SearchSpace::default_space, h100());
    ASSERT_FALSE(configs.empty());
    std::set<int> splits;
    for (const KernelConfig& c : configs) {
      EXPECT_EQ(c.block_m, (m + 7) / 8 * 8) << c.to_string();
      EXPECT_TRUE(skinny_can_implement(p, c, h100()).is_ok()) << c.to_string();
      // Every config's grid has at least half a wave of CTAs: 64 blocks of n alone would leave
      // most of the 132 SMs idle.
      const std::int64_t blocks = (p.n() + c.block_n - 1) / c.block_n;
      EXPECT_GE(blocks * c.split_k, 132 / 2) << c.to_string();
      splits.insert(c.split_k);
    }
    EXPECT_GE(splits.size(), 3u) << "m=" << m;
    EXPECT_LE(configs.size(), kSkinnyDefaultCap);
  }
}

TEST(SkinnyConfigSpace, TheNnLayoutTakesSixtyFourRowsAWarpAndLargeMOnlyWhereRegistersHold) {
  const Problem nn = make(16, 4096, 4096, DType::bf16, "nn");
  const auto configs = skinny_configs(nn, SearchSpace::default_space, h100());
  ASSERT_FALSE(configs.empty());
  for (const KernelConfig& c : configs) EXPECT_EQ(c.block_n, c.warps * 64) << c.to_string();
  KernelConfig narrow = configs.front();
  narrow.block_n = narrow.warps * 16;
  const Status s = skinny_can_implement(nn, narrow, h100());
  EXPECT_NE(s.message().find("64 rows of n"), std::string::npos) << s.message();
  // m = 64 with B row-major holds 128 accumulators and the permuted words: it would spill.
  EXPECT_TRUE(skinny_configs(make(64, 4096, 4096, DType::bf16, "nn"), SearchSpace::default_space, h100()).empty());
  KernelConfig wide{};
  wide.block_m = 8;
  wide.warps = 4;
  wide.block_n = 4 * 16 * 4;
  wide.block_k = 256;  // 128 words: 4 tiles x 8 chunks x 8 registers, twice
  wide.stages = 2;
  wide.split_k = 1;
  const Status spill = skinny_can_implement(make(8, 4096, 4096, DType::bf16), wide, h100());
  EXPECT_NE(spill.message().find("spill"), std::string::npos) << spill.message();
}

TEST(SkinnyConfigSpace, BadFieldsAreRefusedWithTheReason) {
  const Problem p = make(8, 1024, 1024, DType::bf16);
  const KernelConfig good = skinny_configs(p, SearchSpace::default_space, h100()).at(0);
  struct Case {
    KernelConfig config;
    const char* reason;
  };
  std::vector<Case> cases;
  KernelConfig c = good;
  c.block_m = 4;
  cases.push_back({c, "block_m"});
  c = good;
  c.warps = 3;
  cases.push_back({c, "warps"});
  c = good;
  c.block_k = 40;
  cases.push_back({c, "block_k"});
  c = good;
  c.split_k = 1000;
  cases.push_back({c, "split_k"});
  c = good;
  c.stages = 3;
  cases.push_back({c, "stages"});
  c = good;
  c.isa = 2;
  cases.push_back({c, "fields"});
  for (const Case& bad : cases) {
    const Status s = skinny_can_implement(p, bad.config, h100());
    EXPECT_FALSE(s.is_ok()) << bad.config.to_string();
    EXPECT_NE(s.message().find(bad.reason), std::string::npos) << s.message();
  }
  EXPECT_EQ(cases.size(), 6u);
}

TEST(SkinnyConfigSpace, ThePassOfAFitsItsSharedMemoryAndTheLoadsTheirAlignment) {
  const Problem p = make(64, 4096, 4096, DType::bf16);
  for (const KernelConfig& c : skinny_configs(p, SearchSpace::exhaustive, h100())) {
    const SkinnyInstance w = skinny_instance(p, c);
    EXPECT_LE(w.shared_bytes(), 48 * 1024) << c.to_string();
    EXPECT_EQ(w.pass % c.block_k, 0) << c.to_string();
    EXPECT_EQ((w.pass / 2) % 32, 0) << c.to_string();
    EXPECT_TRUE(w.vec);
  }
  ProblemSpec odd = make(3, 1000, 1001, DType::bf16).spec();  // ldb 1001: rows not 16-byte aligned
  EXPECT_FALSE(skinny_instance(*Problem::create(odd), skinny_configs(*Problem::create(odd), SearchSpace::default_space,
                                                                     h100()).at(0)).vec);
}

RC_GTEST_PROP(SkinnyConfigSpace, EveryOfferedConfigIsImplementable, ()) {
  const auto m = *rc::gen::inRange<std::int64_t>(1, 65);
  const auto n = *rc::gen::inRange<std::int64_t>(1, 20000);
  const auto k = *rc::gen::inRange<std::int64_t>(0, 20000);
  const DType type = *rc::gen::element(DType::f16, DType::bf16, DType::s8);
  const char* layout = *rc::gen::element("nt", "nn", "tt", "tn");
  const Problem p = make(m, n, k, type, layout);
  for (const KernelConfig& c : skinny_configs(p, SearchSpace::default_space, h100())) {
    const Status s = skinny_can_implement(p, c, h100());
    RC_ASSERT(s.is_ok());
    RC_ASSERT((c.kernel == kKernelGemv ? gemv_instance(p, c).registers_estimate()
                                       : skinny_instance(p, c).registers_estimate()) <= 255);
  }
}

}  // namespace
}  // namespace gemmtune::cuda
