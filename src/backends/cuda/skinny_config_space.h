// The config space of gemmtune's skinny template (backend "skinny", kernels/gemm_skinny.cuh):
// m ≤ 64, the weights streamed once at memory speed. The family's second kernel, gemv
// (kernel=gemv, m ≤ 8), has its own fields and space in skinny_gemv.h. The tensor-core kernel's
// (kernel 0) fields:
//   block_m  8·(mma tiles of m), the problem's m rounded up to 8 (the kernel's GT_MT)
//   block_n  rows of n one CTA streams: warps × 16 × tiles per warp
//   block_k  k elements of one register batch per warp
//   stages   1 or 2 register batches in flight
//   warps    warps per CTA
//   k_warps  groups of the CTA's warps that split its k (block_n counts one group's rows); each
//            reads A straight from global memory, and the groups add up in shared memory
//   a_source with k_warps > 1: 0 A's fragments load into registers with each batch of B; 2
//            ("group") each group of warps stages its A batches in a shared-memory ring that
//            its warps along n share
//   split_k  slices of k, summed inside the launch by the block's last slice
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "gemmtune/config.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"
#include "gemmtune/tuning_options.h"
#include "gemmtune/status.h"

namespace gemmtune::cuda {

inline constexpr std::int64_t kSkinnyMaxRows = 64;  // the largest m the family takes

// One instantiation of the template: its macros and what it asks of the device.
struct SkinnyInstance {
  int in_code = 0, out_code = 0;
  bool a_kcontig = true, b_kcontig = true;
  int mt = 1, warps = 4, k_warps = 1, tiles = 1, block_k = 0, stages = 1, pass = 0, split_k = 1;
  bool vec = true;
  bool a_group = false;  // A staged per group of warps in shared memory (k_warps > 1)

  int elements_per_word() const { return in_code == 3 ? 4 : 2; }
  int n_warps() const { return warps / k_warps; }
  int block_n() const { return n_warps() * 16 * tiles; }
  int threads() const { return warps * 32; }
  // A's pass (k_warps 1), or the k groups' partial sums (k_warps > 1), or the groups' A rings
  // where they need more (a_group).
  std::int64_t shared_bytes() const;
  // Partial sums and one counter per block of n, for split_k > 1.
  std::int64_t workspace_bytes(std::int64_t n) const;
  std::int64_t counters_offset(std::int64_t n) const;
  // Registers a thread needs (batches in flight, accumulators, A's fragments, addresses), an
  // upper estimate: ptxas -v gives 56 for the 1-tile m = 1 row of the list, 224 for the largest
  // nn one; above 255 the kernel would spill, and skinny_compile_test checks no listed one does.
  int registers_estimate() const;
  // NVRTC options; `arch` "sm_90a" and later also turn on programmatic dependent launch (GT_PDL).
  std::vector<std::string> options(const std::string& arch) const;
};

SkinnyInstance skinny_instance(const Problem& problem, const KernelConfig& config);
// Whether kernels for `arch` wait for the previous grid themselves (griddepcontrol, sm_90 and up).
bool skinny_uses_pdl(const std::string& arch);

// One row of a list, before scaling (block_m and split_k come from the problem).
struct SkinnyListEntry {
  int warps, tiles, block_k_words, stages;
  int k_warps = 1;
  bool a_group = false;
};
const std::vector<SkinnyListEntry>& skinny_default_list();
std::vector<SkinnyListEntry> skinny_exhaustive_entries();

inline constexpr std::size_t kSkinnyDefaultCap = 42;
inline constexpr std::size_t kSkinnyExhaustiveCap = 1024;

// Ok when the template computes this problem (m ≤ 64, dtypes), else why not.
Status check_skinny_problem(const Problem& problem);
// Ok when the config is well formed for this problem and fits the registers, else why not.
Status check_skinny_config_shape(const KernelConfig& config, const Problem& problem);
// Checks both of the family's kernels make: stages 1 or 2; split_k in [1, 64] and at most the
// `units` of k (batches, steps) named `unit_name`; a register estimate that does not spill; a
// device of compute capability 8.0 or later.
Status check_skinny_stages(int stages);
Status check_skinny_split_k(int split_k, std::int64_t units, const char* unit_name);
Status check_skinny_registers(int estimate);
Status check_skinny_device(const CudaInfo& device);
// Ok, or the hardware reason the config cannot run on this device.
Status check_skinny_limits(const KernelConfig& config, const Problem& problem, const CudaInfo& device);

// The tensor-core kernel's candidates: each list row with split factors that give the grid about
// half, one and two waves of CTAs on the device's SMs, pruned, deduplicated and capped.
std::vector<KernelConfig> skinny_mma_configs(const Problem& problem, SearchSpace space, const CudaInfo& device);

// The family's candidates: the tensor-core kernel's, then gemv's where it applies (m ≤ 8, nt;
// skinny_gemv.h), each list capped on its own.
std::vector<KernelConfig> skinny_configs(const Problem& problem, SearchSpace space, const CudaInfo& device);

}  // namespace gemmtune::cuda
