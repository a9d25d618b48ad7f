// The ISA levels this build compiled, and empty lookups for those it did not. The build
// (src/CMakeLists.txt) defines GEMMTUNE_CPU_TOP_ISA, GEMMTUNE_CPU_BOTTOM_ISA and
// GEMMTUNE_CPU_ISAS for this file.
#include "cpu_kernel_levels.h"

#include "cpu_kernels.h"
#include "gemmtune/config.h"

#ifndef GEMMTUNE_CPU_TOP_ISA
#define GEMMTUNE_CPU_TOP_ISA 4
#define GEMMTUNE_CPU_BOTTOM_ISA 0
#define GEMMTUNE_CPU_ISAS "all"
#endif

namespace gemmtune::cpu {

#if GEMMTUNE_CPU_BOTTOM_ISA > 0
CpuGemmFn find_cpu_kernel_generic(int, DType, DType, int, int) { return nullptr; }
#endif
#if GEMMTUNE_CPU_TOP_ISA < 1
CpuGemmFn find_cpu_kernel_avx2(int, DType, DType, int, int) { return nullptr; }
#endif
#if GEMMTUNE_CPU_TOP_ISA < 2
CpuGemmFn find_cpu_kernel_avx512(int, DType, DType, int, int) { return nullptr; }
#endif
#if GEMMTUNE_CPU_TOP_ISA < 3
CpuGemmFn find_cpu_kernel_avx512_vnni(int, DType, DType, int, int) { return nullptr; }
#endif
#if GEMMTUNE_CPU_TOP_ISA < 4
CpuGemmFn find_cpu_kernel_avx512_bf16(int, DType, DType, int, int) { return nullptr; }
#endif

int compiled_top_isa() { return GEMMTUNE_CPU_TOP_ISA; }
int compiled_bottom_isa() { return GEMMTUNE_CPU_BOTTOM_ISA; }

CpuInfo with_compiled_isas(CpuInfo cpu) {
  if (cpu.best_isa() > compiled_top_isa()) cpu.cap_isa(compiled_top_isa());
  return cpu;
}

std::string compiled_isas_note() {
  std::string levels;
  for (int isa = compiled_bottom_isa(); isa <= compiled_top_isa(); ++isa) {
    levels += (levels.empty() ? "" : ", ") + std::string(cpu_isa_name(isa));
  }
  std::string note = "ISA levels " + levels;
  if (compiled_bottom_isa() > kIsaGeneric || compiled_top_isa() < kIsaAvx512Bf16) {
    note += " (GEMMTUNE_CPU_ISAS=" + std::string(GEMMTUNE_CPU_ISAS) + "; -DGEMMTUNE_CPU_ISAS=all compiles every level)";
  }
  return note;
}

}  // namespace gemmtune::cpu
