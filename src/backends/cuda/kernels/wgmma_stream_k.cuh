// Stream-K work division of the persistent Hopper kernel (gemm_wgmma.cuh, GT_STREAM_K 1), in
// plain C: the kernel includes this file (the library and the probe inline it into the one text
// NVRTC compiles) and so does its host test (tests/cuda/wgmma_stream_k_test.cc), so both run
// the same arithmetic.
//
// Hybrid data-parallel + stream-K, after Osama et al., "Stream-K" (PPoPP 2023) and CUTLASS 3's
// SM90 stream-K scheduler. T cluster tiles of KB k-blocks each run on a grid of G clusters:
//  - tiles [0, dp_tiles) are data-parallel: cluster g runs tiles g, g + G, … whole, in full waves;
//  - the sk_tiles tiles after them are shared out by k-block, in R lanes (below); each lane's
//    tiles form one space of S = sk_tiles/R·KB k-block iterations, cut into sk_clusters
//    contiguous ranges of equal length (±1): the lane's i-th cluster, i < sk_clusters, gets
//    [i·S/sk_clusters, (i+1)·S/sk_clusters).
// A range is cut at tile boundaries into pieces: the tail of one tile, whole tiles, the head of
// another. Every piece is a work unit (tile, kb_begin, kb_end); only a cluster's first and last
// piece can be partial, so two partial-sum slots a cluster ("parts" 0 and 1) hold them all.
// The clusters that contribute to a tile are a run of its lane, found from the division alone.
//
// Lanes keep the tiles that share an operand in step. Where the grid's tiles are R rows of
// columns in raster order (tile t in row t mod R, which gemm_wgmma.cuh's order gives where the
// cluster-tile rows fit in one group of GT_GROUP_M), the R tiles of a column read one B' panel.
// Run whole, they read each k-block of it at about the same time and DRAM serves it once. Cut
// into one space, tile-major, neighbouring clusters start at k offsets that differ by S/G mod KB,
// so the R tiles read the same k-block far apart in time and L2 (50 MB) no longer holds it:
// on the H100 that doubled the time of 512×6144×4096, whose 50 MB B' was read four times over.
// With lanes, row r of the stream-K tiles is lane r, shared by its own G/R clusters, with the
// same division in every lane: the i-th cluster of each lane computes the same k-blocks of the
// same column at the same time. The lanes interleave (cluster g is the (g / R)-th of lane
// g mod R), so that the R clusters reading one panel are neighbours in the grid, as the R tiles
// of a column are in the plain grid's raster: lanes of G/R consecutive clusters kept the rows in
// step too, but ran the mainloop 1.3× slower (H100: 99.7 against 74.7 µs at 300×14336×4096
// without the fixups). Lanes need R to divide the stream-K and data-parallel tile counts;
// otherwise R = 1, one space.
//
// Which tiles go to stream-K (r = T mod G, the tiles of the last, partial wave):
//  - r = 0: none (every wave is full);
//  - no full wave (T < G): all T;
//  - the r tiles shared by G clusters give each a share of r·KB/G k-blocks. From half a tile
//    (2r >= G) on, a tile has at most three contributors and its finisher reads at most two
//    partials, so those r tiles alone are shared. Below half a tile a tile has about G/r
//    contributors, and its finisher reads all their partials after its own mainloop, at the
//    end of the launch: then one full wave joins them (r + G tiles), so that each cluster's
//    share is 1 to 1.5 tiles and the ~G partial reads of the launch spread over r + G
//    finishers instead of r (CUTLASS 3 shares the last two waves in the same way).
// A share below GT_SK_MIN_BLOCKS k-blocks would cost more in its partial's write and read than
// it computes, so where S is small fewer clusters take part: sk_clusters = min(G/R, S / that).
//
// All of it is 32-bit: a 64-bit division is a subroutine call in the SASS, whose registers
// spilled the 168-register kernels. The host offers stream-K only where S < 2^31 (it is at most
// 2·G·KB; wgmma_config_space.cc's check), and g·S/sk_clusters is worked out as g·q + g·rem /
// sk_clusters from S = q·sk_clusters + rem.

#ifndef GT_SK_FN
#if defined(__CUDACC_RTC__) || defined(__CUDACC__)
#define GT_SK_FN __device__ __forceinline__
#else
#define GT_SK_FN static inline
#endif
#endif

// k-blocks a cluster's stream-K share holds at least (CUTLASS 3 uses the same 8): writing one
// partial tile and reading it back costs a few k-blocks of tensor work.
#define GT_SK_MIN_BLOCKS 8
// Partial-sum slots a cluster owns: its range's first and last piece.
#define GT_SK_PARTS 2

typedef struct {
  int clusters;       // G
  int k_blocks;       // KB: k-blocks of one tile
  int dp_tiles;       // tiles run whole, tile t by cluster t % G
  int sk_tiles;       // tiles [dp_tiles, dp_tiles + sk_tiles) are shared out by k-block
  int lanes;          // R: stream-K tile dp_tiles + c·R + r is column c of lane r
  int lane_clusters;  // G / R: cluster g < R·(G/R) is the (g / R)-th of lane g mod R
  int sk_clusters;    // the first sk_clusters clusters of each lane share its iterations
  int sk_iters;       // S = sk_tiles / R · KB, the iterations of one lane
  int share, extra;   // S = share · sk_clusters + extra
} gt_sk_division;

// One work unit of the kernel: k-blocks [kb_begin, kb_end) of cluster tile `tile`. `part` says
// where a partial unit writes its partial sums: under stream-K 0 for the first piece of the
// cluster's range and 1 for any later one (only the last can be partial); under split-k the
// kernel puts the slice of k there.
typedef struct {
  int tile;
  int kb_begin, kb_end;
  int part;
} gt_unit;

// How many of `tiles` tiles go to stream-K on `clusters` clusters (the rule above).
GT_SK_FN int gt_sk_tiles_for(int tiles, int clusters, int k_blocks) {
  const int tail = tiles % clusters;
  if (tail == 0 || k_blocks == 0) return 0;
  return tiles >= clusters && 2 * tail < clusters ? tail + clusters : tail;
}

// The division with the last `sk_tiles` tiles shared out (any count from 0 to `tiles`) in
// `rows` lanes where that count and the data-parallel one allow it (else in one).
GT_SK_FN gt_sk_division gt_sk_division_of(int tiles, int clusters, int k_blocks, int sk_tiles, int rows) {
  gt_sk_division d;
  d.clusters = clusters;
  d.k_blocks = k_blocks;
  d.sk_tiles = k_blocks > 0 ? sk_tiles : 0;
  d.dp_tiles = tiles - d.sk_tiles;
  d.lanes = rows > 1 && rows <= clusters && d.sk_tiles % rows == 0 && d.dp_tiles % rows == 0 ? rows : 1;
  d.lane_clusters = clusters / d.lanes;
  d.sk_iters = d.sk_tiles / d.lanes * k_blocks;
  const int most = d.sk_iters / GT_SK_MIN_BLOCKS;
  d.sk_clusters = d.sk_tiles == 0 ? 0 : most < 1 ? 1 : most < d.lane_clusters ? most : d.lane_clusters;
  d.share = d.sk_clusters > 0 ? d.sk_iters / d.sk_clusters : 0;
  d.extra = d.sk_clusters > 0 ? d.sk_iters % d.sk_clusters : 0;
  return d;
}

// The division of `tiles` tiles in `rows` rows of columns (1 where they are not) by the rule.
GT_SK_FN gt_sk_division gt_sk_divide(int tiles, int clusters, int k_blocks, int rows) {
  return gt_sk_division_of(tiles, clusters, k_blocks, gt_sk_tiles_for(tiles, clusters, k_blocks), rows);
}

// First iteration of the i-th cluster of a lane, i·S/sk_clusters (S past the clusters that
// take no share).
GT_SK_FN int gt_sk_begin(const gt_sk_division* d, int i) {
  return i >= d->sk_clusters ? d->sk_iters : i * d->share + i * d->extra / d->sk_clusters;
}

// Which cluster of its lane holds iteration x of the lane: the last i with gt_sk_begin(i) <= x.
// No range is longer than share + 1 nor shorter than share, so it is at most x / share and at
// least x / (share + 1): from the first, about sk_clusters / share steps down at most (16 on
// 132 SMs, where share >= GT_SK_MIN_BLOCKS).
GT_SK_FN int gt_sk_owner(const gt_sk_division* d, int x) {
  int i = x / d->share < d->sk_clusters - 1 ? x / d->share : d->sk_clusters - 1;
  while (gt_sk_begin(d, i) > x) --i;
  return i;
}

// Cluster g's place in its lane g mod R (clusters past R·(G/R) take no share: sk_clusters).
GT_SK_FN int gt_sk_lane_index(const gt_sk_division* d, int g) {
  return g < d->lanes * d->lane_clusters ? g / d->lanes : d->sk_clusters;
}

GT_SK_FN int gt_sk_dp_units(const gt_sk_division* d, int g) {
  return g < d->dp_tiles ? (d->dp_tiles - g + d->clusters - 1) / d->clusters : 0;
}

// Pieces of cluster g's stream-K range: the columns from its first iteration's to its last's.
GT_SK_FN int gt_sk_pieces(const gt_sk_division* d, int g) {
  const int i = gt_sk_lane_index(d, g);
  const int begin = gt_sk_begin(d, i), end = gt_sk_begin(d, i + 1);
  return end > begin ? (end - 1) / d->k_blocks - begin / d->k_blocks + 1 : 0;
}

// Work units of cluster g: its data-parallel tiles, then the pieces of its stream-K range.
GT_SK_FN int gt_sk_unit_count(const gt_sk_division* d, int g) { return gt_sk_dp_units(d, g) + gt_sk_pieces(d, g); }

GT_SK_FN gt_unit gt_sk_unit_of(const gt_sk_division* d, int g, int i) {
  gt_unit u;
  const int dp = gt_sk_dp_units(d, g);
  if (i < dp) {
    u.tile = g + i * d->clusters;
    u.kb_begin = 0;
    u.kb_end = d->k_blocks;
    u.part = 0;
    return u;
  }
  const int piece = i - dp;
  const int index = gt_sk_lane_index(d, g);
  const int begin = gt_sk_begin(d, index), end = gt_sk_begin(d, index + 1);
  const int column = begin / d->k_blocks + piece;
  const int column_start = column * d->k_blocks;
  u.tile = d->dp_tiles + column * d->lanes + g % d->lanes;
  u.kb_begin = piece == 0 ? begin - column_start : 0;
  u.kb_end = end - column_start < d->k_blocks ? end - column_start : d->k_blocks;
  u.part = piece == 0 ? 0 : 1;
  return u;
}

// A unit that covers its whole tile writes C itself; any other is finished through partials.
GT_SK_FN int gt_sk_whole(const gt_sk_division* d, gt_unit u) { return u.kb_begin == 0 && u.kb_end == d->k_blocks; }

// The clusters whose ranges meet stream-K tile `tile` (a tile index >= dp_tiles): a run of the
// tile's lane, *count of them, the j-th being cluster *first + j·R.
GT_SK_FN void gt_sk_contributors(const gt_sk_division* d, int tile, int* first, int* count) {
  const int lane = (tile - d->dp_tiles) % d->lanes, start = (tile - d->dp_tiles) / d->lanes * d->k_blocks;
  const int first_index = gt_sk_owner(d, start);
  *first = first_index * d->lanes + lane;
  *count = gt_sk_owner(d, start + d->k_blocks - 1) - first_index + 1;
}

// The part (partial-sum slot) in which contributor g wrote its piece of stream-K tile `tile`.
GT_SK_FN int gt_sk_part_of(const gt_sk_division* d, int g, int tile) {
  return (tile - d->dp_tiles) / d->lanes == gt_sk_begin(d, gt_sk_lane_index(d, g)) / d->k_blocks ? 0 : 1;
}
