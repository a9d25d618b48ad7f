// The config space of gemmtune's own CPU kernels: named lists, scaling to the problem and
// pruning by the CPU's registers and caches.
#pragma once

#include <vector>

#include "cpu_kernel_families.h"
#include "cpu_kernel_levels.h"
#include "cpu_kernels.h"
#include "gemmtune/config.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"
#include "gemmtune/tuning_options.h"
#include "gemmtune/status.h"

namespace gemmtune::cpu {

// One row of a packed list, before scaling: the register tile (rows, vectors of columns) and
// the blocking.
struct CpuListEntry {
  int micro_m, micro_nv;
  int block_m, block_n, block_k;
};

// Named lists of the packed kernel. "default" (one per vector width: AVX-512's 32 registers
// hold larger tiles than AVX2's 16) and "int8" are short and hand-picked; "exhaustive" is
// generated.
const std::vector<CpuListEntry>& cpu_default_list(int isa);
const std::vector<CpuListEntry>& cpu_int8_list(int isa);

// Caps on the number of configs a search space yields for one problem.
inline constexpr std::size_t kDefaultCap = 32;
inline constexpr std::size_t kExhaustiveCap = 512;

// The ISA level a dtype's kernels use on this CPU: levels 3 and 4 change only s8 (VNNI) and
// bf16 (AVX512_BF16), so f32 and f16 stop at AVX-512 and s8 at VNNI.
int isa_for_dtype(DType in, const CpuInfo& cpu);

// A problem's operand strides as the kernels see them (CpuGemmParams: a_rs, a_ks, b_ks, b_cs,
// ldc); which of them are 1 decides which direct kernels apply.
CpuGemmParams cpu_strides(const Problem& p);

// Ok, or the hardware reason a config would run badly on this CPU (spilled registers,
// panels that do not fit their cache, more threads than cores, a missing ISA).
Status check_cpu_limits(const KernelConfig& config, const Problem& problem, const CpuInfo& cpu);

// The candidates for a problem: the direct kernels where they pay (small and skinny
// problems; each family's offer, in the order of kCpuKernelFamilies) and the packed list for
// its dtype (or the exhaustive product), each scaled to the problem, pruned by
// check_cpu_limits and the family's rule, deduplicated and capped. The exhaustive space goes
// down the ISA levels below the best one to `lowest_isa`: by default the lowest this build
// compiled (a native build on a machine with AVX2 leaves the generic level out).
std::vector<KernelConfig> cpu_configs(const Problem& problem, SearchSpace space, const CpuInfo& cpu,
                                      int lowest_isa = compiled_bottom_isa());

// What a family's offer rule (cpu_kernel_families.h) sees: the problem as the kernels see it,
// and add(), which keeps a config that check_cpu_limits and the family's own rule pass.
struct Offer {
  const Problem& p;
  CpuGemmParams strides;
  const CpuInfo& cpu;
  int isa, lanes, threads;
  bool exhaustive;
  // Vectors of columns a row of the tile needs (a wider tile only multiplies zeros).
  std::int64_t vectors;
  std::vector<KernelConfig>* out;

  // A config of `family`'s kernel with this tile (`tile_isa`: another ISA level than the offer's).
  void add(const CpuKernelFamily& family, int micro_m, int micro_n, int tile_isa = -1, int block_k = 0) const;
  // The rows tiles of `family` that are `nv` vectors wide and no taller than the problem
  // (every tile in the exhaustive space); its f32 tiles too for f32.
  void add_rows_tiles(const CpuKernelFamily& family, std::int64_t nv) const;
};

}  // namespace gemmtune::cpu
