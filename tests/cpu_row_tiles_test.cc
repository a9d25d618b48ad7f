// The packed kernel's cut of a block's rows into whole and short register tiles
// (backends/cpu/cpu_row_tiles.h): it covers every row, pads no more than any other cut of whole
// and short tiles would, and of the cuts that pad as little, has the fewest short tiles. The
// kernel's results at every row remainder are checked in cpu_kernels_test.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdint>

#include "backends/cpu/cpu_kernels.h"
#include "backends/cpu/cpu_row_tiles.h"

namespace gemmtune {
namespace {

using cpu::RowTiles;

std::int64_t rows_of(const RowTiles& t, int mr, int sr) { return t.full * mr + t.short_tiles * sr; }

RC_GTEST_PROP(RowTiles, CoverEveryRowWithTheLeastPaddingAndTheFewestShortTiles, ()) {
  const int mr = *rc::gen::inRange(1, 25);
  const int sr = *rc::gen::inRange(1, 25);
  const std::int64_t rows = *rc::gen::inRange<std::int64_t>(1, 2000);
  const RowTiles cut = cpu::row_tiles(rows, mr, sr);
  RC_ASSERT(cut.full >= 0);
  RC_ASSERT(cut.short_tiles >= 0);
  RC_ASSERT(rows_of(cut, mr, sr) >= rows);
  if (sr >= mr) RC_ASSERT(cut.short_tiles == 0);
  // Every cut of whole and short tiles that covers the rows, with up to 2·MR short ones.
  for (std::int64_t b = 0; b <= 2 * mr; ++b) {
    const std::int64_t left = rows > b * sr ? rows - b * sr : 0;
    const RowTiles other{(left + mr - 1) / mr, b};
    if (sr >= mr && b > 0) break;
    RC_ASSERT(rows_of(cut, mr, sr) <= rows_of(other, mr, sr));
    if (rows_of(other, mr, sr) == rows_of(cut, mr, sr)) RC_ASSERT(cut.short_tiles <= b);
  }
}

RC_GTEST_PROP(RowTiles, NoTileIsPaddingAlone, ()) {
  const int mr = *rc::gen::inRange(1, 25);
  const int nv = *rc::gen::inRange(1, 9);
  const int sr = cpu::short_tile_rows(mr, nv);
  const std::int64_t rows = *rc::gen::inRange<std::int64_t>(1, 2000);
  const RowTiles cut = cpu::row_tiles(rows, mr, sr);
  const std::int64_t padding = rows_of(cut, mr, sr) - rows;
  RC_ASSERT(padding < (cut.short_tiles > 0 ? sr : mr));
  RC_ASSERT(sr <= mr);
  // A short tile still has 8 accumulators where the kernel has that many.
  if (sr < mr) RC_ASSERT(sr * nv >= 8);
}

TEST(RowTiles, TheCutsTheKernelsRun) {
  int checked = 0;
  auto expect = [&](std::int64_t rows, int mr, int nv, std::int64_t full, std::int64_t short_tiles) {
    const RowTiles cut = cpu::row_tiles(rows, mr, cpu::short_tile_rows(mr, nv));
    EXPECT_EQ(cut.full, full) << rows << " rows, " << mr << " x " << nv;
    EXPECT_EQ(cut.short_tiles, short_tiles) << rows << " rows, " << mr << " x " << nv;
    ++checked;
  };
  expect(128, 6, 2, 20, 2);   // 6 × 16 AVX2: 120 + 4 + 4, not 22 whole tiles (132 rows)
  expect(8, 6, 2, 0, 2);      // MR + 2 rows as two 4-row tiles
  expect(256, 6, 2, 42, 1);   // 252 + 4
  expect(126, 6, 2, 21, 0);   // whole tiles only
  expect(100, 14, 2, 6, 4);   // 14 × 32 AVX-512: 84 + 16, not 8 whole tiles (112 rows)
  expect(29, 8, 1, 4, 0);     // one vector wide: a short tile would have fewer than 8 chains
  expect(5, 4, 3, 0, 2);      // 4 × 3 vectors: two 3-row tiles (9 chains each)
  EXPECT_EQ(checked, 7);
}

}  // namespace
}  // namespace gemmtune
