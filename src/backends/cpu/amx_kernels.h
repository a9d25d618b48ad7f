// gemmtune's own AMX kernels (Intel Advanced Matrix Extensions: Sapphire Rapids and later), as
// the amx backend sees them: plain parameters and one entry point. amx_kernels.cc is the only
// file compiled with the AMX flags.
//
// The kernel multiplies a "row" operand R, whose rows run along k and are read in place by
// tile loads, by a "packed" operand P, copied per call into the tiles' VNNI layout (pairs of k
// for bf16, quads for s8, 16 columns a panel). C = A·B takes R = A, P = B; with swap it computes
// Cᵀ = Bᵀ·Aᵀ, R = B's columns and P = A's rows: for C = X·Wᵀ (nt) the weights W are read where
// they lie and only the activations X are packed.
#pragma once

#include <cstdint>
#include <string>

#include "gemmtune/dtype.h"

namespace gemmtune::cpu {

struct AmxGemmParams {
  std::int64_t m = 0, n = 0, k = 0;
  // Element strides as CpuGemmParams's: A(i, p) = a[i·a_rs + p·a_ks], B(p, j) = b[p·b_ks + j·b_cs],
  // C(i, j) = c[i·ldc + j]. Without swap a_ks is 1; with swap b_ks is 1.
  std::int64_t a_rs = 0, a_ks = 1, b_ks = 0, b_cs = 1, ldc = 0;
  double alpha = 1, beta = 0;
  DType in = DType::bf16, out = DType::f32;  // bf16 → f32 or bf16; s8 → s32
  // Tiles of C held in the tile registers: 1 or 2 along R's rows, 1 or 2 along P's columns
  // (16 each); with the operand tiles, 2 × 2 takes all eight registers.
  int row_tiles = 2, col_tiles = 2;
  // Columns of P packed at once, and the depth of k over which a block of R's rows stays in L1
  // while every column tile of the block passes it: multiples of 16 and of the tile's k step.
  std::int64_t block_n = 256, block_k = 512;
  bool swap = false;
  // R's blocks copied onto whole 64-byte lines per slice where R's rows are off their lines
  // (its base or its row stride); else, and where they lie on them, R is read in place.
  bool copy_r = false;
  int threads = 1;
};

// k per tile step: 64 bytes of a row (32 bf16, 64 s8).
constexpr std::int64_t amx_k_step(DType in) { return in == DType::s8 ? 64 : 32; }

void amx_gemm(const AmxGemmParams& params, const void* a, const void* b, void* c);

// Whether this process may run AMX tiles (defined in amx_backend.cc, which is compiled without
// ISA flags, so the check itself runs on any x86-64 CPU): the CPU has AMX-TILE, AMX-BF16 and AMX-INT8, and
// Linux granted the tile data state (arch_prctl ARCH_REQ_XCOMP_PERM, asked once). Empty when
// it may; else why not.
const std::string& amx_unavailable_reason();

}  // namespace gemmtune::cpu
