// TMA tensor maps of the Hopper template's operands: made on the host per operand pointer and
// passed to the kernel by value. Plain values only, like wgmma_kernel_source.h, so the probes
// in bench/probes/wgmma use the same code as the backend.
#pragma once

#include <cstdint>
#include <string>

#include <cuda.h>

namespace gemmtune::cuda {

// One operand of the kernel as a 2-D matrix of `rows` × `k` elements (rows: m for A', n for B').
struct WgmmaOperand {
  const void* data = nullptr;
  int in_code = 1;         // element type, as WgmmaInstance::in_code
  bool mn_major = false;   // rows contiguous (ld between k), else k contiguous (ld between rows)
  std::int64_t rows = 0, k = 0, ld = 0;
  int tile_rows = 128;     // rows of the CTA tile this operand fills per stage
  // > 0: the caller's leading dimension, which TMA cannot address; `data` is then a copy with
  // leading dimension `ld` (padded_operand.h).
  std::int64_t caller_ld = 0;
};

// Why TMA cannot address the operand (as a sentence), or "" when it can: a stride that is not a
// multiple of 16 bytes, a base address not 16-byte aligned, dims past TMA's limits.
std::string wgmma_operand_problem(const WgmmaOperand& operand);

// Encodes the operand's map with the 128B swizzle the template reads (cuTensorMapEncodeTiled,
// resolved from the driver at run time). Returns "" on success, else what failed; an operand
// still marked as the caller's rows of a padded one (caller_ld set) is refused.
std::string encode_wgmma_operand_map(const WgmmaOperand& operand, CUtensorMap* map);

// Whether a C' of this output type, size and leading dimension can be a TMA-store target
// whatever its address ("" if so, else why not): what a kernel's compile can know. The
// address's alignment is only known at a call.
std::string wgmma_output_map_limits(int out_code, std::int64_t m, std::int64_t n, std::int64_t ld);

// The kernel's C' (row-major: m rows of n, ld between rows) for the TMA-store epilogue, as two
// maps: `chunks`, boxes of one m64 slice × 128 bytes of columns, 128B-swizzled; and `tail`,
// boxes of the columns of a `block_n`-wide tile past its last whole chunk, unswizzled (a copy
// of `chunks` where there are none). "" on success, else why C cannot be mapped (the kernel
// then stores directly).
std::string encode_wgmma_output_maps(void* data, int out_code, std::int64_t m, std::int64_t n, std::int64_t ld,
                                     int block_n, CUtensorMap* chunks, CUtensorMap* tail);

}  // namespace gemmtune::cuda
