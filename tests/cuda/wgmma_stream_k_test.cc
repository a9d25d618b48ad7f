// The stream-K work division of the Hopper template (kernels/wgmma_stream_k.cuh), on the host:
// the kernel includes the same file, so what holds here holds for its producer and consumers.
// For any tile count, grid, k-blocks a tile, count of stream-K tiles and rows of tiles: every
// (tile, k-block) is computed exactly once, a tile's contributors are the clusters the division
// names and their k-blocks add up to the tile's, a cluster writes at most two partials (one a
// slot), the lanes run the same k-blocks of the same column in step, and the producer's ring
// and each consumer's reads (cooperative and ping-pong) agree.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "backends/cuda/kernels/wgmma_stream_k.cuh"

namespace {

// Every unit of every cluster, in each cluster's order.
std::vector<std::vector<gt_unit>> units_of(const gt_sk_division& d) {
  std::vector<std::vector<gt_unit>> units(std::size_t(d.clusters));
  for (int g = 0; g < d.clusters; ++g) {
    for (int i = 0; i < gt_sk_unit_count(&d, g); ++i) units[std::size_t(g)].push_back(gt_sk_unit_of(&d, g, i));
  }
  return units;
}

struct Check {
  int tiles, clusters, k_blocks, sk_tiles, rows;
};

// How many (tile, k-block) pairs were computed more or less than once; a tile with no k-blocks
// (k = 0) must still be one unit's, which writes beta·C.
int coverage_errors(const Check& c, const std::vector<std::vector<gt_unit>>& units) {
  std::vector<int> times(std::size_t(c.tiles) * std::size_t(std::max(c.k_blocks, 1)), 0);
  for (const auto& cluster : units) {
    for (const gt_unit& u : cluster) {
      if (u.tile < 0 || u.tile >= c.tiles || u.kb_begin < 0 || u.kb_end > c.k_blocks) return 1 << 30;
      if (c.k_blocks == 0) ++times[std::size_t(u.tile)];
      for (int kb = u.kb_begin; kb < u.kb_end; ++kb) ++times[std::size_t(u.tile) * std::size_t(c.k_blocks) + kb];
    }
  }
  return int(std::count_if(times.begin(), times.end(), [](int n) { return n != 1; }));
}

// The ring positions of one cluster: the producer loads (tile, kb) of every unit in order; a
// consumer walks the same units, reading only its own (ping-pong: every other unit, counting the
// other consumer's stages past). As in gemm_wgmma.cuh's two loops. True when they agree.
bool ring_agrees(const gt_sk_division& d, int g, bool pingpong) {
  std::vector<std::pair<int, int>> loaded;
  for (int i = 0; i < gt_sk_unit_count(&d, g); ++i) {
    const gt_unit u = gt_sk_unit_of(&d, g, i);
    for (int kb = u.kb_begin; kb < u.kb_end; ++kb) loaded.emplace_back(u.tile, kb);
  }
  std::vector<int> readers(loaded.size(), 0);
  for (int consumer = 0; consumer < 2; ++consumer) {
    std::size_t it = 0;
    for (int i = 0; i < gt_sk_unit_count(&d, g); ++i) {
      const gt_unit u = gt_sk_unit_of(&d, g, i);
      if (pingpong && i % 2 != consumer) {
        it += std::size_t(u.kb_end - u.kb_begin);
        continue;
      }
      for (int kb = u.kb_begin; kb < u.kb_end; ++kb, ++it) {
        if (it >= loaded.size() || loaded[it] != std::pair{u.tile, kb}) return false;
        ++readers[it];
      }
    }
    if (it != loaded.size()) return false;
  }
  // Cooperative: both consumers read every stage; ping-pong: exactly one does.
  const int want = pingpong ? 1 : 2;
  return std::all_of(readers.begin(), readers.end(), [&](int n) { return n == want; });
}

// Checks one division; returns how many properties failed (0: all held), counting each checked
// property in `checked`.
int division_errors(const Check& c, int& checked) {
  const gt_sk_division d = gt_sk_division_of(c.tiles, c.clusters, c.k_blocks, c.sk_tiles, c.rows);
  const auto units = units_of(d);
  int errors = 0;
  auto expect = [&](bool holds) {
    ++checked;
    if (!holds) ++errors;
  };
  expect(coverage_errors(c, units) == 0);

  // Data-parallel units are whole tiles below dp_tiles, and come before any piece.
  std::map<int, std::vector<std::pair<int, gt_unit>>> pieces;  // stream-K tile -> (cluster, unit)
  for (int g = 0; g < c.clusters; ++g) {
    int partial = 0;
    std::set<int> parts;
    for (std::size_t i = 0; i < units[std::size_t(g)].size(); ++i) {
      const gt_unit& u = units[std::size_t(g)][i];
      const bool dp = int(i) < gt_sk_dp_units(&d, g);
      expect(dp == (u.tile < d.dp_tiles));
      if (dp) {
        expect(gt_sk_whole(&d, u) && u.tile % c.clusters == g);
        continue;
      }
      expect(u.kb_begin < u.kb_end);
      pieces[u.tile].emplace_back(g, u);
      if (gt_sk_whole(&d, u)) continue;
      ++partial;
      expect(parts.insert(u.part).second);  // one partial a slot
      expect(u.part >= 0 && u.part < GT_SK_PARTS && u.part == gt_sk_part_of(&d, g, u.tile));
    }
    expect(partial <= 2);
    expect(ring_agrees(d, g, false) && ring_agrees(d, g, true));
  }

  // A stream-K tile's contributors: the run the division names, covering KB between them; a
  // tile shared by several has no whole piece (nobody writes C directly).
  for (const auto& [tile, shares] : pieces) {
    int first = -1, count = 0;
    gt_sk_contributors(&d, tile, &first, &count);
    std::vector<int> clusters;
    int blocks = 0;
    for (const auto& [g, u] : shares) {
      clusters.push_back(g);
      blocks += u.kb_end - u.kb_begin;
    }
    std::vector<int> named;
    for (int j = 0; j < count; ++j) named.push_back(first + j * d.lanes);
    expect(clusters == named);
    expect(blocks == c.k_blocks);
    expect(shares.size() == 1 || !gt_sk_whole(&d, shares[0].second));
  }

  // Lanes where the rows divide both tile counts; cluster g (lane g mod R) computes what lane
  // 0's cluster g - g mod R does, g mod R rows down.
  const bool lanes_fit = c.rows > 1 && c.rows <= c.clusters && d.sk_tiles % c.rows == 0 && d.dp_tiles % c.rows == 0;
  expect(d.lanes == (lanes_fit ? c.rows : 1));
  for (int g = 0; g < d.lanes * d.lane_clusters; ++g) {
    const int lane = g % d.lanes;
    const auto& mine = units[std::size_t(g)];
    const auto& first_lane = units[std::size_t(g - lane)];
    const int skip = gt_sk_dp_units(&d, g), skip_first = gt_sk_dp_units(&d, g - lane);
    bool same = mine.size() - skip == first_lane.size() - skip_first;
    for (std::size_t i = 0; same && i + skip < mine.size(); ++i) {
      const gt_unit &a = mine[i + skip], &b = first_lane[i + skip_first];
      same = a.tile == b.tile + lane && a.kb_begin == b.kb_begin && a.kb_end == b.kb_end;
    }
    expect(same);
  }

  // Shares differ by at most one k-block and, where S allows, hold GT_SK_MIN_BLOCKS.
  if (d.sk_clusters > 0) {
    long long least = d.sk_iters, most = 0;
    for (int g = 0; g < d.sk_clusters; ++g) {
      const long long share = gt_sk_begin(&d, g + 1) - gt_sk_begin(&d, g);
      least = std::min(least, share);
      most = std::max(most, share);
    }
    expect(most - least <= 1);
    expect(d.sk_iters < GT_SK_MIN_BLOCKS || least >= GT_SK_MIN_BLOCKS);
    expect(gt_sk_begin(&d, d.lane_clusters) == d.sk_iters);
  }
  return errors;
}

rc::Gen<Check> any_division() {
  return rc::gen::exec([] {
    Check c;
    c.clusters = *rc::gen::inRange(1, 200);
    // Tiles in rows of columns, as the raster lays them out where the rows fit in one group.
    c.rows = *rc::gen::inRange(1, 9);
    c.tiles = c.rows * *rc::gen::inRange(1, 5 * c.clusters / c.rows + 2);
    c.k_blocks = *rc::gen::weightedOneOf<int>({{1, rc::gen::just(0)}, {8, rc::gen::inRange(1, 300)}});
    // The rule's r or r + G, or any count: the layout must hold whatever the rule picks.
    const int tail = c.tiles % c.clusters;
    c.sk_tiles = *rc::gen::weightedOneOf<int>({{2, rc::gen::just(tail)},
                                               {2, rc::gen::just(std::min(c.tiles, tail + c.clusters))},
                                               {1, rc::gen::just(gt_sk_tiles_for(c.tiles, c.clusters, c.k_blocks))},
                                               {1, rc::gen::inRange(0, c.tiles + 1)}});
    return c;
  });
}

RC_GTEST_PROP(WgmmaStreamK, EveryTileAndKBlockIsComputedOnceAndEveryPartialIsFound, ()) {
  const Check c = *any_division();
  int checked = 0;
  const int errors = division_errors(c, checked);
  RC_TAG(c.sk_tiles == 0 ? "data-parallel" : c.sk_tiles == c.tiles ? "all stream-K" : "hybrid");
  RC_TAG(gt_sk_division_of(c.tiles, c.clusters, c.k_blocks, c.sk_tiles, c.rows).lanes > 1 ? "lanes" : "one lane");
  RC_ASSERT(checked > 0);
  RC_ASSERT(errors == 0);
}

// The rule: nothing where every wave is full, the whole grid below one wave, and one full
// wave joined to a tail of less than half a wave.
RC_GTEST_PROP(WgmmaStreamK, TheRuleSharesTheTailAndAWaveBelowHalfFull, ()) {
  const int clusters = *rc::gen::inRange(1, 200);
  const int tiles = *rc::gen::inRange(1, 6 * clusters);
  const int k_blocks = *rc::gen::inRange(1, 300);
  const int tail = tiles % clusters;
  const int sk = gt_sk_tiles_for(tiles, clusters, k_blocks);
  if (tail == 0) {
    RC_ASSERT(sk == 0);
  } else if (tiles < clusters) {
    RC_ASSERT(sk == tiles);
  } else {
    RC_ASSERT(sk == (2 * tail < clusters ? tail + clusters : tail));
    RC_ASSERT(2 * sk >= clusters);  // each cluster's share is at least half a tile
  }
  RC_ASSERT((tiles - sk) % clusters == 0);  // the data-parallel part runs in full waves
}

TEST(WgmmaStreamK, ManyDivisionsHoldEveryProperty) {
  // Exhaustive over small grids: every tile count of up to four waves in 1, 3 or 8 rows, KB 0-9
  // and 64.
  int checked = 0, errors = 0, divisions = 0;
  for (int rows : {1, 3, 8}) {
    for (int clusters : {1, 2, 3, 5, 8, 13, 66, 132}) {
      for (int tiles = rows; tiles <= 4 * clusters; tiles += rows) {
        for (int k_blocks : {0, 1, 2, 3, 7, 8, 9, 64}) {
          const int tail = tiles % clusters;
          for (int sk_tiles : {tail, std::min(tiles, tail + clusters), gt_sk_tiles_for(tiles, clusters, k_blocks)}) {
            errors += division_errors({tiles, clusters, k_blocks, sk_tiles, rows}, checked);
            ++divisions;
          }
        }
      }
    }
  }
  EXPECT_EQ(errors, 0);
  EXPECT_GT(divisions, 30000);
  EXPECT_GT(checked, 1000000) << "properties checked over " << divisions << " divisions";
  std::printf("%d properties checked over %d divisions\n", checked, divisions);
}

TEST(WgmmaStreamK, TheProbeShapesDivideAsIntended) {
  // 300×14336×4096 with 128×256 tiles on 132 SMs: 168 tiles in 3 rows, a tail of 36 (< 66): all
  // 168 shared, in 3 lanes of 44 clusters, 81-82 k-blocks a cluster, at most 2 contributors a tile.
  gt_sk_division d = gt_sk_divide(168, 132, 64, 3);
  EXPECT_EQ(d.dp_tiles, 0);
  EXPECT_EQ(d.sk_tiles, 168);
  EXPECT_EQ(d.lanes, 3);
  EXPECT_EQ(d.sk_clusters, 44);
  EXPECT_EQ(gt_sk_begin(&d, 1), 81);
  int most = 0;
  for (int tile = 0; tile < 168; ++tile) {
    int first, count;
    gt_sk_contributors(&d, tile, &first, &count);
    most = std::max(most, count);
  }
  EXPECT_EQ(most, 2);
  // 1000×14336×4096: 448 tiles in 8 rows, tail 52: two full waves whole, 52 + 132 tiles shared
  // in 8 lanes of 16 clusters (4 clusters idle meanwhile), 92 k-blocks each.
  d = gt_sk_divide(448, 132, 64, 8);
  EXPECT_EQ(d.dp_tiles, 264);
  EXPECT_EQ(d.sk_tiles, 184);
  EXPECT_EQ(d.lanes, 8);
  EXPECT_EQ(gt_sk_begin(&d, 1), 92);
  EXPECT_EQ(gt_sk_dp_units(&d, 0), 2);
  EXPECT_EQ(gt_sk_unit_count(&d, 131), 2);  // past 8 lanes of 16: its two data-parallel tiles
  // Cluster 9 is lane 1's second: after its two whole tiles, column 1 of row 1 from k-block 28.
  EXPECT_EQ(gt_sk_unit_of(&d, 9, 2).tile, 264 + 1 * 8 + 1);
  EXPECT_EQ(gt_sk_unit_of(&d, 9, 2).kb_begin, 92 - 64);
  // 3000×4096×4096: 24 rows, more than a group: one lane, only the tail (>= 66), 58 k-blocks
  // a cluster.
  d = gt_sk_divide(384, 132, 64, 1);
  EXPECT_EQ(d.sk_tiles, 120);
  EXPECT_EQ(gt_sk_begin(&d, 1), 58);
  // 256×4096×4096: 32 tiles in 2 rows, fewer than the SMs: all shared, 15-16 k-blocks a cluster.
  d = gt_sk_divide(32, 132, 64, 2);
  EXPECT_EQ(d.sk_tiles, 32);
  EXPECT_EQ(d.sk_clusters, 66);
  // One tile of 64 k-blocks: 8 clusters of 8, not 64 clusters of 1.
  d = gt_sk_divide(1, 132, 64, 1);
  EXPECT_EQ(d.sk_clusters, 8);
  EXPECT_EQ(gt_sk_unit_count(&d, 8), 0);
}

}  // namespace
