// The cutlass family's config space, its reasons for refusing a problem or a config, the macros
// an instance is built with, and where the family finds CUTLASS and nvcc; none of it needs a GPU
// or a CUTLASS checkout.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

#include "backends/cuda/cutlass_compiler.h"
#include "backends/cuda/cutlass_config_space.h"
#include "cuda/h100.h"

namespace gemmtune::cuda {
namespace {

using testing::h100;

Problem make(std::int64_t m, std::int64_t n, std::int64_t k, DType type, const char* layout, DType out) {
  return testing::make_problem(m, n, k, type, layout, out);
}

bool mentions(const Status& s, const std::string& text) { return s.message().find(text) != std::string::npos; }

TEST(CutlassConfigSpace, EveryDefaultRowIsAWellFormedInstanceForEveryDtypeAndLayout) {
  int checked = 0;
  for (const Problem& p : {make(4096, 4096, 4096, DType::s8, "nt", DType::s32),
                           make(4096, 4096, 4096, DType::bf16, "nt", DType::bf16),
                           make(4096, 4096, 4096, DType::f16, "nn", DType::f32),
                           make(4096, 4096, 4096, DType::bf16, "tt", DType::f32)}) {
    EXPECT_TRUE(check_cutlass_problem(p).is_ok()) << p.describe();
    for (const CutlassListEntry& e : cutlass_default_list()) {
      const KernelConfig c = cutlass_list_config(e, p.a_type());
      const Status s = check_cutlass_config(c, p);
      EXPECT_TRUE(s.is_ok()) << c.to_string() << " for " << p.describe() << ": " << s.message();
      ++checked;
    }
    // 4096² fills every SM with each row's tiles: the whole list is offered.
    EXPECT_EQ(cutlass_configs(p, SearchSpace::default_space, h100()).size(), cutlass_default_list().size());
  }
  EXPECT_EQ(checked, 4 * int(cutlass_default_list().size()));
  EXPECT_EQ(cutlass_default_list().size(), 18u);  // 9 objects, each with swizzle 1 and 8
}

TEST(CutlassConfigSpace, ProblemsTheFamilyCannotRunSayWhy) {
  // s8 through wgmma is k-major only.
  EXPECT_TRUE(mentions(check_cutlass_problem(make(256, 256, 256, DType::s8, "nn", DType::s32)), "k-major"));
  EXPECT_TRUE(mentions(check_cutlass_problem(make(256, 256, 256, DType::f32, "nt", DType::f32)), "f16, bf16 and s8"));
  // TMA addresses rows in 16-byte units: k = 100 bf16 elements is 200 bytes, a packed A's rows too.
  EXPECT_TRUE(mentions(check_cutlass_problem(make(256, 256, 100, DType::bf16, "nt", DType::bf16)), "16 bytes"));
  // C of s32 needs n a multiple of 4.
  EXPECT_TRUE(mentions(check_cutlass_problem(make(256, 258, 256, DType::s8, "nt", DType::s32)), "C's"));
  ProblemSpec padded = make(256, 256, 256, DType::bf16, "nt", DType::bf16).spec();
  padded.lda = 260;  // 520 bytes
  EXPECT_TRUE(mentions(check_cutlass_problem(*Problem::create(padded)), "A's leading dimension 260"));
  padded.lda = 264;  // 528 bytes: fine
  EXPECT_TRUE(check_cutlass_problem(*Problem::create(padded)).is_ok());
  EXPECT_TRUE(mentions(check_cutlass_problem(make(256, 256, 0, DType::bf16, "nt", DType::bf16)), "k = 0"));
  // Nothing is offered where the problem is refused.
  EXPECT_TRUE(cutlass_configs(make(256, 256, 100, DType::bf16, "nt", DType::bf16), SearchSpace::exhaustive, h100()).empty());
}

TEST(CutlassConfigSpace, MalformedConfigsSayWhy) {
  const Problem s8 = make(1024, 1024, 1024, DType::s8, "nt", DType::s32);
  KernelConfig c = cutlass_list_config({128, 128, false, 1, 1, false}, DType::s8);
  ASSERT_TRUE(check_cutlass_config(c, s8).is_ok());
  auto with = [&](auto change) {
    KernelConfig changed = c;
    change(changed);
    return check_cutlass_config(changed, s8);
  };
  EXPECT_TRUE(mentions(with([](KernelConfig& x) { x.block_k = 64; }), "block_k must be 128"));
  EXPECT_TRUE(mentions(with([](KernelConfig& x) { x.block_m = 64; }), "cooperative: 128 or 256"));
  EXPECT_TRUE(mentions(with([](KernelConfig& x) { x.block_n = 120; }), "steps of 16"));
  EXPECT_TRUE(mentions(with([](KernelConfig& x) { x.pingpong = 1, x.stream_k = 1; }), "no stream-K"));
  EXPECT_TRUE(mentions(with([](KernelConfig& x) { x.pingpong = 1, x.block_n = 256; }), "would spill"));
  EXPECT_TRUE(mentions(with([](KernelConfig& x) { x.cluster_m = 2, x.cluster_n = 2; }), "2 CTAs at most"));
  EXPECT_TRUE(mentions(with([](KernelConfig& x) { x.stages = 4; }), "only"));
  EXPECT_TRUE(mentions(with([](KernelConfig& x) { x.split_k = 2; }), "only"));
  EXPECT_TRUE(mentions(with([](KernelConfig& x) { x.group_m = 3; }), "1, 2, 4 or 8"));
  EXPECT_TRUE(with([](KernelConfig& x) { x.group_m = 8; }).is_ok());
  // bf16 takes n in steps of 8.
  const Problem bf16 = make(1024, 1024, 1024, DType::bf16, "nt", DType::bf16);
  KernelConfig narrow = cutlass_list_config({128, 120, false, 1, 1, false}, DType::bf16);
  EXPECT_TRUE(check_cutlass_config(narrow, bf16).is_ok());
}

TEST(CutlassConfigSpace, OnlySm90aRunsTheFamily) {
  CudaInfo ampere = h100();
  ampere.cc_major = 8;
  EXPECT_TRUE(mentions(check_cutlass_device(ampere), "9.0"));
  EXPECT_TRUE(cutlass_configs(make(4096, 4096, 4096, DType::bf16, "nt", DType::bf16), SearchSpace::default_space, ampere).empty());
  EXPECT_TRUE(check_cutlass_device(h100()).is_ok());
}

std::int64_t tiles_of(const Problem& p, const KernelConfig& c) {
  return ((p.m() + c.block_m - 1) / c.block_m) * ((p.n() + c.block_n - 1) / c.block_n);
}

TEST(CutlassConfigSpace, TheDefaultSpaceKeepsTilesThatFillAQuarterOfWhatTheFullestFills) {
  int checked = 0;
  for (std::int64_t m : {16, 64, 200, 256, 1000}) {
    const Problem p = make(m, 4096, 4096, DType::bf16, "nt", DType::bf16);
    const auto configs = cutlass_configs(p, SearchSpace::default_space, h100());
    ASSERT_FALSE(configs.empty());
    std::int64_t most = 0;
    for (const KernelConfig& c : configs) most = std::max(most, tiles_of(p, c));
    for (const KernelConfig& c : configs) {
      EXPECT_GE(tiles_of(p, c) * 4, std::min<std::int64_t>(most, 132)) << c.to_string() << " for " << p.describe();
      ++checked;
    }
    EXPECT_GT(cutlass_configs(p, SearchSpace::exhaustive, h100()).size(), configs.size());
  }
  EXPECT_GE(checked, 5);
  // A cluster along a dim of one tile is dropped to 1: m = 64 has one tile of every height.
  for (const KernelConfig& c : cutlass_configs(make(64, 4096, 4096, DType::s8, "nt", DType::s32),
                                               SearchSpace::exhaustive, h100())) {
    EXPECT_LE(c.cluster_m, 1) << c.to_string();
  }
}

RC_GTEST_PROP(CutlassConfigSpace, EveryOfferedConfigIsAWellFormedInstance, ()) {
  const std::int64_t m = *rc::gen::inRange<std::int64_t>(1, 600) * 16;
  const std::int64_t n = *rc::gen::inRange<std::int64_t>(1, 600) * 16;
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(1, 300) * 16;
  const DType type = *rc::gen::element(DType::s8, DType::bf16, DType::f16);
  const Problem p = make(m, n, k, type, "nt", type == DType::s8 ? DType::s32 : type);
  for (SearchSpace space : {SearchSpace::default_space, SearchSpace::exhaustive}) {
    const auto configs = cutlass_configs(p, space, h100());
    RC_ASSERT(!configs.empty());
    for (const KernelConfig& c : configs) RC_ASSERT(check_cutlass_config(c, p).is_ok());
  }
}

// "tn": A transposed (m-contiguous), B as given (k×n rows, n-contiguous).
TEST(CutlassConfigSpace, AnInstanceIsItsDtypesLayoutsAndConfigAndNotTheProblemSize) {
  const KernelConfig c = cutlass_list_config({128, 256, false, 2, 1, true}, DType::f16);
  const auto defines = cutlass_instance_defines(make(1000, 1000, 1000, DType::f16, "tn", DType::f32), c);
  const std::vector<std::string> expected = {"GT_CUTLASS_IN=0",  "GT_CUTLASS_OUT=0", "GT_CUTLASS_A_MN=1",
                                             "GT_CUTLASS_B_MN=1", "GT_CUTLASS_BM=128", "GT_CUTLASS_BN=256",
                                             "GT_CUTLASS_BK=64",  "GT_CUTLASS_CM=2",   "GT_CUTLASS_CN=1",
                                             "GT_CUTLASS_PINGPONG=0", "GT_CUTLASS_STREAM_K=1"};
  EXPECT_EQ(defines, expected);
  EXPECT_EQ(cutlass_instance_defines(make(4096, 8192, 64, DType::f16, "tn", DType::f32), c), defines);
  // The swizzle is an argument of the call: the same object.
  KernelConfig swizzled = c;
  swizzled.group_m = 8;
  EXPECT_EQ(cutlass_instance_defines(make(1000, 1000, 1000, DType::f16, "tn", DType::f32), swizzled), defines);
  EXPECT_EQ(cutlass_swizzle(swizzled), 8);
  EXPECT_EQ(cutlass_swizzle(c), 1);
  const auto s8 = cutlass_instance_defines(make(64, 64, 64, DType::s8, "nt", DType::s32),
                                           cutlass_list_config({64, 128, true, 1, 1, false}, DType::s8));
  EXPECT_EQ(s8.front(), "GT_CUTLASS_IN=3");
  EXPECT_EQ(s8.at(1), "GT_CUTLASS_OUT=3");
  EXPECT_EQ(s8.at(6), "GT_CUTLASS_BK=128");
}

// Sets an environment variable for one scope.
struct ScopedEnv {
  std::string name;
  std::string old;
  bool had;
  ScopedEnv(const char* n, const char* value) : name(n), had(std::getenv(n) != nullptr) {
    if (had) old = std::getenv(n);
    if (value != nullptr) setenv(n, value, 1); else unsetenv(n);
  }
  ~ScopedEnv() {
    if (had) setenv(name.c_str(), old.c_str(), 1); else unsetenv(name.c_str());
  }
};

TEST(CutlassSetup, AMissingCheckoutOrNvccIsNamedInTheReason) {
  {
    ScopedEnv dir("GEMMTUNE_CUTLASS_DIR", "/nonexistent/cutlass");
    const auto setup = cutlass_setup();
    ASSERT_FALSE(setup.is_ok());
    EXPECT_EQ(setup.status().code(), ErrorCode::unavailable);
    EXPECT_TRUE(mentions(setup.status(), "/nonexistent/cutlass/include/cutlass/version.h is missing"));
  }
  const char* checkout = std::getenv("GEMMTUNE_CUTLASS_DIR");
  if (cutlass_setup().is_ok()) {
    ScopedEnv dir("GEMMTUNE_CUTLASS_DIR", checkout);
    ScopedEnv nvcc("GEMMTUNE_NVCC", "/nonexistent/bin/nvcc");
    const auto setup = cutlass_setup();
    ASSERT_FALSE(setup.is_ok());
    EXPECT_TRUE(mentions(setup.status(), "nvcc not found at /nonexistent/bin/nvcc"));
  }
}

}  // namespace
}  // namespace gemmtune::cuda
