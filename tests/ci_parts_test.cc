// The optional parts a CI run must have exercised: with CI=true each missing part fails here
// (and in the tests that need it); elsewhere each is a skip that names what is missing.
#include <gtest/gtest.h>

#include "ci_skip.h"
#include "gemmtune/session.h"
#include "gemmtune/cost_model.h"
#include "store/redis_server.h"

namespace gemmtune {
namespace {

TEST(CiParts, TheCudaBackendsAreBuilt) {
  int built = 0;
  for (const BackendAvailability& b : compiled_backends(DeviceKind::cuda)) {
    if (!b.available) SKIP_UNLESS_CI("the CUDA backend '" + b.name + "' is not built: " + b.note);
    ++built;
  }
  EXPECT_GE(built, 3) << "cublaslt, wgmma and cuda";
}

TEST(CiParts, XgboostIsBuiltIn) {
  if (!CostModel::built_in()) SKIP_UNLESS_CI(CostModel::not_built_in_reason());
  SUCCEED();
}

TEST(CiParts, ARedisServerCanBeStarted) {
  if (const std::string why = testing::redis_unavailable_reason(); !why.empty()) SKIP_UNLESS_CI(why);
  SUCCEED();
}

}  // namespace
}  // namespace gemmtune
