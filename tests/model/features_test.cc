// The cost model's features: one value per name, every config field among them, so a field a
// backend adds reaches the model without an edit.
#include "model/features.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace gemmtune {
namespace {

std::vector<float> features_of(const Problem& p, const std::string& backend, const KernelConfig& c,
                               const std::vector<std::string>& backends) {
  std::vector<float> out;
  append_features(p, backend, c, backends, out);
  return out;
}

float value(const std::vector<std::string>& names, const std::vector<float>& values, const std::string& name) {
  const auto it = std::find(names.begin(), names.end(), name);
  EXPECT_NE(it, names.end()) << name;
  return it == names.end() ? -1 : values[std::size_t(it - names.begin())];
}

TEST(Features, OneValuePerNameAndEveryConfigFieldIsAFeature) {
  const std::vector<std::string> backends = {"cpu", "onednn"};
  const std::vector<std::string> names = feature_names(backends);
  const Problem p = *Problem::create(100, 300, 200, DType::f32, "nt");
  EXPECT_EQ(features_of(p, "cpu", {}, backends).size(), names.size());
  for (std::string_view field : KernelConfig::field_names()) {
    EXPECT_NE(std::find(names.begin(), names.end(), "cfg_" + std::string(field)), names.end()) << field;
  }
  EXPECT_EQ(std::set<std::string>(names.begin(), names.end()).size(), names.size()) << "names are unique";
}

TEST(Features, ValuesFollowTheProblemAndTheConfig) {
  const std::vector<std::string> backends = {"cpu", "onednn"};
  const std::vector<std::string> names = feature_names(backends);
  const Problem p = *Problem::create(100, 300, 200, DType::bf16, "nt");
  KernelConfig c = *KernelConfig::parse("bm=64 bn=128 bk=32 mm=4 mn=16 thr=2 isa=avx2");
  const std::vector<float> v = features_of(p, "cpu", c, backends);
  EXPECT_FLOAT_EQ(value(names, v, "a_bytes"), 2);
  EXPECT_FLOAT_EQ(value(names, v, "b_row_major"), 0);
  EXPECT_FLOAT_EQ(value(names, v, "cfg_bm"), 64);
  EXPECT_FLOAT_EQ(value(names, v, "cfg_isa"), 1);
  EXPECT_FLOAT_EQ(value(names, v, "tiles_bm"), 2);              // ceil(100 / 64)
  EXPECT_FLOAT_EQ(value(names, v, "pad_bm"), 128.0f / 100.0f);  // 2 blocks of 64 rows for 100
  EXPECT_FLOAT_EQ(value(names, v, "tiles_bn"), 3);              // ceil(300 / 128)
  EXPECT_FLOAT_EQ(value(names, v, "log2_blocks_per_thread"), std::log2(6.0f / 2.0f));
  EXPECT_FLOAT_EQ(value(names, v, "backend_cpu"), 1);
  EXPECT_FLOAT_EQ(value(names, v, "backend_onednn"), 0);
  const std::vector<float> library = features_of(p, "onednn", KernelConfig{}, backends);
  EXPECT_FLOAT_EQ(value(names, library, "tiles_bm"), 0) << "no block size: no tiles";
  EXPECT_FLOAT_EQ(value(names, library, "backend_onednn"), 1);
}

TEST(Features, ASwappedKernelsBlockRowsTileN) {
  const std::vector<std::string> backends = {"wgmma"};
  const std::vector<std::string> names = feature_names(backends);
  const Problem p = *Problem::create(300, 6144, 4096, DType::bf16, "nt");
  // Cᵀ = Bᵀ·Aᵀ: 128 rows of the weights (n) by 152 columns of the activations (m).
  const std::vector<float> v = features_of(p, "wgmma", *KernelConfig::parse("bm=128 bn=152 bk=64 swap=1"), backends);
  EXPECT_FLOAT_EQ(value(names, v, "tiles_bm"), 48);                  // 6144 / 128
  EXPECT_FLOAT_EQ(value(names, v, "tiles_bn"), 2);                   // ceil(300 / 152)
  EXPECT_FLOAT_EQ(value(names, v, "pad_bn"), 304.0f / 300.0f);
  EXPECT_FLOAT_EQ(value(names, v, "tiles_bk"), 64);                  // k is k either way
  const std::vector<float> plain = features_of(p, "wgmma", *KernelConfig::parse("bm=128 bn=152 bk=64"), backends);
  EXPECT_FLOAT_EQ(value(names, plain, "tiles_bm"), 3);               // ceil(300 / 128)
  EXPECT_FLOAT_EQ(value(names, v, "log2_blocks"), std::log2(96.0f));
  EXPECT_FLOAT_EQ(value(names, plain, "log2_blocks"), std::log2(123.0f));  // 3 × ceil(6144 / 152)
}

// A device's features come from its CPU class and its fingerprint's L2; anything else is refused
// with what was missing.
TEST(Features, TheDevicesFeaturesAreItsIsaLevelThreadsAndL2) {
  const auto sixteen = device_features("cpu|Intel(R) Xeon(R) Processor|avx2,avx512f,|16t|l2=2048K", "cpu/avx512_bf16/16t");
  ASSERT_TRUE(sixteen.is_ok()) << sixteen.status().message();
  EXPECT_EQ(*sixteen, (std::vector<float>{4, 16, 2048}));
  EXPECT_EQ(sixteen->size(), device_feature_names().size());
  EXPECT_EQ(*device_features("cpu|AMD EPYC|avx2,|2t|l2=512K", "cpu/avx2/2t"), (std::vector<float>{1, 2, 512}));
  EXPECT_EQ(cpu_class_parts("cpu/generic/64t"), (std::pair{0, 64}));
  for (const char* bad : {"cuda/sm_90a/132sm", "cpu/avx3/2t", "cpu/avx2/0t", "cpu/avx2"}) {
    EXPECT_FALSE(cpu_class_parts(bad).has_value()) << bad;
    auto refused = device_features("cpu|X|2t|l2=512K", bad);
    ASSERT_FALSE(refused.is_ok()) << bad;
    EXPECT_NE(refused.status().message().find(bad), std::string::npos) << refused.status().message();
  }
  auto no_l2 = device_features("cpu|X|avx2,|2t", "cpu/avx2/2t");
  ASSERT_FALSE(no_l2.is_ok());
  EXPECT_NE(no_l2.status().message().find("no L2 size"), std::string::npos) << no_l2.status().message();
}

TEST(Features, ProblemKindsNameDtypesLayoutAndTf32) {
  ProblemSpec spec;
  spec.m = spec.n = spec.k = 8;
  spec.allow_tf32 = true;
  EXPECT_EQ(problem_kind(*Problem::create(spec)), "f32.f32.f32:nn:tf32");
  EXPECT_EQ(problem_kind(*Problem::create(8, 8, 8, DType::s8, "nt")), "s8.s8.s32:nt");
}

// A model trained before `algo` was split into `kernel` and `rank` is fed, for its feature
// `cfg_algo`, the very number each old config had: the inverse of upgrade_config_text.
TEST(Features, TheLegacyAlgoFeatureIsTheOldNumberOfEveryUpgradedConfig) {
  const std::vector<std::pair<std::string, int>> old = {
      {"cpu", 0},      {"cpu", 1},      {"cpu", 4},       {"cpu", 8},   {"cublaslt", 1},
      {"cublaslt", 7}, {"onednn", 1},   {"libxsmm", 1},   {"mma", 9001}, {"mma", 9002},
      {"wgmma", 0},    {"skinny", 0}};
  int checked = 0;
  for (const auto& [backend, number] : old) {
    auto config = KernelConfig::parse(upgrade_config_text(backend, "algo=" + std::to_string(number)));
    ASSERT_TRUE(config.is_ok()) << backend << " " << number;
    EXPECT_TRUE(is_legacy_feature("cfg_algo"));
    EXPECT_FLOAT_EQ(legacy_feature("cfg_algo", backend, *config), float(number)) << backend << " algo=" << number;
    ++checked;
  }
  EXPECT_FALSE(is_legacy_feature("cfg_kernel"));
  EXPECT_EQ(checked, 12);
}

}  // namespace
}  // namespace gemmtune
