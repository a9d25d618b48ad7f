// How many lines of each row of B stay in L1 (b_lines_in_l1), which decides where the tile and
// one-row rows kernels read B through the window: checked against the lines each set of a
// simulated L1 receives, one line at a time.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include "backends/cpu/cpu_kernels.h"

namespace gemmtune {
namespace {

using cpu::b_lines_in_l1;
using cpu::kMaxL1Lines;
using cpu::L1Geometry;

// The most distinct lines that `lines` lines of each of k rows, `stride` lines apart, put in
// one set of the cache.
std::int64_t busiest_set(const L1Geometry& l1, std::int64_t k, std::int64_t stride, int lines) {
  std::set<std::int64_t> distinct;
  for (std::int64_t row = 0; row < k; ++row) {
    for (int l = 0; l < lines; ++l) distinct.insert(row * stride + l);
  }
  std::vector<std::int64_t> per_set(std::size_t(l1.sets), 0);
  for (std::int64_t line : distinct) ++per_set[std::size_t(line % l1.sets)];
  return *std::max_element(per_set.begin(), per_set.end());
}

TEST(L1Lines, RowsAPowerOfTwoApartShareFewSets) {
  const L1Geometry zen4{64, 8}, zen5{64, 12};
  // 64 rows 1 KiB apart begin in 4 sets, 16 rows in each: not one line of each stays. The
  // tile kernel read 1 × 64 × 64 with these rows slower through the window.
  EXPECT_EQ(b_lines_in_l1(zen4, 64, 1024), 0);
  EXPECT_EQ(b_lines_in_l1(zen5, 64, 1024), 0);
  // 4 KiB apart, all in one set: 8 rows' lines stay, however many of them, and 9 rows' do not.
  EXPECT_EQ(b_lines_in_l1(zen4, 8, 4096), kMaxL1Lines);
  EXPECT_EQ(b_lines_in_l1(zen4, 9, 4096), 0);
  // 64 rows 256 bytes (4 lines) apart: 4 to a set, and 5 once the rows run together.
  EXPECT_EQ(b_lines_in_l1(zen4, 64, 256), kMaxL1Lines);
  // 64 rows 13 lines apart begin in every set: 12 lines of each put 12 in a set, 13 put 13.
  EXPECT_EQ(b_lines_in_l1(zen5, 64, 832), 12);
}

TEST(L1Lines, StridesOffWholeLinesAndEmptyInputsGetNone) {
  const L1Geometry l1{64, 12};
  EXPECT_EQ(b_lines_in_l1(l1, 16, 1000), 0);
  EXPECT_EQ(b_lines_in_l1(l1, 0, 1024), 0);
  EXPECT_EQ(b_lines_in_l1(l1, 16, 0), 0);
  EXPECT_EQ(b_lines_in_l1(L1Geometry{0, 0}, 16, 1024), 0);
}

// The count is the most lines per row (up to kMaxL1Lines) whose busiest set in a simulated
// cache holds no more lines than it has ways.
RC_GTEST_PROP(L1Lines, TheCountAgreesWithASimulatedCache, ()) {
  const L1Geometry l1{1 << *rc::gen::inRange(3, 8), *rc::gen::inRange(2, 17)};
  const std::int64_t k = *rc::gen::inRange<std::int64_t>(1, 300);
  const std::int64_t stride = *rc::gen::inRange<std::int64_t>(1, 300);
  const int count = b_lines_in_l1(l1, k, stride * 64);
  for (int lines = 1; lines <= kMaxL1Lines; ++lines) {
    RC_ASSERT((busiest_set(l1, k, stride, lines) <= l1.ways) == (lines <= count));
  }
}

}  // namespace
}  // namespace gemmtune
