// Which kernels the config space can offer, as compile-time rules with two users: the config
// space prunes its configs by them (cpu_config_space.cc), and the kernel lookups compile only
// the kernels that pass them (cpu_kernel_impl.h). One rule for both, so that no kernel is
// compiled that no config can pick (a 14 × 2 tile for AVX2's 16 registers cost compile time
// and nothing else) and no config is offered whose kernel was not compiled.
#pragma once

#include "cpu_kernels.h"

namespace gemmtune::cpu {

// Architectural vector registers of an ISA level: 16 below AVX-512 (SSE2, AVX2), 32 from it.
constexpr int vector_registers(int isa) { return isa >= kIsaAvx512 ? 32 : 16; }

// Vector registers the register tile of `kernel` needs, given its lookup key (tile_key).
constexpr int registers_for_kernel(int kernel, TileKey key) {
  if (kernel == kKernelDot) return registers_for_dot_tile(key.first, key.second);
  if (kernel == kKernelAxpy) return registers_for_axpy_tile(key.first, key.second);
  return registers_for_tile(key.first, key.second);
}

// Accumulators that do not fit the register file spill to the stack on every k step: such a
// tile is never offered.
constexpr bool tile_fits_registers(int isa, int kernel, TileKey key) {
  return registers_for_kernel(kernel, key) <= vector_registers(isa);
}

// Whether `kernel` has instances for inputs of `in` accumulated into `out`. The tile, pairs and
// rows-dots kernels serve small f32 products, where f32 meets libxsmm's JIT; the columns
// kernel has no s8 form (no vector of s8 rows to broadcast against).
constexpr bool family_takes_dtypes(int kernel, DType in, DType out) {
  const bool f32 = in == DType::f32 && out == DType::f32;
  if (kernel == kKernelTile || kernel == kKernelPairs || kernel == kKernelRowsDots) return f32;
  if (kernel == kKernelColumns) return in != DType::s8;
  return true;
}

// Whether a family's f32 tiles (cpu_kernel_families.h: the rows tiles of
// GEMMTUNE_CPU_DIRECT_F32_TILES) serve `in` → `out`.
constexpr bool takes_f32_tiles(DType in, DType out) { return in == DType::f32 && out == DType::f32; }

// Whether `kernel` runs at ISA level `isa`: the pairs kernel fills half a 512-bit vector.
constexpr bool family_takes_isa(int kernel, int isa) { return kernel != kKernelPairs || vector_bytes(isa) == 64; }

// Whether the config space can offer the kernel of (`isa`, `kernel`, `in` → `out`, tile `key`),
// and so whether it is compiled. The tile lists (cpu_kernels.h) and each ISA level's dtypes
// (cpu_kernel_<isa>.cc) bound what is compiled further. (Until 2026-11-27 the generic and AVX2
// levels also compiled the tiles their 16 registers cannot hold, a third of the build's time,
// only to keep the other kernels' code as the cost models of then were trained on:
// bench/results/2026-11-27-build-time.md.)
constexpr bool kernel_offered(int isa, int kernel, DType in, DType out, TileKey key) {
  return family_takes_dtypes(kernel, in, out) && family_takes_isa(kernel, isa) && tile_fits_registers(isa, kernel, key);
}

}  // namespace gemmtune::cpu
