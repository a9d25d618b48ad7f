// The wgmma config space and the grid: stream-K where the last wave is partial, wave-fitted
// tiles, split-k, and the configs the default space drops for leaving SMs idle. Split from
// wgmma_config_space_test.cc, which covers the lists, the scaling, the checks and the mapping.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <set>
#include <string>

#include "backends/cuda/kernels/wgmma_stream_k.cuh"
#include "backends/cuda/wgmma_backend.h"
#include "backends/cuda/padded_operand.h"
#include "backends/cuda/wgmma_config_space.h"
#include "core/config_space.h"
#include "cuda/h100.h"
#include "cuda/wgmma_test_problems.h"

namespace gemmtune::cuda {
namespace {

using testing::config_of;
using testing::h100;
using testing::wgmma_problem;

// The data-parallel grid of a config on a problem: cluster tiles and clusters on the H100.
struct Grid {
  std::int64_t tiles, clusters;
  std::int64_t waves() const { return (tiles + clusters - 1) / clusters; }
  double idle() const { return double(waves() * clusters - tiles) / double(waves() * clusters); }
};

Grid grid_of(const Problem& p, KernelConfig c) {
  c.stream_k = 0;
  const WgmmaMapping map = wgmma_mapping(p, c);
  return {wgmma_cluster_tiles(map.instance, map.m, map.n),
          h100().sm_count / (std::max(c.cluster_m, 1) * std::max(c.cluster_n, 1))};
}

int count_stream_k(const std::vector<KernelConfig>& configs) {
  return int(std::count_if(configs.begin(), configs.end(), [](const KernelConfig& c) { return c.stream_k == 1; }));
}

TEST(WgmmaConfigSpace, StreamKIsOfferedWhereTheLastWaveIsPartialAndLeavesSMsIdle) {
  int checked = 0;
  // 300×14336×4096: 168 tiles of 128×256 on 132 SMs, 36 % of the second wave idle; every tile
  // of the default list leaves its last wave partial there, and the two large cooperative
  // tiles without clusters (128×256, 256×128) get the variant.
  const Problem mid = wgmma_problem(300, 14336, 4096, DType::bf16);
  const auto configs = wgmma_configs(mid, SearchSpace::default_space, h100());
  EXPECT_EQ(count_stream_k(configs), 2);
  for (const KernelConfig& c : configs) {
    if (c.stream_k == 0) continue;
    EXPECT_TRUE(c.pingpong == 0 && c.cluster_m <= 1 && c.cluster_n <= 1 && c.block_m * c.block_n >= 128 * 256)
        << c.to_string();
    const Grid g = grid_of(mid, c);
    EXPECT_NE(g.tiles % g.clusters, 0) << c.to_string();
    EXPECT_LE(g.waves(), 4) << c.to_string();
    EXPECT_GE(g.idle(), 0.10) << c.to_string();
    KernelConfig plain = c;
    plain.stream_k = 0;
    EXPECT_NE(std::find(configs.begin(), configs.end(), plain), configs.end()) << "stream-K variant of an offered tile";
    ++checked;
  }
  // 4096³ fills its last wave within 3 % with every default tile, 2048×14336×4096 has 7 waves:
  // nothing to gain.
  EXPECT_EQ(count_stream_k(wgmma_configs(wgmma_problem(4096, 4096, 4096, DType::bf16), SearchSpace::default_space, h100())), 0);
  EXPECT_EQ(count_stream_k(wgmma_configs(wgmma_problem(2048, 14336, 4096, DType::bf16), SearchSpace::default_space, h100())), 0);
  // 768×5632: 6 × 22 = 132 tiles of 128×256, one full wave: not that tile's variant.
  const Problem full = wgmma_problem(768, 5632, 4096, DType::bf16);
  for (const KernelConfig& c : wgmma_configs(full, SearchSpace::default_space, h100())) {
    EXPECT_FALSE(c.stream_k == 1 && c.block_m == 128 && c.block_n == 256 && c.cluster_m <= 1 && c.cluster_n <= 1);
  }
  // k of 4 k-blocks (256): less than one cluster's least share, nothing to cut.
  EXPECT_EQ(count_stream_k(wgmma_configs(wgmma_problem(300, 14336, 256, DType::bf16), SearchSpace::default_space, h100())), 0);
  // The exhaustive space has them too.
  EXPECT_GT(count_stream_k(wgmma_configs(mid, SearchSpace::exhaustive, h100())), 2);
  EXPECT_EQ(checked, 2);
}

TEST(WgmmaConfigSpace, ALargeTileWhoseLastWaveIsPartialIsAlsoOfferedNarrowedToFillIt) {
  // 1024×14336×4096: 448 tiles of 128×256 (and of 256×128) on 132 SMs, 3.39 waves, 15 % of the
  // last idle; 128×224 and 256×112 make 512 tiles, 3.88 waves, 3 % idle.
  for (DType type : {DType::bf16, DType::s8}) {
    const Problem p = wgmma_problem(1024, 14336, 4096, type);
    const auto configs = wgmma_configs(p, SearchSpace::default_space, h100());
    std::set<std::pair<int, int>> fitted;
    for (const KernelConfig& c : configs) {
      if (c.block_n == 224 || c.block_n == 112) {
        EXPECT_LE(grid_of(p, c).idle(), 0.05) << c.to_string();
        EXPECT_TRUE(wgmma_can_implement(p, c, h100()).is_ok()) << c.to_string();
        fitted.insert({c.block_m, c.block_n});
      }
    }
    EXPECT_EQ(fitted, (std::set<std::pair<int, int>>{{128, 224}, {256, 112}})) << dtype_name(type);
  }
  // 4096³ and 2048×14336×4096 end in nearly full waves; at 300×14336×4096 (168 tiles of 128×256)
  // no width down to 192 fills the second wave within 5 %.
  for (const Problem& p : {wgmma_problem(4096, 4096, 4096, DType::bf16), wgmma_problem(2048, 14336, 4096, DType::bf16),
                           wgmma_problem(300, 14336, 4096, DType::bf16)}) {
    for (const KernelConfig& c : wgmma_configs(p, SearchSpace::default_space, h100())) {
      EXPECT_FALSE(c.block_m == 128 && c.block_n > 192 && c.block_n < 256) << c.to_string() << " for " << p.describe();
    }
  }
  // An n-major B tile (layout nn) narrows in 64-column chunks: 192 leaves 9 % of 5 waves idle.
  for (const KernelConfig& c : wgmma_configs(wgmma_problem(1024, 14336, 4096, DType::bf16, "nn"), SearchSpace::default_space, h100())) {
    EXPECT_NE(c.block_n, 224) << c.to_string();
  }
}

TEST(WgmmaConfigSpace, WhereTheTilesMakeOnePartialWaveANarrowerTileFillsIt) {
  // 256×6144×4096: 48 tiles of 128×256, 96 of 128×128: one wave, 64 % and 27 % of the SMs idle.
  // 128×96 makes 128 tiles (3 % idle), with more stages than the 128×256 it narrows.
  // 384×4096×4096: 3 × 16 tiles of 128×256; 128×96 makes 3 × 43 = 129.
  struct Case {
    std::int64_t m, n;
    std::int32_t width;
  };
  int checked = 0;
  for (const Case& k : {Case{256, 6144, 96}, Case{384, 4096, 96}}) {
    const Problem p = wgmma_problem(k.m, k.n, 4096, DType::bf16);
    int found = 0;
    for (const KernelConfig& c : wgmma_configs(p, SearchSpace::default_space, h100())) {
      if (c.block_m != 128 || c.block_n != k.width || c.swap_ab != 0) continue;
      EXPECT_LE(grid_of(p, c).idle(), 0.05) << c.to_string();
      EXPECT_EQ(grid_of(p, c).waves(), 1) << c.to_string();
      EXPECT_GT(c.stages, 4) << c.to_string();
      EXPECT_TRUE(wgmma_can_implement(p, c, h100()).is_ok()) << c.to_string();
      ++found;
    }
    EXPECT_EQ(found, 1) << p.describe();
    ++checked;
  }
  EXPECT_EQ(checked, 2);
  // Not where 128-row tiles pad m by 10 % or more (300 rows: 384), where the swapped tiles
  // that split m evenly serve.
  for (std::int64_t n : {4096, 6144}) {
    for (const KernelConfig& c : wgmma_configs(wgmma_problem(300, n, 4096, DType::bf16), SearchSpace::default_space, h100())) {
      EXPECT_FALSE(c.block_m == 128 && c.swap_ab == 0 && (c.block_n == 96 || c.block_n == 144)) << c.to_string();
    }
  }
  // Never under 64 columns: at 128×2048×4096 (8 tiles of 128×256) no width fills the SMs.
  for (const KernelConfig& c : wgmma_configs(wgmma_problem(128, 2048, 4096, DType::bf16), SearchSpace::default_space, h100())) {
    EXPECT_FALSE(c.block_m == 128 && c.swap_ab == 0 && c.block_n < 64) << c.to_string();
  }
}

TEST(WgmmaConfigSpace, StreamKAndItsSplitKNeighboursFitUnderTheDefaultCap) {
  // 512×6144×4096: 96 tiles of 128×256 for 132 SMs; both ways of cutting k are offered, split-k
  // with 2 slices beside each stream-K variant (the best split of the v4 measurements).
  const auto configs = wgmma_configs(wgmma_problem(512, 6144, 4096, DType::bf16), SearchSpace::default_space, h100());
  EXPECT_LE(configs.size(), kWgmmaDefaultCap);
  EXPECT_EQ(count_stream_k(configs), 2);
  int split_beside_stream_k = 0;
  for (const KernelConfig& c : configs) {
    if (c.split_k <= 1) continue;
    KernelConfig stream_k = c;
    stream_k.split_k = 0;
    stream_k.stream_k = 1;
    if (std::find(configs.begin(), configs.end(), stream_k) == configs.end()) continue;
    EXPECT_EQ(c.split_k, 2) << c.to_string();
    ++split_beside_stream_k;
  }
  EXPECT_EQ(split_beside_stream_k, 2);
}

// CTAs of c's grid for p: its tiles (whole tiles for stream-K) times its slices of k.
std::int64_t ctas_of(const Problem& p, const KernelConfig& c) {
  const WgmmaMapping map = wgmma_mapping(p, c);
  return ((map.m + c.block_m - 1) / c.block_m) * ((map.n + c.block_n - 1) / c.block_n) * std::max(1, c.split_k);
}

TEST(WgmmaConfigSpace, TheDefaultSpaceDropsConfigsThatLeaveMostSMsIdle) {
  // 256×4096×4096: 64×128 makes 128 tiles for 132 SMs; the 32 tiles of 128×256 (with its
  // clusters, swap and stream-K variants) and of 256×128 would keep a quarter busy.
  const Problem p = wgmma_problem(256, 4096, 4096, DType::bf16);
  const auto configs = wgmma_configs(p, SearchSpace::default_space, h100());
  int checked = 0;
  bool has_64x128 = false;
  for (const KernelConfig& c : configs) {
    EXPECT_GE(ctas_of(p, c) * 4, h100().sm_count) << c.to_string();
    has_64x128 |= c.block_m == 64 && c.block_n == 128 && c.swap_ab == 0;
    ++checked;
  }
  EXPECT_TRUE(has_64x128);
  // 15 before the splits that leave half the SMs idle went (below); 128×176 (48 tiles) and its
  // split in two (96 CTAs) came with that row
  EXPECT_EQ(checked, 13);
  EXPECT_EQ(count_stream_k(configs), 0);
  // The exhaustive space keeps them.
  int underfilled = 0;
  for (const KernelConfig& c : wgmma_configs(p, SearchSpace::exhaustive, h100())) {
    underfilled += ctas_of(p, c) * 4 < h100().sm_count;
  }
  EXPECT_GT(underfilled, 0);
}

// A split of k is offered to fill the SMs; the default space leaves out the splits that would
// still leave half of them idle (at 256x4096x4096: 128x256 and 256x128 in two slices, 64 CTAs).
TEST(WgmmaConfigSpace, SplitsThatLeaveHalfTheSmsIdleAreLeftOutOfTheDefaultSpace) {
  const Problem p = wgmma_problem(256, 4096, 4096, DType::bf16);
  int splits = 0;
  for (const KernelConfig& c : wgmma_configs(p, SearchSpace::default_space, h100())) {
    if (c.split_k <= 1) continue;
    ++splits;
    EXPECT_GE(2 * ctas_of(p, c), 132) << c.to_string();
  }
  EXPECT_GE(splits, 2);
  int idle_splits = 0;
  for (const KernelConfig& c : wgmma_configs(p, SearchSpace::exhaustive, h100())) idle_splits += c.split_k > 1 && 2 * ctas_of(p, c) < 132;
  EXPECT_GE(idle_splits, 1) << "the exhaustive space keeps them";
}

// Whatever the problem, the default space offers nothing that would keep fewer than a quarter of
// the CTAs busy that its fullest config keeps (at most the SMs), and never empties for it.
RC_GTEST_PROP(WgmmaConfigSpace, DefaultConfigsFillAQuarterOfWhatTheFullestFills, ()) {
  const std::int64_t m = *rc::gen::inRange<std::int64_t>(1, 1200) * 8;
  const std::int64_t n = *rc::gen::inRange<std::int64_t>(1, 2000) * 8;
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(1, 800) * 8;
  const Problem p = wgmma_problem(m, n, k, DType::bf16);
  const auto configs = wgmma_configs(p, SearchSpace::default_space, h100());
  RC_ASSERT(!configs.empty());
  std::int64_t most = 0;
  for (const KernelConfig& c : configs) most = std::max(most, ctas_of(p, c));
  for (const KernelConfig& c : configs) RC_ASSERT(ctas_of(p, c) * 4 >= std::min<std::int64_t>(most, h100().sm_count));
}

TEST(WgmmaConfigSpace, StreamKAndSplitKAreExclusiveAndStreamKRoundTrips) {
  const Problem p = wgmma_problem(300, 14336, 4096, DType::bf16);
  KernelConfig c = config_of(wgmma_default_list()[0], DType::bf16);
  c.stream_k = 1;
  EXPECT_TRUE(wgmma_can_implement(p, c, h100()).is_ok());
  EXPECT_NE(c.to_string().find("streamk=1"), std::string::npos) << c.to_string();
  auto parsed = KernelConfig::parse(c.to_string());
  ASSERT_TRUE(parsed.is_ok()) << parsed.status().message();
  EXPECT_EQ(*parsed, c);
  EXPECT_TRUE(wgmma_mapping(p, *parsed).instance.stream_k);
  EXPECT_EQ(wgmma_mapping(p, *parsed).instance.workspace_bytes(300, 14336, 132), 2LL * 132 * 128 * 256 * 4);

  KernelConfig both = c;
  both.split_k = 2;
  const Status s = wgmma_can_implement(p, both, h100());
  EXPECT_EQ(s.code(), ErrorCode::unsupported);
  EXPECT_NE(s.message().find("exclusive"), std::string::npos) << s.message();
  KernelConfig two = c;
  two.stream_k = 2;
  EXPECT_EQ(wgmma_can_implement(p, two, h100()).code(), ErrorCode::invalid_argument);
  // 2^24 k-blocks a tile: S would pass 2^31 on 132 SMs.
  const Status deep = wgmma_can_implement(wgmma_problem(256, 256, std::int64_t(1) << 30, DType::bf16), c, h100());
  EXPECT_EQ(deep.code(), ErrorCode::unsupported);
  EXPECT_NE(deep.message().find("32 bits"), std::string::npos) << deep.message();
}

// Wherever it is offered, a stream-K config has no split, round-trips through its text, and
// its data-parallel grid would leave a partial last wave that idles enough of the launch.
RC_GTEST_PROP(WgmmaConfigSpace, StreamKIsOfferedOnlyWhereItCanPayAndNeverWithSplitK, ()) {
  const std::int64_t m = *rc::gen::inRange<std::int64_t>(1, 800) * 8;
  const std::int64_t n = *rc::gen::inRange<std::int64_t>(1, 2000) * 8;
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(1, 800) * 8;
  const Problem p = wgmma_problem(m, n, k, DType::bf16);
  const SearchSpace space = *rc::gen::element(SearchSpace::default_space, SearchSpace::exhaustive);
  for (const KernelConfig& c : wgmma_configs(p, space, h100())) {
    if (c.stream_k == 0) continue;
    RC_ASSERT(c.stream_k == 1 && c.split_k <= 1);
    RC_ASSERT(*KernelConfig::parse(c.to_string()) == c);
    const Grid g = grid_of(p, c);
    RC_ASSERT(g.tiles % g.clusters != 0 && g.waves() <= 4 && g.idle() >= 0.10);
    RC_ASSERT((k + 63) / 64 >= GT_SK_MIN_BLOCKS);
  }
}

// Whatever the problem, every config the space offers is one the backend accepts, fits the
// device, and covers the problem with tiles no larger than wgmma and TMA allow.
RC_GTEST_PROP(WgmmaConfigSpace, EveryOfferedConfigIsAcceptedForAnyProblem, ()) {
  const DType type = *rc::gen::element(DType::f16, DType::bf16, DType::s8, DType::f32);
  const bool k_major_only = type == DType::s8 || type == DType::f32;
  const char* layout = k_major_only ? "nt" : *rc::gen::element("nn", "nt", "tn", "tt");
  // Dims that keep every leading dimension a multiple of 16 bytes.
  const std::int64_t unit = 16 / std::int64_t(dtype_size(type));
  const std::int64_t m = *rc::gen::inRange<std::int64_t>(1, 600) * unit;
  const std::int64_t n = *rc::gen::inRange<std::int64_t>(1, 600) * unit;
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(1, 600) * unit;
  const Problem p = wgmma_problem(m, n, k, type, layout);
  const SearchSpace space = *rc::gen::element(SearchSpace::default_space, SearchSpace::exhaustive);
  const auto configs = wgmma_configs(p, space, h100());
  RC_ASSERT(!configs.empty());
  std::set<std::string> seen;
  for (const KernelConfig& c : configs) {
    RC_ASSERT(wgmma_can_implement(p, c, h100()).is_ok());
    RC_ASSERT(seen.insert(c.to_string()).second);
    RC_ASSERT(c.block_m <= 256 && c.block_n <= 256 && c.block_n % 8 == 0);
    RC_ASSERT(wgmma_mapping(p, c).instance.shared_bytes() <= h100().shared_memory_per_block_optin);
  }
}

// Dims of any size, so leading dimensions that are not multiples of 16 bytes: every config the
// space offers is accepted, and the operands the kernel reads have leading dimensions TMA can
// address; an operand is padded exactly where the caller's could not be, to the next multiple of
// 16 bytes, its copy within the cap.
RC_GTEST_PROP(WgmmaConfigSpace, OperandsOfAnyLeadingDimensionAreReadFromAddressableRows, ()) {
  const DType type = *rc::gen::element(DType::f16, DType::bf16, DType::s8, DType::f32);
  const bool k_major_only = type == DType::s8 || type == DType::f32;
  const char* layout = k_major_only ? "nt" : *rc::gen::element("nn", "nt", "tn", "tt");
  const std::int64_t m = *rc::gen::inRange<std::int64_t>(1, 3000);
  const std::int64_t n = *rc::gen::inRange<std::int64_t>(1, 3000);
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(1, 3000);
  const Problem p = wgmma_problem(m, n, k, type, layout);
  const std::int64_t bytes = std::int64_t(dtype_size(type));
  const auto configs = wgmma_configs(p, *rc::gen::element(SearchSpace::default_space, SearchSpace::exhaustive), h100());
  RC_ASSERT(!configs.empty());
  for (const KernelConfig& c : configs) {
    RC_ASSERT(wgmma_can_implement(p, c, h100()).is_ok());
    const WgmmaMapping map = wgmma_mapping(p, c);
    for (const WgmmaOperand& o : {map.a, map.b}) {
      RC_ASSERT(o.ld * bytes % 16 == 0);
      if (o.caller_ld == 0) continue;
      RC_ASSERT(o.caller_ld * bytes % 16 != 0);
      RC_ASSERT(o.ld > o.caller_ld && (o.ld - o.caller_ld) * bytes < 16);
      RC_ASSERT(padded_copy_bytes(o) > 0 && padded_copy_bytes(o) <= kMaxPaddedOperandBytes);
    }
  }
}

}  // namespace
}  // namespace gemmtune::cuda
