// What gemmtune's Hopper template (kernels/gemm_wgmma.cuh) can compute: the limits and small
// helpers that its config space (what to offer, wgmma_config_space.cc) and its checks (what can
// run, wgmma_config_checks.cc) share. Internal to the wgmma backend.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>

#include "config_text.h"
#include "gemmtune/config.h"
#include "gemmtune/problem.h"
#include "wgmma_config_space.h"

namespace gemmtune::cuda::wgmma_template {

// wgmma's m is a 64-row slice of one warpgroup; its n runs from 8 to 256 in steps of 8.
constexpr int kSliceRows = 64;
constexpr int kMinBlockN = 8;
constexpr int kMaxBlock = 256;  // also TMA's largest box edge
// An n-major B' tile is loaded in chunks of 64 columns (one 128-byte swizzle row of 16-bit
// elements), so its width is whole chunks.
constexpr int kMnChunk = 64;
// Accumulators a consumer thread holds: with setmaxnreg giving consumers 232 registers, 152
// leave room for addresses and the epilogue. 152 is the swapped 256×152 tile at 300 rows, two
// slices of 76 a consumer (cuBLASLt's tile there), compiled without spills in every dtype
// (wgmma_compile_test); more spilled in the probes.
constexpr int kMaxAccumulatorsPerThread = 152;
// Three consumers get 152 registers a thread (the producer keeps 40 of the 64K): 64
// accumulators, 192×128, leave them the same room.
constexpr int kMaxAccumulatorsThreeConsumers = 64;
// More stages than this bought nothing measurable on the H100 (bench/results/).
constexpr int kMaxStages = 8;
constexpr int kMinStages = 2;
// Slices of k a tile may be split into.
constexpr int kMaxSplitK = 8;

inline int consumers_of(const KernelConfig& c) { return c.warps / 4 - 1; }

// Rows of the tile one consumer warpgroup owns.
inline int rows_per_consumer(const KernelConfig& c) {
  return c.pingpong ? c.block_m : c.block_m / std::max(1, consumers_of(c));
}

inline int cluster(std::int32_t extent) { return std::max<std::int32_t>(extent, 1); }

inline bool b_prime_n_major(const Problem& p, bool swap) {
  // B' = B (n × k) or, swapped, Aᵀ: n-major when the user's operand is contiguous along n (m).
  return swap ? p.a_layout() == Layout::col_major : p.b_layout() == Layout::row_major;
}

inline std::int64_t k_blocks_of(const Problem& p) {
  return (p.k() + wgmma_block_k(p.a_type()) - 1) / wgmma_block_k(p.a_type());
}

}  // namespace gemmtune::cuda::wgmma_template
