// The skinny template's config space: which problems it takes, how it scales the list to m and
// splits k to fill the SMs, and why it prunes; none of it needs a GPU.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <map>
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
    for (const KernelConfig& c : configs) {
      EXPECT_EQ(c.block_m, (m + 7) / 8 * 8) << c.to_string();
      EXPECT_TRUE(skinny_can_implement(p, c, h100()).is_ok()) << c.to_string();
      // Every config's grid has at least half a wave of CTAs: 64 blocks of n alone would leave
      // most of the 132 SMs idle.
      const std::int64_t blocks = (p.n() + c.block_n - 1) / c.block_n;
      EXPECT_GE(blocks * c.split_k, 132 / 2) << c.to_string();
    }
    EXPECT_LE(configs.size(), kSkinnyDefaultCap);
  }
}

// The default space offers each row of its list at one split of k (half a wave); the
// exhaustive space at several.
TEST(SkinnyConfigSpace, TheDefaultSpaceOffersEachRowAtOneSplitAndTheExhaustiveAtSeveral) {
  auto without_split = [](KernelConfig c) {
    c.split_k = 0;
    return c.to_string();
  };
  int rows = 0;
  for (std::int64_t m : {1, 8, 32}) {
    const Problem p = make(m, 4096, 4096, DType::bf16);
    std::map<std::string, int> splits_of_row;
    for (const KernelConfig& c : skinny_mma_configs(p, SearchSpace::default_space, h100())) ++splits_of_row[without_split(c)];
    for (const auto& [row, count] : splits_of_row) EXPECT_EQ(count, 1) << "m=" << m << ": " << row;
    rows += int(splits_of_row.size());
    std::map<std::string, int> exhaustive;
    for (const KernelConfig& c : skinny_mma_configs(p, SearchSpace::exhaustive, h100())) ++exhaustive[without_split(c)];
    int several = 0;
    for (const auto& [row, count] : exhaustive) several += count > 1;
    EXPECT_GE(several, 1) << "m=" << m;
  }
  EXPECT_GE(rows, 3 * 8);
}

// With B k-contiguous (nt) the default space leaves the one-group rows out wherever warps that
// split k fit; nn keeps them, as it must (its warps take 64 rows of n), and so does the
// exhaustive space.
TEST(SkinnyConfigSpace, NtLeavesOutTheOneGroupRowsWhereWarpsThatSplitKFit) {
  int checked = 0;
  for (std::int64_t m : {1, 8, 32}) {
    for (const KernelConfig& c : skinny_mma_configs(make(m, 4096, 4096, DType::bf16), SearchSpace::default_space, h100())) {
      EXPECT_GT(c.k_warps, 1) << "m=" << m << ": " << c.to_string();
      ++checked;
    }
    int one_group = 0;
    for (const KernelConfig& c : skinny_mma_configs(make(m, 4096, 4096, DType::bf16), SearchSpace::exhaustive, h100())) {
      one_group += c.k_warps <= 1;
    }
    EXPECT_GE(one_group, 1) << "m=" << m;
  }
  int nn_one_group = 0;
  for (const KernelConfig& c : skinny_mma_configs(make(16, 4096, 4096, DType::bf16, "nn"), SearchSpace::default_space, h100())) {
    nn_one_group += c.k_warps <= 1;
  }
  EXPECT_GE(nn_one_group, 1);
  EXPECT_GE(checked, 3 * 8);
}

TEST(SkinnyConfigSpace, TheNnLayoutTakesSixtyFourRowsAWarpAndLargeMOnlyWhereRegistersHold) {
  const Problem nn = make(16, 4096, 4096, DType::bf16, "nn");
  const auto configs = skinny_configs(nn, SearchSpace::default_space, h100());
  ASSERT_FALSE(configs.empty());
  for (const KernelConfig& c : configs) EXPECT_EQ(c.block_n, c.warps / std::max(1, c.k_warps) * 64) << c.to_string();
  KernelConfig narrow = configs.front();
  narrow.block_n = narrow.warps / std::max(1, narrow.k_warps) * 16;
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
  c.k_warps = 3;  // does not divide the warps
  cases.push_back({c, "k_warps"});
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
  EXPECT_EQ(cases.size(), 7u);
}

TEST(SkinnyConfigSpace, ThePassOfAFitsItsSharedMemoryAndTheLoadsTheirAlignment) {
  const Problem p = make(64, 4096, 4096, DType::bf16);
  int split_in_block = 0;
  int a_group = 0;
  for (const KernelConfig& c : skinny_configs(p, SearchSpace::exhaustive, h100())) {
    const SkinnyInstance w = skinny_instance(p, c);
    if (c.k_warps > 1) {
      // The warp groups' partial sums take the shared memory instead of A's pass; with A staged
      // per group, each group's ring of two batches of A's 64 rows (row stride ≡ 16 mod 32 words).
      const std::int64_t partials = std::int64_t(c.k_warps - 1) * (c.block_n / 16) * 8 * 4 * 32 * 4;
      const std::int64_t words = c.block_k / 2;
      const std::int64_t rings = std::int64_t(c.k_warps) * 2 * 64 * (words % 32 == 0 ? words + 16 : words) * 4;
      EXPECT_EQ(w.shared_bytes(), c.a_source == kASourceGroup ? std::max(partials, rings) : partials) << c.to_string();
      EXPECT_LE(w.shared_bytes(), h100().shared_memory_per_block_optin) << c.to_string();
      ++split_in_block;
      a_group += c.a_source == kASourceGroup;
      continue;
    }
    EXPECT_LE(w.shared_bytes(), 48 * 1024) << c.to_string();
    EXPECT_EQ(w.pass % c.block_k, 0) << c.to_string();
    EXPECT_EQ((w.pass / 2) % 32, 0) << c.to_string();
    EXPECT_TRUE(w.vec);
  }
  EXPECT_GT(split_in_block, 0);
  EXPECT_GT(a_group, 0);  // at m = 64 A staged per group leaves the registers for deep batches
  ProblemSpec odd = make(3, 1000, 1001, DType::bf16).spec();  // ldb 1001: rows not 16-byte aligned
  EXPECT_FALSE(skinny_instance(*Problem::create(odd), skinny_configs(*Problem::create(odd), SearchSpace::default_space,
                                                                     h100()).at(0)).vec);
}

TEST(SkinnyConfigSpace, BothSpacesOfferAStagedPerGroupWhereItWonOnTheH100) {
  // bench/results/2026-11-27-h100-skinny-a-group.md: 16 warps in 8 groups of two along n, A
  // staged per group, won m = 16 (128 elements of k a batch) and m = 32 (64) at 4096×4096.
  for (SearchSpace space : {SearchSpace::default_space, SearchSpace::exhaustive}) {
    for (auto [m, text] : {std::pair{16, "bm=16 bn=32 bk=128 stages=2 warps=16 kw=8 splitk=1 a=group"},
                           std::pair{32, "bm=32 bn=32 bk=64 stages=2 warps=16 kw=8 splitk=1 a=group"}}) {
      const Problem p = make(m, 4096, 4096, DType::bf16);
      int found = 0;
      for (const KernelConfig& c : skinny_configs(p, space, h100())) found += c.to_string() == text;
      EXPECT_EQ(found, 1) << text << (space == SearchSpace::exhaustive ? " (exhaustive)" : " (default)");
    }
  }
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

// --- gemv (kernel=gemv) ---

std::vector<KernelConfig> gemv_of(const Problem& p, SearchSpace space = SearchSpace::default_space) {
  std::vector<KernelConfig> out;
  for (const KernelConfig& c : skinny_configs(p, space, h100())) {
    if (c.kernel == kKernelGemv) out.push_back(c);
  }
  return out;
}

TEST(SkinnyConfigSpace, GemvIsOfferedForNtUpToEightRowsWithSixteenByteRowsOnly) {
  int offered = 0;
  for (DType type : {DType::f16, DType::bf16, DType::s8}) {
    for (std::int64_t m = 1; m <= 8; ++m) {
      const auto configs = gemv_of(make(m, 4096, 4096, type));
      EXPECT_GE(configs.size(), 4u) << "m=" << m << " " << dtype_name(type);
      EXPECT_LE(configs.size(), kGemvDefaultCap);
      offered += configs.empty() ? 0 : 1;
      for (const KernelConfig& c : configs) {
        EXPECT_EQ(c.block_m, m <= 1 ? 1 : m <= 2 ? 2 : m <= 4 ? 4 : 8) << c.to_string();
        EXPECT_TRUE(skinny_can_implement(make(m, 4096, 4096, type), c, h100()).is_ok()) << c.to_string();
      }
    }
  }
  EXPECT_EQ(offered, 3 * 8);
  EXPECT_TRUE(gemv_of(make(9, 4096, 4096, DType::bf16)).empty());
  EXPECT_FALSE(skinny_mma_configs(make(9, 4096, 4096, DType::bf16), SearchSpace::default_space, h100()).empty());
  for (const char* layout : {"nn", "tt", "tn"}) EXPECT_TRUE(gemv_of(make(1, 4096, 4096, DType::bf16, layout)).empty());
  // k 1001 makes lda = ldb = 1001: rows of 2002 bytes, not 16-byte aligned.
  EXPECT_TRUE(gemv_of(make(1, 4096, 1001, DType::bf16)).empty());
  const Status odd = check_gemv_problem(make(1, 4096, 1001, DType::bf16));
  EXPECT_NE(odd.message().find("16-byte aligned"), std::string::npos) << odd.message();
  // s8 rows need 16 elements: k 1000 (1000 bytes) is not, k 1008 is.
  EXPECT_TRUE(gemv_of(make(1, 4096, 1000, DType::s8)).empty());
  EXPECT_FALSE(gemv_of(make(1, 4096, 1008, DType::s8)).empty());
  EXPECT_NE(check_gemv_problem(make(9, 64, 64, DType::bf16)).message().find("above gemv"), std::string::npos);
  EXPECT_NE(check_gemv_problem(make(1, 64, 64, DType::bf16, "nn")).message().find("nt"), std::string::npos);
  // The tensor-core list is what it was: gemv only adds to it.
  const Problem p = make(1, 4096, 4096, DType::bf16);
  EXPECT_EQ(skinny_configs(p, SearchSpace::default_space, h100()).size(),
            skinny_mma_configs(p, SearchSpace::default_space, h100()).size() + gemv_of(p).size());
}

// (R, U, stages, A source, warps, split, grid) of a gemv config.
std::string shape_of(const Problem& p, const KernelConfig& c) {
  const GemvInstance g = gemv_instance(p, c);
  return "r" + std::to_string(g.rows_b) + "u" + std::to_string(g.steps) + "s" + std::to_string(g.stages) +
         (g.a_shared ? ".sh" : ".l1") + " w" + std::to_string(g.warps) + " k" + std::to_string(g.split_k) +
         (g.fill ? " fill" : "");
}

TEST(SkinnyConfigSpace, GemvDefaultRowsTakeTheProbesSplitAndGrid) {
  // The rule's cases in skinny_gemv.cc: about 16 tasks (groups x split) an SM at m 1, 8 at m 8,
  // fill in one round, balanced over several.
  const auto shapes = [](const Problem& p) {
    std::set<std::string> out;
    for (const KernelConfig& c : gemv_of(p)) out.insert(shape_of(p, c));
    return out;
  };
  const auto square = shapes(make(1, 4096, 4096, DType::bf16));
  EXPECT_EQ(square.size(), 6u);
  EXPECT_TRUE(square.count("r2u4s1.sh w8 k1 fill"));  // 2048 groups
  EXPECT_TRUE(square.count("r4u2s1.l1 w8 k2 fill"));  // 1024 groups: the probe's r4u2s1.l1 w8 k2
  EXPECT_TRUE(square.count("r8u1s2.l1 w8 k4 fill"));  // 512 groups: the probe's r8u1s2.l1 w8 k4
  const auto tall = shapes(make(1, 14336, 4096, DType::bf16));
  EXPECT_TRUE(tall.count("r2u4s1.sh w8 k1"));  // 7168 groups: several rounds, balanced
  EXPECT_TRUE(tall.count("r4u2s1.l1 w4 k1"));
  const auto deep = shapes(make(1, 4096, 14336, DType::bf16));
  EXPECT_TRUE(deep.count("r8u1s2.l1 w4 k4 fill"));  // the probe's winner
  const auto eight = shapes(make(8, 4096, 4096, DType::bf16));
  EXPECT_EQ(eight.size(), 4u);  // r8 rows would spill at m 8
  EXPECT_TRUE(eight.count("r4u2s1.l1 w4 k1 fill"));  // the probe's winner
  EXPECT_TRUE(shapes(make(8, 14336, 4096, DType::bf16)).count("r2u4s1.sh w8 k1"));  // the probe's winner
  // A slice keeps two steps: k 512 (2 steps) is never split.
  for (const KernelConfig& c : gemv_of(make(1, 256, 512, DType::bf16))) EXPECT_EQ(c.split_k, 1) << c.to_string();
}

TEST(SkinnyConfigSpace, GemvExhaustiveSpaceIsTheProbesGridPruned) {
  const Problem p = make(2, 4096, 14336, DType::bf16);
  const auto all = gemv_of(p, SearchSpace::exhaustive);
  std::set<std::string> variants;
  std::set<int> splits, grids;
  for (const KernelConfig& c : all) {
    EXPECT_TRUE(skinny_can_implement(p, c, h100()).is_ok()) << c.to_string();
    EXPECT_LE(gemv_instance(p, c).shared_bytes(p.k()), h100().shared_memory_per_block_optin) << c.to_string();
    variants.insert(shape_of(p, c).substr(0, 9));
    splits.insert(c.split_k);
    grids.insert(c.grid);
  }
  EXPECT_EQ(variants.size(), 10u);  // every variant the probe timed fits at m 2
  EXPECT_EQ(splits, (std::set<int>{1, 2, 4, 8, 16}));
  EXPECT_EQ(grids, (std::set<int>{0, 1}));
  EXPECT_EQ(all.size(), 10u * 2 * 5 * 2);
  // At m 8 the r8 rows and r4u2s2.sh drop out on registers.
  std::set<std::string> at8;
  for (const KernelConfig& c : gemv_of(make(8, 4096, 4096, DType::bf16), SearchSpace::exhaustive)) {
    at8.insert(shape_of(make(8, 4096, 4096, DType::bf16), c).substr(0, 9));
  }
  EXPECT_EQ(at8.count("r8u1s2.l1"), 0u);
  EXPECT_EQ(at8.count("r4u2s2.sh"), 0u);
  EXPECT_TRUE(at8.count("r4u2s1.l1"));
}

TEST(SkinnyConfigSpace, GemvFieldsRoundTripByName) {
  for (std::int64_t m : {1, 5, 8}) {
    for (const KernelConfig& c : gemv_of(make(m, 14336, 4096, DType::bf16), SearchSpace::exhaustive)) {
      const std::string text = c.to_string();
      EXPECT_NE(text.find("kernel=gemv"), std::string::npos) << text;
      auto back = KernelConfig::parse(text);
      ASSERT_TRUE(back.is_ok()) << text << ": " << back.status().message();
      EXPECT_EQ(*back, c) << text;
    }
  }
  auto named = KernelConfig::parse("bm=1 bn=16 bk=256 stages=2 warps=4 splitk=4 kernel=gemv a=l1 grid=fill");
  ASSERT_TRUE(named.is_ok()) << named.status().message();
  EXPECT_EQ(named->kernel, kKernelGemv);
  EXPECT_EQ(named->a_source, 1);
  EXPECT_EQ(named->grid, 1);
  EXPECT_EQ(named->to_string(), "bm=1 bn=16 bk=256 stages=2 warps=4 splitk=4 kernel=gemv a=l1 grid=fill");
  // The defaults are not printed, and read back by name.
  EXPECT_EQ(KernelConfig::parse("kernel=mma a=smem grid=balanced")->to_string(), "-");
  for (const char* bad : {"kernel=wgmma", "a=l2", "grid=2", "kernel=1"}) {
    EXPECT_FALSE(KernelConfig::parse(bad).is_ok()) << bad;
  }
  EXPECT_EQ(kernel_name(kKernelGemv), "gemv");
  EXPECT_EQ(a_source_name(1), "l1");
  EXPECT_EQ(a_source_name(kASourceGroup), "group");
  EXPECT_EQ(grid_name(0), "balanced");
  auto group = KernelConfig::parse("bm=32 bn=32 bk=64 stages=2 warps=16 kw=8 a=group");
  ASSERT_TRUE(group.is_ok()) << group.status().message();
  EXPECT_EQ(group->a_source, kASourceGroup);
  EXPECT_EQ(group->to_string(), "bm=32 bn=32 bk=64 stages=2 warps=16 kw=8 a=group");
}

TEST(SkinnyConfigSpace, BadGemvFieldsAreRefusedWithTheReason) {
  const Problem p = make(5, 1024, 4096, DType::bf16);
  const KernelConfig good = gemv_of(p).at(0);
  ASSERT_TRUE(skinny_can_implement(p, good, h100()).is_ok());
  struct Case {
    KernelConfig config;
    const char* reason;
  };
  std::vector<Case> cases;
  const auto with = [&](auto change, const char* reason) {
    KernelConfig c = good;
    change(c);
    cases.push_back({c, reason});
  };
  with([](KernelConfig& c) { c.block_m = 4; }, "block_m");  // below m 5
  with([](KernelConfig& c) { c.block_m = 6; }, "block_m");
  with([](KernelConfig& c) { c.block_n = c.warps * 3; }, "block_n");
  with([](KernelConfig& c) { c.block_k = 384; }, "block_k");
  with([](KernelConfig& c) { c.warps = 3; }, "warps");
  with([](KernelConfig& c) { c.stages = 3; }, "stages");
  with([](KernelConfig& c) { c.split_k = 0; }, "split_k");
  with([](KernelConfig& c) { c.split_k = 17; }, "split_k");  // 16 steps of k
  with([](KernelConfig& c) { c.a_source = 2; }, "a_source");
  with([](KernelConfig& c) { c.grid = 2; }, "grid");
  with([](KernelConfig& c) { c.group_m = 8; }, "fields");
  with([](KernelConfig& c) { c.kernel = 2; }, "fields");  // no third kernel
  for (const Case& bad : cases) {
    const Status s = skinny_can_implement(p, bad.config, h100());
    EXPECT_FALSE(s.is_ok()) << bad.config.to_string();
    EXPECT_NE(s.message().find(bad.reason), std::string::npos) << bad.config.to_string() << ": " << s.message();
  }
  EXPECT_EQ(cases.size(), 12u);
  // A's whole k in shared memory at m 8 and k 65536 (256 steps: 1 MiB) needs a split or L1.
  const Problem deep = make(8, 1024, 65536, DType::bf16);
  KernelConfig whole = gemv_of(deep, SearchSpace::exhaustive).at(0);
  whole.a_source = 0;
  whole.split_k = 1;
  const Status big = skinny_can_implement(deep, whole, h100());
  EXPECT_NE(big.message().find("shared memory"), std::string::npos) << big.message();
  // The tensor-core kernel takes none of gemv's fields.
  KernelConfig mma = skinny_mma_configs(p, SearchSpace::default_space, h100()).at(0);
  mma.a_source = 1;
  EXPECT_NE(skinny_can_implement(p, mma, h100()).message().find("fields"), std::string::npos);
}

TEST(SkinnyConfigSpace, GemvGridIsBalancedOrFillsTheSms) {
  const Problem p = make(8, 14336, 4096, DType::bf16);
  KernelConfig c = gemv_of(p).at(0);
  GemvInstance g = gemv_instance(p, c);
  g.rows_b = 2;
  g.warps = 8;
  g.split_k = 1;
  // 7168 groups, 132 SMs x 2 CTAs x 8 warps = 2112 warps: 4 rounds, 7168 / 32 = 224 CTAs.
  g.fill = false;
  EXPECT_EQ(g.grid_x(p.n(), 132, 2), 224);
  g.fill = true;
  EXPECT_EQ(g.grid_x(p.n(), 132, 2), 264);
  // Split 4 over 512 groups with 4 CTAs an SM: 132 CTAs along n either way round.
  g.rows_b = 8;
  g.warps = 4;
  g.split_k = 4;
  EXPECT_EQ(g.grid_x(4096, 132, 4), 132);
  g.fill = false;
  EXPECT_EQ(g.grid_x(4096, 132, 4), 128);
  EXPECT_EQ(g.grid_x(1, 132, 4), 1);
}

}  // namespace
}  // namespace gemmtune::cuda
