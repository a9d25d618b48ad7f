// How the packed kernel (kernels/packed.h) cuts a block's rows into register tiles: whole tiles
// of the kernel's MR rows, and where rows are left over, short tiles of as few rows as still
// keep the FMA units busy. Plain integer rules, the same at every ISA level, and checked by
// property tests (tests/cpu_row_tiles_test.cc).
#pragma once

#include <cstdint>

namespace gemmtune::cpu {

// The fewest rows of a tile `nv` vectors wide that still keep both FMA ports busy: a step's
// rows × nv accumulators are independent chains, and two ports of 4 cycles' latency need 8 of
// them in flight. A tile of fewer chains waits on its own sums and costs as much as one of this
// height (a 2-row 6 × 16 tile ran 2/3 of a whole one's time, not 1/3:
// bench/results/2026-11-30c-cpu-small-nn.md).
constexpr int busy_rows(int nv) { return (8 + nv - 1) / nv; }

// The short tile of an MR × nv kernel: busy_rows, or MR where that is no fewer (no short tile).
constexpr int short_tile_rows(int mr, int nv) { return busy_rows(nv) < mr ? busy_rows(nv) : mr; }

// A block's rows as `full` tiles of MR rows followed by `short_tiles` of SR rows.
struct RowTiles {
  std::int64_t full = 0, short_tiles = 0;
};

// The cut of `rows` (> 0) with the fewest padding rows, and of those the fewest short tiles. A
// tile's time goes with its height down to SR, so padding rows are time lost: MR + 2 rows run
// as two 4-row tiles of a 6 × 16 kernel (8 rows' time, not 12), and 100 rows of a 14 × 32 one
// as 6 × 14 + 4 × 4 (100 rows' time, not 112). SR ≥ MR: whole tiles only.
constexpr RowTiles row_tiles(std::int64_t rows, int mr, int sr) {
  RowTiles best{(rows + mr - 1) / mr, 0};
  if (sr >= mr) return best;
  // MR short tiles hold the rows of SR whole ones: a cut with more never has less padding.
  for (std::int64_t b = 1; b < mr; ++b) {
    const std::int64_t left = rows > b * sr ? rows - b * sr : 0;
    const RowTiles cut{(left + mr - 1) / mr, b};
    if (cut.full * mr + cut.short_tiles * sr < best.full * mr + best.short_tiles * sr) best = cut;
  }
  return best;
}

}  // namespace gemmtune::cpu
