// Skips that CI must not take. A test that needs an optional part (a redis-server, XGBoost, the
// CUDA toolkit) skips with its reason where the part is missing; with CI=true (set by .ci/run)
// the same test fails instead, so a CI run proves the part was there and exercised.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

namespace gemmtune::testing {

inline bool in_ci() {
  const char* ci = std::getenv("CI");
  return ci != nullptr && std::string(ci) == "true";
}

}  // namespace gemmtune::testing

// GTEST_SKIP() with `reason` outside CI; a failure naming it under CI=true.
#define SKIP_UNLESS_CI(reason)                                                                   \
  do {                                                                                           \
    if (::gemmtune::testing::in_ci()) {                                                          \
      GTEST_FAIL() << "CI=true: this test must run, but " << (reason);                           \
    }                                                                                            \
    GTEST_SKIP() << (reason);                                                                    \
  } while (0)
