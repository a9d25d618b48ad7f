// Which ISA levels of the own kernels this build compiled (GEMMTUNE_CPU_ISAS,
// cmake/cpu_isas.cmake): every level from a bottom one to a top one. A portable build has all
// five; a native build stops at its build machine's best and, on a machine with AVX2, starts
// there (the generic kernels never won where AVX2 ones run).
#pragma once

#include <string>

#include "gemmtune/device.h"

namespace gemmtune::cpu {

// The highest and the lowest level compiled (kIsaGeneric … kIsaAvx512Bf16).
int compiled_top_isa();
int compiled_bottom_isa();

// `cpu` as the cpu backend may use it: its features above the compiled levels cleared, so
// that no config of a level without kernels is offered where the build runs on a better CPU.
// (Levels below the bottom one the backend leaves out of its configs.)
CpuInfo with_compiled_isas(CpuInfo cpu);

// For `gemmtune devices`: the levels compiled and, where some are not, how to get them.
std::string compiled_isas_note();

}  // namespace gemmtune::cpu
