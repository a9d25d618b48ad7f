#include "wgmma_config_space.h"

#include <algorithm>
#include <optional>
#include <string>

#include "../../core/config_space.h"
#include "kernel_dtype_codes.h"
#include "kernels/wgmma_stream_k.cuh"
#include "wgmma_limits.h"

namespace gemmtune::cuda {

using namespace wgmma_template;

namespace {

// Split variants (up to kMaxSplitK slices) are offered where the grid has fewer tiles than this
// fraction of the SMs, each slice keeping at least kMinSplitBlocks k-blocks.
constexpr int kMinSplitBlocks = 4;
constexpr double kSplitBelowSmFraction = 0.75;
// Stream-K variants are offered where the data-parallel grid leaves at least this fraction of
// its cluster-time idle in a partial last wave, and has fewer than kStreamKMaxWaves waves. A
// stream-K cluster writes up to two partial tiles and a tile's finisher reads about one back:
// a few k-blocks of a 64-k-block tile, some 5 %, so below 10 % idle there is nothing to win.
// From 4 waves on the idle part is at most 1/5 of the launch and the fixed grid already sits
// within the 8-12 % that separate runs move by (bench/results/2026-11-25-h100-wgmma.md).
constexpr double kStreamKMinIdle = 0.10;
constexpr std::int64_t kStreamKMaxWaves = 4;
// Swapped variants are offered below this many rows of C: there a CTA tile of 64+ rows along
// m would be mostly padding, while n' = m can be as narrow as 8.
constexpr std::int64_t kSwapBelowM = 256;
// Up to this many rows a swapped tile as wide as m allows, split evenly (300 rows: two tiles of
// 152), wastes less than unswapped 128-row tiles do (300 rows: three, 22 % padding), and the
// grid along m' = n is long enough to fill the SMs. On the H100, bf16 (bench/results/
// 2026-11-26-h100-check.md): 300x14336x4096 72.5 us against 87.8 for the best unswapped
// tile, 300x4096x4096 22.5 against 27.6; at 256 and 512 rows the unswapped tiles stay faster.
constexpr std::int64_t kBalancedSwapBelowM = 512;
// ... where unswapped 128-row tiles would pad m by at least this fraction (300 rows: 22 %).
constexpr double kBalancedSwapMinPadding = 0.10;
// The default space drops a config whose CTAs (tiles, times its k slices) would keep fewer than
// 1/kMinFillShare of the SMs busy, where another config keeps them all busy (or, on a problem
// too small for that, kMinFillShare times as many). At 256x4096x4096 on the H100 the 32 tiles of
// 128x256 (and their clusters, swap and stream-K variants) ran 38-46 us against 19 us for
// 64x128's 128 tiles, and they are the slowest to compile: 7 of 23 compiles of a cold tuning.
// No pick of the 2026-11-26 checks had fewer than 48 CTAs (decode shapes, 132 SMs).
constexpr std::int64_t kMinFillShare = 4;
// A wave-fitted tile (wave_fitted) is at least this share of the tile it narrows, and its
// grid's last wave leaves at most kWaveFitMaxIdle of the cluster-time idle.
constexpr double kWaveFitNarrowest = 0.75;
constexpr double kWaveFitMaxIdle = 0.05;
// Where the 128-row tile's grid is one partial wave, the narrowed width may go down to this
// share of the tile, and no narrower than kOneWaveNarrowestN columns.
constexpr double kOneWaveNarrowest = 0.375;
constexpr int kOneWaveNarrowestN = 64;

// The narrowest width, in steps of `step`, that covers `dim` in as few tiles of at most `block`
// as possible: 300 in tiles of up to 256 is two of 152 rather than 256 and a 44-wide remainder.
std::int32_t balanced_block(std::int64_t dim, std::int32_t block, std::int32_t step) {
  const std::int64_t tiles = (dim + block - 1) / block;
  const std::int64_t even = (dim + tiles - 1) / tiles;
  return std::int32_t(std::min<std::int64_t>(block, (even + step - 1) / step * step));
}

// wgmma's n steps: integer (s8) shapes take n = 8, 16, 24 and multiples of 16 from 32 up; n-major
// B' tiles whole 64-column chunks.
std::int32_t block_n_step(const Problem& p, bool swap) {
  if (b_prime_n_major(p, swap)) return kMnChunk;
  return p.a_type() == DType::s8 ? 16 : kMinBlockN;
}

bool fits(const Problem& p, const KernelConfig& c, const CudaInfo& device) {
  return wgmma_instance(p, c).shared_bytes() <= device.shared_memory_per_block_optin;
}

// `c` with its stages lowered (to kMinStages at most) until its shared memory fits.
KernelConfig fit_stages(const Problem& p, KernelConfig c, const CudaInfo& device) {
  while (c.stages > kMinStages && !fits(p, c, device)) --c.stages;
  return c;
}

KernelConfig scaled(const KernelConfig& entry, const Problem& p, const CudaInfo& device) {
  KernelConfig c = entry;
  const bool swap = c.swap_ab != 0;
  const std::int64_t m = swap ? p.n() : p.m(), n = swap ? p.m() : p.n();
  const int per_consumer_rows = kSliceRows * (c.pingpong ? 1 : std::max(1, consumers_of(c)));
  c.block_m = scale_block_to_dim(entry.block_m, m, per_consumer_rows);
  c.block_n = scale_block_to_dim(entry.block_n, n, b_prime_n_major(p, swap) ? kMnChunk : kMinBlockN);
  c.block_k = wgmma_block_k(p.a_type());
  if (c.group_m == 0) c.group_m = kWgmmaGroupM;
  // A cluster along a dim of one tile would pair each CTA with one that computes only padding.
  if ((m + c.block_m - 1) / c.block_m < 2) c.cluster_m = 1;
  if ((n + c.block_n - 1) / c.block_n < 2) c.cluster_n = 1;
  // Smaller tiles leave room for more stages; a stage count that no longer fits is lowered.
  return fit_stages(p, c, device);
}

// Clusters of CTAs the persistent grid holds: one CTA an SM.
std::int64_t grid_clusters(const KernelConfig& c, const CudaInfo& device) {
  return std::max<std::int64_t>(1, device.sm_count / (cluster(c.cluster_m) * cluster(c.cluster_n)));
}

// The CTA tiles covering p (swapped or not, as c maps it).
std::int64_t tiles_of(const Problem& p, const KernelConfig& c) {
  const WgmmaMapping map = wgmma_mapping(p, c);
  return ((map.m + c.block_m - 1) / c.block_m) * ((map.n + c.block_n - 1) / c.block_n);
}

// CTAs a config's grid needs for p: its tiles (a stream-K config's whole-tile grid) times its
// slices of k.
std::int64_t work_ctas(const Problem& p, const KernelConfig& c) { return tiles_of(p, c) * std::max(1, c.split_k); }

// The configs that fill enough of the device (kMinFillShare), in their order.
std::vector<KernelConfig> drop_underfilled(const Problem& p, std::vector<KernelConfig> configs, const CudaInfo& device) {
  std::int64_t most = 0;
  for (const KernelConfig& c : configs) most = std::max(most, work_ctas(p, c));
  const std::int64_t fill = std::min<std::int64_t>(most, device.sm_count);
  std::erase_if(configs, [&](const KernelConfig& c) { return work_ctas(p, c) * kMinFillShare < fill; });
  return configs;
}


// Whether sharing the last wave's k-blocks out can pay: the grid's last wave is partial, and
// leaves enough of the launch idle (kStreamKMinIdle) in few enough waves (kStreamKMaxWaves).
// A tile of fewer k-blocks than a cluster's least share (GT_SK_MIN_BLOCKS) gives nothing to
// cut.
struct Waves {
  std::int64_t count;  // waves of the persistent grid, the last one counted whole
  double idle;         // the share of the grid's cluster-time the partial last wave leaves idle
};

Waves waves_of(const Problem& p, const KernelConfig& c, const CudaInfo& device) {
  const WgmmaMapping map = wgmma_mapping(p, c);
  const std::int64_t tiles = wgmma_cluster_tiles(map.instance, map.m, map.n);
  const std::int64_t clusters = grid_clusters(c, device);
  const std::int64_t waves = (tiles + clusters - 1) / clusters;
  return {waves, double(waves * clusters - tiles) / double(waves * clusters)};
}

bool stream_k_pays(const Problem& p, const KernelConfig& c, const CudaInfo& device) {
  const Waves waves = waves_of(p, c, device);
  return k_blocks_of(p) >= GT_SK_MIN_BLOCKS && waves.count <= kStreamKMaxWaves && waves.idle >= kStreamKMinIdle;
}

// The split config `c` with its slices as one cluster, summed in distributed shared memory
// (reduce=cluster), its stages lowered until CTA 0's buffer for the other slices' partial sums
// fits beside them; nothing where the kernel takes no split cluster (clusters along m or n,
// ping-pong, three consumers) or the buffer leaves too few stages. Two slices only: on the
// H200 (bench/results/2026-11-28-h200-split-fixup.md) clusters of 2 ran 1.02-1.03x faster than
// the same split through the workspace at the decode shapes (m = 16-64, N = K = 4096 and
// N = 4096, K = 14336; 1.10-1.13x at 14336x4096), while clusters of 4 ran 1.12-1.17x slower
// than 4 slices through the workspace at N = 4096 and slower than 2 slices everywhere.
std::optional<KernelConfig> split_cluster(const Problem& p, KernelConfig c, const CudaInfo& device) {
  if (c.split_k != 2 || c.pingpong != 0 || cluster(c.cluster_m) * cluster(c.cluster_n) > 1 || consumers_of(c) > 2) {
    return std::nullopt;
  }
  c.split_reduce = 1;
  c = fit_stages(p, c, device);
  return fits(p, c, device) ? std::optional<KernelConfig>(c) : std::nullopt;
}

// An unswapped tile more than half of whose rows are padding (m < block_m / 2). The swapped
// tiles, whose n' = m steps by 8, serve such m. At 1x4096x4096 on the H100 the default space
// offered 16 of them, the best at 17.8 us against 16.2 for the swapped tiles and 13.2 for the
// pick (bench/results/2026-11-27-h100-cold-tuning.md): 16 of that cold tuning's 73 compiles.
bool mostly_padding(const Problem& p, const KernelConfig& c) { return c.swap_ab == 0 && 2 * p.m() < c.block_m; }

bool large_cooperative(const KernelConfig& c) {
  return !c.pingpong && c.swap_ab == 0 && cluster(c.cluster_m) * cluster(c.cluster_n) == 1 &&
         c.block_m * c.block_n >= 128 * 256;
}

// A large tile whose grid ends in a partial wave, narrowed to the widest width (in wgmma's n
// steps, down to kWaveFitNarrowest of it) whose grid ends in a nearly full one: 1024x14336 in
// 128x256 tiles is 448 tiles, 3.39 waves on 132 SMs; in 128x224 tiles 512, 3.88 waves. A
// narrower tile does 12 % less work a k-block for the same A, which costs less than a wave that
// leaves 15 % of the SMs idle. Stream-K is the other answer to the same partial wave.
// Where 128-row tiles make one partial wave and cover m with little padding, the width may go
// further (kOneWaveNarrowest): 256x6144 is 48 tiles of 128x256 and 96 of 128x128, 73 % of the
// SMs; 128x96 makes 128 (on the H100 1.03x faster than 128x128). At 300 rows, padded to 384,
// such tiles ran 1.3-1.5x slower than the swapped tiles that split m evenly, which serve there.
// The narrowed tile's stages grow into the shared memory it frees.
std::optional<KernelConfig> wave_fitted(const Problem& p, const KernelConfig& c, const CudaInfo& device) {
  if (!large_cooperative(c)) return std::nullopt;
  const Waves waves = waves_of(p, c, device);
  if (waves.count > kStreamKMaxWaves || waves.idle < kStreamKMinIdle) return std::nullopt;
  const std::int32_t step = block_n_step(p, false);
  const std::int64_t covered = (p.m() + 127) / 128 * 128;
  const bool one_wave = waves.count == 1 && c.block_m == 128 &&
                        double(covered - p.m()) < kBalancedSwapMinPadding * double(covered);
  const double narrowest = one_wave ? std::max<double>(kOneWaveNarrowestN, c.block_n * kOneWaveNarrowest)
                                    : c.block_n * kWaveFitNarrowest;
  for (std::int32_t width = c.block_n - step; width >= narrowest; width -= step) {
    KernelConfig narrowed = c;
    narrowed.block_n = width;
    if (waves_of(p, narrowed, device).idle > kWaveFitMaxIdle) continue;
    while (narrowed.stages < kMaxStages) {
      KernelConfig deeper = narrowed;
      ++deeper.stages;
      if (!fits(p, deeper, device)) break;
      narrowed = deeper;
    }
    return narrowed;
  }
  return std::nullopt;
}

}  // namespace

std::int64_t wgmma_cluster_tiles(const WgmmaInstance& w, std::int64_t m, std::int64_t n) {
  const std::int64_t tiles_m = (m + w.block_m - 1) / w.block_m, tiles_n = (n + w.block_n - 1) / w.block_n;
  return ((tiles_m + w.cluster_m - 1) / w.cluster_m) * ((tiles_n + w.cluster_n - 1) / w.cluster_n);
}

const std::vector<WgmmaListEntry>& wgmma_default_list() {
  // {block_m, block_n, stages, consumers, pingpong, cluster_m, cluster_n, swap_ab}. Measured on
  // the H100 (bench/results/2026-11-25-h100-wgmma.md): 128×256 cooperative tiles are the
  // fastest from m = 1024 up; ping-pong and 128-wide tiles make more tiles for mid m; swapped
  // tiles put a small m into wgmma's n. 128×176, last (cuBLASLt's own tile there), on the H200
  // (bench/results/2026-11-28-h200-epilogue.md, call 7): 1.04-1.06× faster than every other
  // width at 2048×14336×4096, where the grid of 128×256 is nearly whole waves and no width is
  // wave-fitted, and within 2 % of the best at 1000-3000 rows of N = 14336.
  static const std::vector<WgmmaListEntry> list = {
      {128, 256, 4, 2, false, 1, 1, false}, {128, 256, 4, 2, false, 2, 1, false}, {128, 256, 4, 2, false, 1, 2, false},
      {256, 128, 4, 2, false, 1, 1, false}, {256, 128, 4, 2, false, 2, 1, false}, {128, 192, 4, 2, false, 1, 1, false},
      {128, 128, 6, 2, true, 1, 1, false},  {64, 256, 4, 2, true, 1, 1, false},   {128, 128, 6, 2, false, 1, 1, false},
      {64, 128, 8, 2, true, 1, 1, false},   {128, 64, 8, 2, false, 1, 1, false},  {64, 64, 8, 1, false, 1, 1, false},
      {128, 64, 8, 2, false, 1, 1, true},   {128, 32, 8, 2, false, 1, 1, true},   {64, 64, 8, 2, true, 1, 1, true},
      {128, 128, 6, 2, true, 1, 1, true},   {256, 64, 5, 2, false, 1, 1, true},   {64, 32, 8, 1, false, 1, 1, true},
      {128, 176, 4, 2, false, 1, 1, false},
  };
  return list;
}

std::vector<WgmmaListEntry> wgmma_exhaustive_entries() {
  struct Team {
    int consumers;
    bool pingpong;
  };
  std::vector<WgmmaListEntry> entries;
  // 192 rows: three consumers of one 64-row slice each. On the H100 they ran within 1.05x of
  // the best two-consumer tile at 300x6144x4096 and 3000x6144x4096 and lost elsewhere
  // (bench/results/2026-11-27-h100-mid-m-swapped.md): the exhaustive space only.
  for (bool swap : {false, true})
    for (int bm : {64, 128, 192, 256})
      for (int bn : swap ? std::vector<int>{16, 32, 64, 128} : std::vector<int>{64, 128, 192, 256})
        for (Team team : bm == 192 ? std::vector<Team>{Team{3, false}}
                                   : std::vector<Team>{Team{1, false}, Team{2, false}, Team{2, true}})
          for (auto [cm, cn] : {std::pair{1, 1}, std::pair{2, 1}, std::pair{1, 2}})
            for (int stages : {3, 4, 6, 8}) entries.push_back({bm, bn, stages, team.consumers, team.pingpong, cm, cn, swap});
  return entries;
}

KernelConfig wgmma_list_config(const WgmmaListEntry& e) {
  KernelConfig c;
  c.block_m = e.block_m;
  c.block_n = e.block_n;
  c.stages = e.stages;
  c.warps = 4 * (e.consumers + 1);
  c.pingpong = e.pingpong ? 1 : 0;
  c.cluster_m = e.cluster_m;
  c.cluster_n = e.cluster_n;
  c.swap_ab = e.swap_ab ? 1 : 0;
  c.group_m = kWgmmaGroupM;
  return c;
}

namespace {

// Between kSwapBelowM and kBalancedSwapBelowM rows: swapped tiles with n' = m split evenly:
// 128 and 256 rows with two cooperative consumers, and 64 rows with one (more tiles along m',
// for a short n), alone and in a cluster of the two CTAs that share a tile of the weights (A'),
// which TMA then reads once for both. On the H100 (bench/results/2026-11-27-h100-mid-m-swapped.md),
// 300 rows, bf16: the cluster 1.13x faster than the 64-row tile alone at 300x4096x14336 and
// 1.06x at 300x4096x4096; 256 rows 1.08x faster than 128 at 300x14336x4096 (one wave of 112
// tiles instead of 1.7 of 224).
std::vector<KernelConfig> balanced_swapped_tiles(const Problem& p, const CudaInfo& device) {
  if (p.m() < kSwapBelowM || p.m() >= kBalancedSwapBelowM) return {};
  // Where 128-row tiles cover m with little padding (256, 384 rows: none) the unswapped tiles
  // serve, and two more compiles would only slow a cold tuning.
  const std::int64_t covered = (p.m() + 127) / 128 * 128;
  if (double(covered - p.m()) < kBalancedSwapMinPadding * double(covered)) return {};
  std::vector<KernelConfig> tiles;
  // The width first, so that scaling fits the stages to the tile as it will be.
  const int width = balanced_block(p.m(), kMaxBlock, block_n_step(p, true));
  for (const WgmmaListEntry& entry : {WgmmaListEntry{128, width, 4, 2, false, 1, 1, true},
                                      WgmmaListEntry{256, width, 4, 2, false, 1, 1, true},
                                      WgmmaListEntry{64, width, 8, 1, false, 1, 2, true},
                                      WgmmaListEntry{64, width, 8, 1, false, 1, 1, true}}) {
    tiles.push_back(scaled(wgmma_list_config(entry), p, device));
  }
  return tiles;
}

}  // namespace

namespace {

// The candidates of the list (or the exhaustive product), before capping.
std::vector<KernelConfig> scaled_candidates(const Problem& p, SearchSpace space, const CudaInfo& device) {
  if (!check_wgmma_problem(p).is_ok()) return {};
  std::vector<WgmmaListEntry> entries =
      space == SearchSpace::exhaustive ? wgmma_exhaustive_entries() : wgmma_default_list();
  std::vector<KernelConfig> configs;
  auto offer = [&](const KernelConfig& c) {
    if (check_wgmma_config_shape(c, p).is_ok() && check_wgmma_limits(c, p, device).is_ok()) configs.push_back(c);
  };
  // Below kSwapBelowM rows the swapped tiles are the ones that fit, so they come first and are
  // the last the cap would cut.
  const bool small_m = p.m() < kSwapBelowM;
  std::vector<KernelConfig> bases;
  for (bool swapped : {small_m, !small_m}) {
    for (const WgmmaListEntry& entry : entries) {
      if (entry.swap_ab != swapped || (entry.swap_ab && !small_m)) continue;
      const KernelConfig c = scaled(wgmma_list_config(entry), p, device);
      if (!swapped && space == SearchSpace::default_space && mostly_padding(p, c)) continue;
      bases.push_back(c);
    }
  }
  for (const KernelConfig& c : bases) offer(c);
  for (const KernelConfig& c : bases) {
    if (const std::optional<KernelConfig> fitted = wave_fitted(p, c, device)) offer(*fitted);
  }
  if (space == SearchSpace::default_space) {
    for (const KernelConfig& c : balanced_swapped_tiles(p, device)) offer(c);
  }
  // A partial last wave: its tiles' k-blocks shared out evenly among all the clusters. Only the
  // large cooperative tiles without clusters: on the H100 (bench/results/2026-11-25-h100-
  // wgmma.md, v5) they gained 1.05-1.12x at 300x14336x4096, 1000x14336x4096 and
  // 256x4096x4096, while the ping-pong and clustered variants lost or tied there; each
  // variant offered costs a compile in a cold tuning.
  for (KernelConfig c : bases) {
    if (!large_cooperative(c) || !stream_k_pays(p, c, device)) continue;
    c.stream_k = 1;
    offer(c);
  }
  // Too few tiles to fill the SMs: slices of k make more work units, each finished through the
  // workspace by the tile's last slice. Where a tile also has its stream-K variant, which shares
  // k out evenly whatever the tile count, only 2 slices are kept (the best split in every row of
  // the v4 measurements), so that the stream-K variants fit under the default cap beside them.
  const std::int64_t k_blocks = k_blocks_of(p);
  for (KernelConfig c : bases) {
    const std::int64_t tiles = tiles_of(p, c);
    if (double(tiles) >= kSplitBelowSmFraction * device.sm_count) continue;
    const int most_split = stream_k_pays(p, c, device) ? 2 : kMaxSplitK;
    for (int split : {2, 4, 8}) {
      if (split > most_split || k_blocks < std::int64_t(split) * kMinSplitBlocks ||
          tiles * (split / 2) >= device.sm_count) {
        continue;
      }
      // A split that still leaves half the SMs idle has lost its point, and in the default
      // space it is a slow compile of a large tile: 128x256 at 256x4096x4096 (64 CTAs) ran
      // 1.5x slower than the pick, and no tuning of the 73 on record picked such a split
      // (bench/results/2026-11-27-h100-cold-tuning.md).
      if (space == SearchSpace::default_space && tiles * split * 2 < device.sm_count) continue;
      c.split_k = split;
      // The default space takes the cluster in place of the workspace where its buffer leaves
      // the stages as they were: on the H200 the 64-row tiles of the decode shapes then ran
      // 1.02-1.04x faster, while tiles that lost stages to it (128 x 128 from 6 to 4, 128 x 64
      // swapped from 8 to 6) mostly tied or ran up to 1.10x slower (bench/results/
      // 2026-11-28-h200-split-fixup.md; one ran 1.09x faster, at a shape where neither was the
      // pick). The exhaustive space holds both.
      const std::optional<KernelConfig> clustered = split_cluster(p, c, device);
      const bool cluster_serves = clustered && clustered->stages == c.stages;
      if (!(cluster_serves && space == SearchSpace::default_space)) offer(c);
      if (clustered && (cluster_serves || space == SearchSpace::exhaustive)) offer(*clustered);
    }
  }
  return configs;
}

}  // namespace

std::vector<KernelConfig> wgmma_configs(const Problem& p, SearchSpace space, const CudaInfo& device) {
  std::vector<KernelConfig> configs = scaled_candidates(p, space, device);
  if (space == SearchSpace::exhaustive) return dedup_and_cap(configs, kWgmmaExhaustiveCap);
  return dedup_and_cap(drop_underfilled(p, std::move(configs), device), kWgmmaDefaultCap);
}

std::vector<KernelConfig> wgmma_list_configs(const Problem& p, const CudaInfo& device) {
  return dedup_and_cap(scaled_candidates(p, SearchSpace::default_space, device), kWgmmaDefaultCap);
}

}  // namespace gemmtune::cuda
