// The text NVRTC compiles for one instantiation of the Hopper template (kernels/gemm_wgmma.cuh):
// a prelude with the one wgmma instruction the instance issues, then the template, and the -D
// macros that set the rest. Plain values only, so the backend, its tests and the probes in
// bench/probes/wgmma build it without the rest of gemmtune.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace gemmtune::cuda {

// The kernel's own problem and config (after any swap of A and B), as the template's macros.
struct WgmmaInstance {
  int in_code = 1;   // GT_IN: 0 f16, 1 bf16, 2 f32 computed as TF32, 3 s8
  int out_code = 0;  // GT_OUT: 0 f32, 1 f16, 2 bf16, 3 s32
  bool a_mn = false, b_mn = false;  // A' m-contiguous, B' n-contiguous (16-bit inputs only)
  bool c_transposed = false;        // C'(i, j) at c[j·ldc + i]
  int block_m = 128, block_n = 128;
  int stages = 4;
  int consumers = 2;      // consumer warpgroups
  bool pingpong = false;  // consumers take whole tiles in turn instead of splitting each
  int cluster_m = 1, cluster_n = 1;
  int group_m = 8;
  int wgmma_depth = 1;  // k-blocks of wgmmas left in flight (0 or 1)
  int split_k = 1;      // slices of k per tile, finished by the last slice through a workspace
  // The slices of a tile are the CTAs of one cluster, whose partial sums meet in the first
  // one's shared memory (GT_SPLIT_CLUSTER) instead of the workspace.
  bool split_cluster = false;
  // Hybrid data-parallel + stream-K (kernels/wgmma_stream_k.cuh): the tiles past the last full
  // wave are shared out by k-block among all the clusters. Exclusive with split_k > 1.
  bool stream_k = false;
  // The epilogue may stage C in shared memory and store it with TMA (row-major C', block_n at
  // least one 128-byte chunk); the kernel still falls back to direct stores when beta != 0.
  bool c_tma = false;

  int threads() const { return 128 * (consumers + 1); }
  // Whether tiles are finished through partial sums in a workspace and per-tile counters.
  bool shares_tiles() const { return (split_k > 1 && !split_cluster) || stream_k; }
  // Bytes of partial sums (f32 or s32) for a kernel m' × n' on a grid of `grid_ctas` CTAs:
  // split-k, one tile a slice and tile; stream-K, two tiles a CTA (its range's first and last
  // piece, the only ones that can be partial).
  std::int64_t workspace_bytes(std::int64_t m, std::int64_t n, std::int64_t grid_ctas) const {
    const std::int64_t tile_bytes = std::int64_t(block_m) * block_n * 4;
    if (stream_k) return 2 * grid_ctas * tile_bytes;
    if (split_k <= 1 || split_cluster) return 0;
    return std::int64_t(split_k) * tiles(m, n) * tile_bytes;
  }
  // One counter a tile and consumer (ping-pong: a tile is one consumer's).
  std::int64_t counter_count(std::int64_t m, std::int64_t n) const {
    return shares_tiles() ? tiles(m, n) * (pingpong ? 1 : consumers) : 0;
  }
  // Units of work a persistent grid shares out, given its cluster tiles: each slice of a tile
  // through the workspace is one; a split cluster takes all of a tile's slices at once.
  std::int64_t work_units(std::int64_t cluster_tiles) const { return cluster_tiles * (split_cluster ? 1 : split_k); }
  std::int64_t tiles(std::int64_t m, std::int64_t n) const {
    return ((m + block_m - 1) / block_m) * ((n + block_n - 1) / block_n);
  }
  // CTAs a cluster: those that share loads (cluster_m × cluster_n), or a split cluster's slices.
  int cluster_size() const { return split_cluster ? split_k : cluster_m * cluster_n; }
  int output_bytes() const { return out_code == 1 || out_code == 2 ? 2 : 4; }
  // Whether the TMA-store epilogue can serve this instance: it stores 128-byte chunks of
  // columns, and a wider tile's last columns through a second map of their width.
  bool c_tma_possible() const { return !c_transposed && block_n >= 128 / output_bytes(); }
  // Dynamic shared memory: the stage ring, two 8 KB C staging buffers per consumer with the
  // TMA-store epilogue, the barriers (two a stage, two for the ping-pong turns), the flags of
  // split-k and stream-K (a word a consumer), and 1 KB to align the ring to the swizzle's
  // 1024-byte period; a split cluster's first CTA also receives the other slices' partial sums
  // (f32 or s32), with two barriers a consumer.
  int shared_bytes() const {
    return stages * (block_m + block_n) * 128 + (c_tma ? consumers * 2 * 64 * 128 : 0) + stages * 16 + 16 + 8 + 1024 +
           (split_cluster ? (split_k - 1) * block_m * block_n * 4 + 16 * consumers : 0);
  }
};

// Element bytes of an input code.
int wgmma_input_bytes(int in_code);

// The prelude (gt_wgmma_tile for this instance) followed by `template_text`.
std::string wgmma_kernel_source(const WgmmaInstance& instance, std::string_view template_text);

// NVRTC options: arch, language, the template's macros.
std::vector<std::string> wgmma_kernel_options(const WgmmaInstance& instance, const std::string& arch);

}  // namespace gemmtune::cuda
