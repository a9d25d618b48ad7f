# Which ISA levels of the own CPU kernels this build compiles (GEMMTUNE_CPU_ISAS).
#
# The kernels are compiled once per vector ISA level, and the levels are most of a fresh
# build's time (bench/results/2026-11-27-build-time.md). A portable build (the default, and
# every package) compiles all five and picks one at run time; `native` compiles the levels up to
# the best one this build machine runs, which is what `make demo` and `make test` need (the
# Makefile's default), and a level name compiles the levels up to that one. A level left out
# still has its sources checked by the compiler's front end (gemmtune_cpu_kernels_syntax), so
# a build on an AVX2 machine still catches an AVX-512 kernel that no longer compiles.
#
# `native` also leaves the generic level out on a machine with AVX2: there its kernels are
# offered only by the exhaustive space, below the AVX2 ones, and were the fastest config on
# none of the 240 held-out shapes of the Zen 3, Zen 5 and Emerald Rapids sweeps
# (bench/results/2026-11-28-build-time.md), while their unit is the longest compile of a
# 2-core build (241 s of CPU).
#
# Sets GEMMTUNE_CPU_TOP_ISA and GEMMTUNE_CPU_BOTTOM_ISA (0 generic … 4 avx512_bf16, as kIsa* in
# cpu_kernels.h: the levels from bottom to top are compiled) and GEMMTUNE_CPU_ISA_NAMES (the
# level names, lowest first).
set(GEMMTUNE_CPU_ISA_NAMES generic avx2 avx512 avx512_vnni avx512_bf16)
set(GEMMTUNE_CPU_ISAS "all" CACHE STRING
    "ISA levels of the own CPU kernels: all (portable), native (up to this machine's best), or the top level's name")
set_property(CACHE GEMMTUNE_CPU_ISAS PROPERTY STRINGS all native ${GEMMTUNE_CPU_ISA_NAMES})
string(REPLACE ";" ", " level_names "${GEMMTUNE_CPU_ISA_NAMES}")

# The best level this machine runs, by the rule of CpuInfo::best_isa (src/core/device_cpu.cc).
function(gemmtune_native_cpu_isa out)
  set(probe ${CMAKE_BINARY_DIR}/CMakeFiles/gemmtune_native_isa.cc)
  file(WRITE ${probe} [=[
#include <cstdio>
int main() {
  __builtin_cpu_init();
  int level = 0;
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) level = 1;
  if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
      __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("fma")) {
    level = 2;
    if (__builtin_cpu_supports("avx512vnni")) {
      level = __builtin_cpu_supports("avx512bf16") ? 4 : 3;
    }
  }
  std::printf("%d", level);
  return 0;
}
]=])
  try_run(run_result compile_result ${CMAKE_BINARY_DIR}/CMakeFiles/gemmtune_native_isa ${probe}
          RUN_OUTPUT_VARIABLE level)
  if(NOT compile_result OR NOT run_result EQUAL 0 OR NOT level MATCHES "^[0-4]$")
    message(FATAL_ERROR "GEMMTUNE_CPU_ISAS=native: could not detect this machine's ISA level; "
                        "name one (${level_names}) or use all")
  endif()
  set(${out} ${level} PARENT_SCOPE)
endfunction()

set(GEMMTUNE_CPU_BOTTOM_ISA 0)
if(GEMMTUNE_CPU_ISAS STREQUAL "all")
  set(GEMMTUNE_CPU_TOP_ISA 4)
elseif(GEMMTUNE_CPU_ISAS STREQUAL "native")
  gemmtune_native_cpu_isa(GEMMTUNE_CPU_TOP_ISA)
  if(GEMMTUNE_CPU_TOP_ISA GREATER_EQUAL 1)
    set(GEMMTUNE_CPU_BOTTOM_ISA 1)
  endif()
else()
  list(FIND GEMMTUNE_CPU_ISA_NAMES "${GEMMTUNE_CPU_ISAS}" GEMMTUNE_CPU_TOP_ISA)
  if(GEMMTUNE_CPU_TOP_ISA LESS 0)
    message(FATAL_ERROR "GEMMTUNE_CPU_ISAS=${GEMMTUNE_CPU_ISAS}: expected all, native or one of "
                        "${level_names}")
  endif()
endif()

# Each level's translation unit and compiler flags. They decide the kernels' machine code, so
# they enter the cpu backend's version (GEMMTUNE_CPU_KERNELS_HASH, CMakeLists.txt) with the
# sources. -ffp-contract=fast lets a*b+c become one FMA (ISO mode turns that off); -fwrapv makes
# s32 accumulation wrap as the hardware does.
set(GEMMTUNE_KERNEL_FLAGS -O3 -ffp-contract=fast -fwrapv -fno-math-errno)
set(GEMMTUNE_AVX512_FLAGS -mavx512f -mavx512bw -mavx512vl -mavx512dq -mavx2 -mfma -mf16c -mprefer-vector-width=512)
set(GEMMTUNE_CPU_ISA_FLAGS_generic "")
set(GEMMTUNE_CPU_ISA_FLAGS_avx2 -mavx2 -mfma -mf16c)
set(GEMMTUNE_CPU_ISA_FLAGS_avx512 ${GEMMTUNE_AVX512_FLAGS})
set(GEMMTUNE_CPU_ISA_FLAGS_avx512_vnni ${GEMMTUNE_AVX512_FLAGS} -mavx512vnni)
set(GEMMTUNE_CPU_ISA_FLAGS_avx512_bf16 ${GEMMTUNE_AVX512_FLAGS} -mavx512vnni -mavx512bf16)
# The AMX kernel's unit (src/backends/cpu/amx_kernels.cc): tiles, and AVX-512 BF16 for its epilogue.
set(GEMMTUNE_AMX_FLAGS ${GEMMTUNE_AVX512_FLAGS} -mavx512bf16 -mamx-tile -mamx-bf16 -mamx-int8)
