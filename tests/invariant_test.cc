// GEMMTUNE_ASSERT stops the process with what broke and where; GEMMTUNE_DASSERT only where
// NDEBUG is off.
#include <gtest/gtest.h>

#include "core/invariant.h"

namespace gemmtune {
namespace {

int checked_twice(int value) {
  GEMMTUNE_ASSERT(value % 2 == 0, "the value is even");
  return value * 2;
}

TEST(InvariantDeathTest, ABrokenInvariantAbortsNamingTheConditionWhyAndWhere) {
  EXPECT_EQ(checked_twice(4), 8);
  EXPECT_DEATH(checked_twice(3), "internal error at .*invariant_test.cc:[0-9]+: value % 2 == 0 does not hold \\(the value is even\\)");
}

TEST(InvariantDeathTest, TheDebugCheckRunsOnlyWithoutNdebug) {
  int evaluated = 0;
  auto count = [&evaluated] { return ++evaluated > 0; };
#ifdef NDEBUG
  GEMMTUNE_DASSERT(!count(), "never evaluated in a release build");
  EXPECT_EQ(evaluated, 0);
#else
  EXPECT_DEATH(GEMMTUNE_DASSERT(!count(), "a debug build checks"), "a debug build checks");
  GEMMTUNE_DASSERT(count(), "holds");
  EXPECT_EQ(evaluated, 1);
#endif
}

}  // namespace
}  // namespace gemmtune
