// gemmtune's own CPU GEMM kernels: GotoBLAS-style blocking (B panels sized for L3, A blocks
// for L2, micro-panels for L1) around a register-tiled micro-kernel. One set of kernels is
// compiled per vector ISA; the config picks the ISA, the register tile and the blocking.
#pragma once

#include <cstddef>
#include <cstdint>

#include "gemmtune/dtype.h"

namespace gemmtune::cpu {

// Everything a kernel needs of the problem and config, as plain numbers.
struct CpuGemmParams {
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  bool a_row_major = true, b_row_major = true;
  double alpha = 1, beta = 0;
  std::int64_t block_m = 0, block_n = 0, block_k = 0;  // multiples of the register tile
  int threads = 1;
};

using CpuGemmFn = void (*)(const CpuGemmParams& params, const void* a, const void* b, void* c);

// Register tiles every ISA's kernels are compiled for: X(micro_m rows, micro_nv vectors).
// The config space offers only these, further pruned by each ISA's register count.
#define GEMMTUNE_CPU_MICRO_TILES(X) \
  X(1, 1) X(1, 2) X(1, 4) X(2, 2) X(4, 1) X(4, 2) X(4, 4) X(6, 2) X(8, 1) X(12, 2) X(14, 2)

// Tiles of the direct kernels: X(rows, vectors of columns) for "rows", X(rows, columns) for "dot".
#define GEMMTUNE_CPU_DIRECT_TILES(X) X(1, 1) X(1, 2) X(1, 4) X(2, 2) X(4, 1) X(4, 2) X(4, 4) X(8, 1) X(8, 2)
#define GEMMTUNE_CPU_DOT_TILES(X) X(1, 1) X(1, 4) X(1, 8) X(2, 4) X(4, 2) X(4, 4) X(8, 2) X(16, 1)

// The kernel algorithms (KernelConfig::algo of the cpu backend).
inline constexpr int kAlgoPacked = 0;      // GotoBLAS blocking with packed panels
inline constexpr int kAlgoDirectRows = 1;  // no packing; B row-major; vectors along n
inline constexpr int kAlgoDirectDot = 2;   // no packing; A row-major, B column-major; dots along k

struct MicroTile {
  int micro_m;
  int micro_nv;
};
#define GEMMTUNE_CPU_TILE_ENTRY(mr, nv) MicroTile{mr, nv},
inline constexpr MicroTile kMicroTiles[] = {GEMMTUNE_CPU_MICRO_TILES(GEMMTUNE_CPU_TILE_ENTRY)};
#undef GEMMTUNE_CPU_TILE_ENTRY

// Vector registers a tile needs: the accumulators, one row of B vectors, one broadcast of A.
constexpr int registers_for_tile(int micro_m, int micro_nv) { return micro_m * micro_nv + micro_nv + 1; }
static_assert(registers_for_tile(14, 2) <= 32, "every tile must fit AVX-512's 32 registers");

// Bytes per vector register of an ISA (0 generic = SSE2's 16 bytes, 1 AVX2, 2 AVX-512).
constexpr int vector_bytes(int isa) { return isa == 2 ? 64 : isa == 1 ? 32 : 16; }

// The kernel for (ISA, algorithm, input dtype, output dtype, tile), or nullptr if none is
// compiled. `micro_nv`: vectors of columns (packed, rows) or columns (dot). Inputs
// f32/f16/bf16 accumulate in f32, s8 in s32.
CpuGemmFn find_cpu_kernel(int isa, int algo, DType in, DType out, int micro_m, int micro_nv);

// Per-ISA lookups, each defined in its own translation unit.
CpuGemmFn find_cpu_kernel_generic(int algo, DType in, DType out, int micro_m, int micro_nv);
CpuGemmFn find_cpu_kernel_avx2(int algo, DType in, DType out, int micro_m, int micro_nv);
CpuGemmFn find_cpu_kernel_avx512(int algo, DType in, DType out, int micro_m, int micro_nv);

// Scratch owned by the calling thread, 64-byte aligned, grown on demand and kept: after the
// first call of a size, kernels allocate nothing. `slot` separates buffers used at once.
void* thread_scratch(int slot, std::size_t bytes);

// f16 conversions for kernels: defined in a file compiled without ISA flags.
float f16_load(std::uint16_t bits);
std::uint16_t f16_store(float value);

}  // namespace gemmtune::cpu
