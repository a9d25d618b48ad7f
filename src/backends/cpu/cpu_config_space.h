// The config space of gemmtune's own CPU kernels: named lists, scaling to the problem and
// pruning by the CPU's registers and caches.
#pragma once

#include <vector>

#include "gemmtune/config.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"
#include "gemmtune/session.h"
#include "gemmtune/status.h"

namespace gemmtune::cpu {

// One row of a named list, before scaling: the register tile and the blocking.
struct CpuListEntry {
  int micro_m, micro_nv;
  int block_m, block_n, block_k;
};

// One row of the direct-kernel list: algorithm, rows, and vectors ("rows") or columns ("dot").
struct CpuDirectEntry {
  int algo, micro_m, columns;
};

// Named lists. "default", "int8" and "direct" are short, hand-picked; "exhaustive" is generated.
const std::vector<CpuDirectEntry>& cpu_direct_list();
const std::vector<CpuListEntry>& cpu_default_list();
const std::vector<CpuListEntry>& cpu_int8_list();

// Caps on the number of configs a search space yields for one problem.
inline constexpr std::size_t kDefaultCap = 32;
inline constexpr std::size_t kExhaustiveCap = 512;

// Ok, or the hardware reason a config would run badly on this CPU (spilled registers,
// panels that do not fit their cache, more threads than cores, a missing ISA).
Status check_cpu_limits(const KernelConfig& config, const Problem& problem, const CpuInfo& cpu);

// The candidates for a problem: the list for its dtype (or the exhaustive product), each
// scaled to the problem, pruned by check_cpu_limits, deduplicated and capped.
std::vector<KernelConfig> cpu_configs(const Problem& problem, SearchSpace space, const CpuInfo& cpu);

}  // namespace gemmtune::cpu
