// The config space of gemmtune's Hopper template (backend "wgmma", kernels/gemm_wgmma.cuh):
// named lists, scaling to the problem, pruning by what the template and the device can do, and
// the map from a problem and config to the kernel's own operands (A and B swapped or not).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "gemmtune/config.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"
#include "gemmtune/tuning_options.h"
#include "gemmtune/status.h"
#include "wgmma_kernel_source.h"
#include "wgmma_tensor_map.h"

namespace gemmtune::cuda {

// One row of a named list, before scaling. Rows and columns are the kernel's own (after a swap,
// block_m runs along the problem's n).
struct WgmmaListEntry {
  int block_m, block_n, stages, consumers;
  bool pingpong;
  int cluster_m, cluster_n;
  bool swap_ab;
};

// "default": the tiles the H100 runs fastest across the LLM shapes (bench/results/), for every
// input dtype (a stage holds 128 bytes of k whatever the dtype, so the same tiles fit).
const std::vector<WgmmaListEntry>& wgmma_default_list();
// The exhaustive product, before scaling and pruning.
std::vector<WgmmaListEntry> wgmma_exhaustive_entries();
KernelConfig wgmma_list_config(const WgmmaListEntry& entry);

inline constexpr std::size_t kWgmmaDefaultCap = 32;
inline constexpr std::size_t kWgmmaExhaustiveCap = 512;
inline constexpr std::int32_t kWgmmaGroupM = 8;

// The kernel's view of a problem under a config: its instance (the template's macros) and its
// two operands as TMA sees them, with the pointers of one call.
struct WgmmaMapping {
  WgmmaInstance instance;
  WgmmaOperand a, b;        // A' (m' × k) and B' (n' × k)
  std::int64_t m = 0, n = 0;  // the kernel's m' and n'
};
WgmmaMapping wgmma_mapping(const Problem& problem, const KernelConfig& config, const void* a = nullptr,
                           const void* b = nullptr);
// The instance alone (wgmma_mapping's), with its shared memory fitted: the TMA-store
// epilogue's staging where the tile allows it, and the stages the config asks for.
WgmmaInstance wgmma_instance(const Problem& problem, const KernelConfig& config);

// k elements of one stage: one 128-byte swizzle row (64 for f16/bf16, 32 for TF32, 128 for s8).
int wgmma_block_k(DType input);

// Cluster tiles of a kernel m' × n' under an instance: the persistent grid's units of work.
std::int64_t wgmma_cluster_tiles(const WgmmaInstance& instance, std::int64_t m, std::int64_t n);

// Ok when the template computes this problem (dtypes, layouts, strides TMA can address), else why not.
Status check_wgmma_problem(const Problem& problem);
// Ok when the config is well formed for this problem, else why not.
Status check_wgmma_config_shape(const KernelConfig& config, const Problem& problem);
// Ok, or the hardware reason the config cannot run on this device (arch, shared memory, registers).
Status check_wgmma_limits(const KernelConfig& config, const Problem& problem, const CudaInfo& device);

// The candidates for a problem: the list (or the exhaustive product) scaled to the problem,
// swapped variants where m is small, stream-K variants where the grid's last wave is partial,
// split-k variants where the tiles are few, pruned, deduplicated and capped. The default space
// also drops the configs that would keep few of the SMs busy where others keep them all busy.
std::vector<KernelConfig> wgmma_configs(const Problem& problem, SearchSpace space, const CudaInfo& device);
// The default space's configs before that last cut: every kind of tile the list holds, for the
// tests that cover the kernel on small problems rather than the pick.
std::vector<KernelConfig> wgmma_list_configs(const Problem& problem, const CudaInfo& device);

}  // namespace gemmtune::cuda
