// Operands whose rows TMA cannot address, copied into a buffer it can. TMA needs each leading
// dimension to be a multiple of 16 bytes: a transposed A (layout tn) of 100 or 300 rows in bf16
// (200 and 600 bytes a row) or a row-major B of odd width is not. Without the copy the wgmma
// family cannot run such problems, and cuBLASLt's kernels for them ran 1.9-3.8x slower than the
// same product with aligned operands on the H200 (bench/results/2026-12-01b-h200-model-layouts.md),
// as Inductor's pad_mm found for PyTorch. The copy, a 2-D memcpy of the operand's lines into
// lines of the leading dimension rounded up, is enqueued before the kernel on every call and
// timed with it, so the tuner weighs its cost against the families that read the caller's rows.
#pragma once

#include <cstdint>
#include <string>

#include "gemmtune/status.h"
#include "wgmma_tensor_map.h"

namespace gemmtune::cuda {

// The most a padded copy may take. Each prepared kernel owns its copy's buffer, and a tuning
// prepares dozens: a 4096-row weight of 50,257 columns (412 MB) would hold gigabytes. The
// copy also costs what reading the operand does, so where it is that large the families that
// read the caller's rows (cuBLASLt) serve it.
inline constexpr std::int64_t kMaxPaddedOperandBytes = std::int64_t(64) << 20;

// The operand as the kernel reads it: where its leading dimension is not a multiple of 16
// bytes, `ld` rounded up to one and `caller_ld` the caller's; otherwise unchanged (caller_ld 0).
WgmmaOperand padded_for_tma(WgmmaOperand operand);

// Bytes of the operand's padded copy: 0 where it reads the caller's rows.
std::int64_t padded_copy_bytes(const WgmmaOperand& operand);

// Why the operand cannot be padded ("" if it can, or needs no copy): a copy past
// kMaxPaddedOperandBytes.
std::string padded_copy_problem(const WgmmaOperand& operand);

// Enqueues the copy of `caller` (the caller's rows, its leading dimension operand.caller_ld)
// into `copy` (operand.ld), on `stream`.
Status enqueue_padded_copy(const WgmmaOperand& operand, const void* caller, void* copy, void* stream);

}  // namespace gemmtune::cuda
