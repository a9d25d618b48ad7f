// The shipped GPU cost model against this build's own GPU families: a change of a family's
// kernels retires the model (its rankings no longer hold: sweep and train again, scripts/gpu-sweep),
// and a change of the pad-copy kernel alone does not (every config of a padded problem runs the
// same copy; cost_model.cc, ranked_part). A commit that retires the model says so here, so that
// `tune --fast` on a GPU timing its whole space is never a surprise.
#include <gtest/gtest.h>

#include <cstdlib>
#include <map>
#include <string>

#include "backends/cuda/mma_backend.h"
#include "backends/cuda/pad_copy_kernel.h"
#include "backends/cuda/skinny_backend.h"
#include "backends/cuda/wgmma_backend.h"
#include "ci_skip.h"
#include "gemmtune/cost_model.h"

namespace gemmtune::cuda {
namespace {

const std::string kModels = std::string(GEMMTUNE_TEST_SOURCE_DIR) + "/data/models";

TEST(GpuModelVersions, TheShippedModelRanksThisBuildsFamilies) {
  if (!CostModel::built_in()) SKIP_UNLESS_CI(CostModel::not_built_in_reason());
  auto info = CostModel::read_info(kModels + "/cuda-sm_90a-132sm.json");
  ASSERT_TRUE(info.is_ok()) << info.status().message();
  std::map<std::string, std::string> versions = info->backend_versions;
  versions["wgmma"] = wgmma_backend_version();
  versions["mma"] = mma_backend_version();
  versions["skinny"] = skinny_backend_version();
  setenv("GEMMTUNE_MODEL_DIR", kModels.c_str(), 1);
  auto found = find_cost_model(info->device, versions, info->device_class);
  unsetenv("GEMMTUNE_MODEL_DIR");
  ASSERT_TRUE(found.is_ok()) << found.status().message();
  EXPECT_EQ((*found)->info().device_class, "cuda/sm_90a/132sm");
  EXPECT_TRUE((*found)->ranks("wgmma"));
  EXPECT_TRUE((*found)->ranks("skinny"));
}

TEST(GpuModelVersions, AnotherPadCopyKeepsTheModelAndOtherKernelsRetireIt) {
  if (!CostModel::built_in()) SKIP_UNLESS_CI(CostModel::not_built_in_reason());
  auto model = CostModel::load(kModels + "/cuda-sm_90a-132sm.json");
  ASSERT_TRUE(model.is_ok()) << model.status().message();
  const ModelInfo& info = (*model)->info();
  // The kernels' part of the version the model was trained at (a model trained since the copy
  // joined the version has one of its own).
  const std::string& wgmma = info.backend_versions.at("wgmma");
  const std::string trained = wgmma.substr(0, wgmma.find("+pad_copy-"));
  std::map<std::string, std::string> versions = info.backend_versions;
  int checked = 0;
  for (const std::string& copy : {std::string("+pad_copy-0123456789abcdef"), "+" + pad_copy_version(), std::string()}) {
    versions["wgmma"] = trained + copy;
    EXPECT_TRUE((*model)->check_trained_on(info.device, versions).is_ok()) << versions["wgmma"];
    versions["wgmma"] = "gemm_wgmma-0000000000000000" + copy;
    EXPECT_FALSE((*model)->check_trained_on(info.device, versions).is_ok()) << versions["wgmma"];
    ++checked;
  }
  EXPECT_EQ(checked, 3);
}

}  // namespace
}  // namespace gemmtune::cuda
