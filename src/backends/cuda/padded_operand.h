// Operands whose leading dimension is not a multiple of 16 bytes, copied into a buffer whose
// leading dimension is. TMA needs it: a transposed A (layout tn) of 100 or 300 rows in bf16
// (200 and 600 bytes a row) or a row-major B of odd width is not, so the wgmma family cannot
// read them in place; and cuBLASLt's kernels for them ran 1.9-3.8x slower than the same product
// with aligned operands on the H200 (bench/results/2026-12-01b-h200-model-layouts.md), as
// Inductor's pad_mm found for PyTorch. So `wgmma`, and cuBLASLt's padded choices, read such an
// operand from a copy (kernels/pad_copy.cuh: the operand's lines into lines of the leading
// dimension rounded up), enqueued before the kernel on every call and timed with it, so the
// tuner weighs its cost against the choices that read the caller's rows. The copies are made
// in one buffer of the device's (padded_copies_buffer, pad_copy_kernel.h).
#pragma once

#include <cstdint>
#include <string>

#include "gemmtune/problem.h"
#include "wgmma_tensor_map.h"

namespace gemmtune::cuda {

// The most a padded copy may take: the copy costs what reading the operand does, and the
// device's buffer for copies grows to the largest (a 4096-row weight of 50,257 columns would
// take 412 MB), so where it is that large the families that read the caller's rows (cuBLASLt)
// serve it.
inline constexpr std::int64_t kMaxPaddedOperandBytes = std::int64_t(64) << 20;

// The operand as the kernel reads it: where its leading dimension is not a multiple of 16
// bytes, `ld` rounded up to one and `caller_ld` the caller's; otherwise unchanged (caller_ld 0).
WgmmaOperand padded_for_tma(WgmmaOperand operand);

// The problem's A (m × k) and B (as n × k) as a kernel that pads them reads them.
struct PaddedOperands {
  WgmmaOperand a, b;
  bool any() const { return a.caller_ld != 0 || b.caller_ld != 0; }
};
PaddedOperands padded_operands(const Problem& problem);
// The same as the caller lays them out (none padded).
PaddedOperands caller_operands(const Problem& problem);

// Bytes of the operand's padded copy: 0 where it reads the caller's rows.
std::int64_t padded_copy_bytes(const WgmmaOperand& operand);

// Why the operand cannot be padded ("" if it can, or needs no copy): a copy past
// kMaxPaddedOperandBytes.
std::string padded_copy_problem(const WgmmaOperand& operand);

// The copy of a padded operand as lines of bytes: `lines` lines of `line_bytes`, one every
// `caller_pitch` bytes in the caller's operand and every `copy_pitch` in the copy.
struct PaddedCopyShape {
  std::int64_t lines = 0, line_bytes = 0, caller_pitch = 0, copy_pitch = 0;
};
PaddedCopyShape padded_copy_shape(const WgmmaOperand& operand);

}  // namespace gemmtune::cuda
