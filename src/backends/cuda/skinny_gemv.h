// The skinny family's GEMV-style kernel (config field kernel=gemv, kernels/gemm_gemv.cuh): for
// m ≤ 8 and k contiguous in A and B ("nt"), each warp streams a few whole rows of B with 16-byte
// loads and multiplies in f32 (dp4a for s8) on the CUDA cores. A config's fields:
//   block_m   rows of A compiled (GV_M): the problem's m rounded up to a power of two
//   block_n   rows of B one CTA streams at a time: warps × R (R rows per warp)
//   block_k   k one warp's batch covers: U steps of 256 elements (512 for s8)
//   stages    1 or 2 batches in flight
//   warps     warps per CTA
//   split_k   slices of k, finished inside the launch by the last warp of each row group
//   a_source  A's slice in shared memory (smem) or read through L1 (l1)
//   grid      CTAs along n: one balanced wave, or as many as the SMs hold (fill)
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "gemmtune/config.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"
#include "gemmtune/tuning_options.h"
#include "gemmtune/status.h"

namespace gemmtune::cuda {

inline constexpr std::int64_t kGemvMaxRows = 8;  // above it the kernel is issue-bound (probe: m 16 at 0.56-0.77× cuBLASLt)

// One instantiation of kernels/gemm_gemv.cuh and what its launch needs.
struct GemvInstance {
  int in_code = 0, out_code = 0;
  int rows_a = 1;   // GV_M
  int rows_b = 4;   // GV_R: rows of B per warp
  int steps = 2;    // GV_U: steps per batch
  int stages = 1;   // GV_STAGES
  bool a_shared = true;
  int warps = 4;
  int split_k = 1;
  bool fill = false;  // grid=fill

  int step_elements() const { return in_code == 3 ? 512 : 256; }  // 32 lanes × 16 bytes
  int threads() const { return warps * 32; }
  std::int64_t k_steps(std::int64_t k) const { return (k + step_elements() - 1) / step_elements(); }
  std::int64_t groups(std::int64_t n) const { return (n + rows_b - 1) / rows_b; }
  // A's largest slice of k in shared memory (0 with A through L1).
  std::int64_t shared_bytes(std::int64_t k) const;
  // Partial sums (pow2(R·M) accumulators a group and slice) and one counter a group, for split_k > 1.
  std::int64_t counters_offset(std::int64_t n) const;
  std::int64_t workspace_bytes(std::int64_t n) const;
  // Registers a thread needs, an upper estimate (see the .cc for the ptxas numbers it covers).
  int registers_estimate() const;
  // CTAs along n for `ctas_per_sm` resident CTAs on `sms` SMs (balanced or fill, as the probe).
  std::int64_t grid_x(std::int64_t n, int sms, int ctas_per_sm) const;
  // NVRTC options (GV_ENTRY and the GV_* macros).
  std::vector<std::string> options(const std::string& arch) const;
};

GemvInstance gemv_instance(const Problem& problem, const KernelConfig& config);

// One row of a list, before the problem scales it (block_m, split_k and grid come from the problem).
struct GemvListEntry {
  int rows_b, steps, stages;
  bool a_shared;
  int warps;
};
const std::vector<GemvListEntry>& gemv_default_list();
std::vector<GemvListEntry> gemv_exhaustive_entries();

inline constexpr std::size_t kGemvDefaultCap = 8;
inline constexpr std::size_t kGemvExhaustiveCap = 256;

// Ok when the kernel computes this problem (m ≤ 8, nt, f16/bf16/s8, 16-byte aligned rows), else why not.
Status check_gemv_problem(const Problem& problem);
// Ok when the config is a well-formed gemv config for this problem that fits the registers.
Status check_gemv_config_shape(const KernelConfig& config, const Problem& problem);
// Ok, or the hardware reason the config cannot run on this device (shared memory).
Status check_gemv_limits(const KernelConfig& config, const Problem& problem, const CudaInfo& device);

// The gemv candidates: each list row with the split and grid the probe's rule gives (the
// exhaustive space: every split and both grids), pruned, deduplicated and capped.
std::vector<KernelConfig> gemv_configs(const Problem& problem, SearchSpace space, const CudaInfo& device);

}  // namespace gemmtune::cuda
