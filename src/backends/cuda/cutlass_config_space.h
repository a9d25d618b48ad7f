// The config space of the cutlass family (backend "cutlass", kernels/gemm_cutlass.cuh): CUTLASS
// 3's SM90 TMA warp-specialized GEMMs, one shared object per instance. A config names the CTA
// tile (block_m, block_n; block_k is one 128-byte swizzle row of k), the cluster (cluster_m,
// cluster_n), the mainloop (pingpong 1: ping-pong; 0: cooperative) and the tile scheduler
// (stream_k 1: CUTLASS's stream-K scheduler; 0: persistent). CUTLASS picks the stages that fit.
// group_m is the scheduler's swizzle (1, 2, 4, 8: that many tile rows or columns run together and
// share operand tiles in L2); it is an argument of the call, so its values share one object.
//
// An instance does not depend on the problem's size, only on its dtypes and layouts: the few
// objects of the default list serve every shape once built, which is what makes nvcc's tens of
// seconds a kernel affordable.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "gemmtune/config.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"
#include "gemmtune/status.h"
#include "gemmtune/tuning_options.h"

namespace gemmtune::cuda {

struct CutlassListEntry {
  int block_m, block_n;
  bool pingpong;
  int cluster_m, cluster_n;
  bool stream_k;
  int swizzle = 1;
};

// "default": a few tiles that cover large and mid shapes (bench/results/), the same rows for
// every dtype (a stage is 128 bytes of k whatever the dtype).
const std::vector<CutlassListEntry>& cutlass_default_list();
// The exhaustive product, before pruning.
std::vector<CutlassListEntry> cutlass_exhaustive_entries();
KernelConfig cutlass_list_config(const CutlassListEntry& entry, DType input);

inline constexpr std::size_t kCutlassDefaultCap = 24;
inline constexpr std::size_t kCutlassExhaustiveCap = 512;

// The tile scheduler's swizzle of a config (group_m; 0 means 1).
int cutlass_swizzle(const KernelConfig& config);

// k elements of one stage: 64 for f16 and bf16, 128 for s8.
int cutlass_block_k(DType input);

// Ok when the family computes this problem (dtypes, layouts, the 16-byte alignment TMA needs),
// else why not.
Status check_cutlass_problem(const Problem& problem);
// Ok when the config is a well-formed instance for this problem, else why not.
Status check_cutlass_config(const KernelConfig& config, const Problem& problem);
// Ok, or why this device cannot run the family (it needs sm_90a).
Status check_cutlass_device(const CudaInfo& device);

// The candidates for a problem: the list (or the exhaustive product), pruned, without those
// that would keep few SMs busy where others keep them all busy (default space), capped.
std::vector<KernelConfig> cutlass_configs(const Problem& problem, SearchSpace space, const CudaInfo& device);

// The instance's -D macros for nvcc (GT_CUTLASS_*), from a problem and a checked config.
std::vector<std::string> cutlass_instance_defines(const Problem& problem, const KernelConfig& config);

}  // namespace gemmtune::cuda
