// Configs stored before `algo` became the named `kernel` field and cuBLASLt's `rank` read back
// as the same kernels: upgrade_config_text, and a lookup table that still says `algo=`.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <string>

#include "gemmtune/config.h"
#include "gemmtune/lut.h"
#include "lut/lut_samples.h"

namespace gemmtune {
namespace {

KernelConfig upgraded(std::string_view backend, std::string_view text) {
  auto config = KernelConfig::parse(upgrade_config_text(backend, text));
  EXPECT_TRUE(config.is_ok()) << backend << " '" << text << "': " << config.status().message();
  return config.is_ok() ? *config : KernelConfig{};
}

TEST(ConfigUpgrade, EachOldCpuAlgorithmIsTheKernelOfItsName) {
  const char* names[] = {"", "rows", "dot", "columns", "tile", "stream", "axpy", "pairs", "rows_dots"};
  int checked = 0;
  for (int old = 0; old <= 8; ++old) {
    const KernelConfig c = upgraded("cpu", "mm=4 mn=32 thr=1 isa=avx2 algo=" + std::to_string(old));
    EXPECT_EQ(c.micro_m, 4);
    EXPECT_EQ(c.isa, 1);
    EXPECT_EQ(c.kernel, old == 0 ? kKernelPacked : old + 1) << "algo=" << old;
    if (old > 0) EXPECT_EQ(kernel_name(c.kernel), names[old]);
    ++checked;
  }
  EXPECT_EQ(upgraded("cpu", "mm=4 mn=32 thr=1 isa=avx2 algo=5").to_string(), "mm=4 mn=32 thr=1 isa=avx2 kernel=stream");
  EXPECT_EQ(checked, 9);
}

TEST(ConfigUpgrade, TheOtherBackendsVariantsBecomeTheirKernelsOrTheRank) {
  EXPECT_EQ(upgraded("cublaslt", "algo=3").rank, 3);
  EXPECT_EQ(upgraded("cublaslt", "algo=3").kernel, kKernelMain);
  EXPECT_EQ(upgraded("onednn", "thr=2 algo=1").kernel, kKernelSgemm);
  EXPECT_EQ(upgraded("onednn", "thr=2 algo=1").threads, 2);
  EXPECT_EQ(upgraded("libxsmm", "algo=1").kernel, kKernelPerCall);
  EXPECT_EQ(upgraded("mma", "algo=9001").kernel, kKernelFaultAddress);
  EXPECT_EQ(upgraded("mma", "algo=9002").kernel, kKernelFaultSpin);
  // algo=0 was every family's first variant: the config without it.
  EXPECT_EQ(upgrade_config_text("onednn", "algo=0"), "-");
  EXPECT_EQ(upgrade_config_text("cpu", "thr=1 algo=0"), "thr=1");
}

TEST(ConfigUpgrade, EachFamilysMainKernelCanBeNamedAndIsNotPrinted) {
  int checked = 0;
  for (const char* name : {"main", "mma", "packed", "primitive", "once"}) {
    auto c = KernelConfig::parse(std::string("thr=1 kernel=") + name);
    ASSERT_TRUE(c.is_ok()) << name << ": " << c.status().message();
    EXPECT_EQ(c->kernel, kKernelMain) << name;
    EXPECT_EQ(c->to_string(), "thr=1") << name;
    ++checked;
  }
  EXPECT_FALSE(KernelConfig::parse("kernel=wgmma").is_ok());
  EXPECT_EQ(checked, 5);
}

TEST(ConfigUpgrade, AnOldValueThatMeantNothingStillFailsToParseNamingIt) {
  for (const auto& [backend, text] : {std::pair{"cpu", "algo=42"}, {"onednn", "algo=7"}, {"cpu", "algo=x"}}) {
    const std::string kept = upgrade_config_text(backend, text);
    EXPECT_EQ(kept, text);
    auto parsed = KernelConfig::parse(kept);
    ASSERT_FALSE(parsed.is_ok()) << backend << " " << text;
    EXPECT_NE(parsed.status().message().find("'algo'"), std::string::npos) << parsed.status().message();
  }
}

RC_GTEST_PROP(ConfigUpgrade, TodaysTextComesBackUnchanged, ()) {
  const KernelConfig c = *testing::any_config();
  const std::string text = c.to_string();
  for (const char* backend : {"cpu", "cublaslt", "onednn", "libxsmm", "mma", "wgmma"}) {
    RC_ASSERT(upgrade_config_text(backend, text) == text);
  }
}

TEST(ConfigUpgrade, ALookupTableThatSaysAlgoLoadsWithTheSameKernels) {
  std::string text = testing::sample_table().to_json();
  const std::size_t at = text.find("rank=2");
  ASSERT_NE(at, std::string::npos) << text;
  text.replace(at, 6, "algo=2");
  auto sealed = seal_lut_text(text);
  ASSERT_TRUE(sealed.is_ok()) << sealed.status().message();
  auto table = LookupTable::parse(*sealed);
  ASSERT_TRUE(table.is_ok()) << table.status().message();
  EXPECT_EQ(*table, testing::sample_table());
}

}  // namespace
}  // namespace gemmtune
