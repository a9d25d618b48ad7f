// The config space of gemmtune's NVRTC tensor-core template (backend "mma"): named lists,
// scaling to the problem, pruning by the device's limits (the analogue of Inductor's
// template_heuristics for its Triton mm template).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "gemmtune/config.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"
#include "gemmtune/tuning_options.h"
#include "gemmtune/status.h"

namespace gemmtune::cuda {

// One row of a named list, before scaling.
struct MmaListEntry {
  int block_m, block_n, block_k, stages, warps;
};

// Named lists: "default" (f16, bf16), "int8" (s8), "tf32" (f32 with allow_tf32).
const std::vector<MmaListEntry>& mma_default_list();
const std::vector<MmaListEntry>& mma_int8_list();
const std::vector<MmaListEntry>& mma_tf32_list();
// A list row as an unscaled config (group_m left unset, as scaling sets it).
KernelConfig mma_list_config(const MmaListEntry& entry, int split_k);
// The exhaustive product, before scaling (1440 rows: bm × bn × bk × stages × warps × split_k).
std::vector<KernelConfig> mma_exhaustive_entries();

inline constexpr std::size_t kMmaDefaultCap = 16;
inline constexpr std::size_t kMmaExhaustiveCap = 256;
inline constexpr std::int32_t kMmaGroupM = 8;

// Fault-injection variants for the worker-isolation tests, never in a list: the kernel writes
// through a wild pointer (an illegal address) or spins forever. can_implement accepts them only
// with GEMMTUNE_ALLOW_FAULT_CONFIGS=1.
inline constexpr std::int32_t kFaultIllegalAddress = kKernelFaultAddress;  // kernel=fault_address
inline constexpr std::int32_t kFaultSpin = kKernelFaultSpin;               // kernel=fault_spin
bool is_fault_kernel(std::int32_t kernel);
bool fault_configs_allowed();
// A fault config with its tile fields filled in (64×64×32, 4 warps) when the caller set only
// `kernel`; any other config unchanged.
KernelConfig with_fault_defaults(const KernelConfig& config);

// Elements of the input dtype in one 32-bit fragment word: 2 (f16, bf16), 1 (tf32), 4 (s8).
int elements_per_word(DType input);
// k extent of one mma.sync: 16 (f16, bf16), 8 (tf32), 32 (s8); block_k is a multiple of it.
int mma_k(DType input);

// How `warps` tile a block_m × block_n block: warps_m × warps_n warps, each owning whole 16×8
// mma tiles; the layout whose warp tile is closest to square. None when no layout fits.
struct WarpLayout {
  int warps_m = 0, warps_n = 0;
};
std::optional<WarpLayout> warp_layout(int block_m, int block_n, int warps);

// Shared memory a config's kernel asks for: one or two buffers of padded A and B tiles.
std::int64_t mma_shared_memory_bytes(const KernelConfig& config, const Problem& problem);
// Workspace of the split-k partial sums.
std::int64_t mma_workspace_bytes(const KernelConfig& config, const Problem& problem);

// Ok when the template computes this problem's dtypes, else why not.
Status check_mma_problem(const Problem& problem);
// Ok when the config is well formed for this problem (tile multiples, a warp layout), else why not.
Status check_mma_config_shape(const KernelConfig& config, const Problem& problem);
// Ok, or the hardware reason the config cannot run (or would spill) on this device.
Status check_mma_limits(const KernelConfig& config, const Problem& problem, const CudaInfo& device);

// The candidates for a problem: its dtype's list (or the exhaustive product) scaled to the
// problem, split-k variants for skinny shapes, pruned, deduplicated and capped.
std::vector<KernelConfig> mma_configs(const Problem& problem, SearchSpace space, const CudaInfo& device);

}  // namespace gemmtune::cuda
