#include "padded_operand.h"

#include "kernel_dtype_codes.h"
#include "wgmma_kernel_source.h"

namespace gemmtune::cuda {
namespace {

constexpr std::int64_t kTmaStrideAlignment = 16;

// The operand's lines in memory: k lines of `rows` elements where rows are contiguous
// (mn-major), else `rows` lines of k elements.
std::int64_t lines_of(const WgmmaOperand& o) { return o.mn_major ? o.k : o.rows; }
std::int64_t line_elements(const WgmmaOperand& o) { return o.mn_major ? o.rows : o.k; }

}  // namespace

WgmmaOperand padded_for_tma(WgmmaOperand operand) {
  const std::int64_t bytes = wgmma_input_bytes(operand.in_code);
  // With k = 0 nothing is loaded (C = beta·C), so nothing is copied.
  if (operand.k == 0 || (operand.ld * bytes) % kTmaStrideAlignment == 0) return operand;
  const std::int64_t step = kTmaStrideAlignment / bytes;
  operand.caller_ld = operand.ld;
  operand.ld = (operand.ld + step - 1) / step * step;
  return operand;
}

PaddedOperands caller_operands(const Problem& p) {
  const int in = input_code(p.a_type());
  return {{nullptr, in, p.a_layout() == Layout::col_major, p.m(), p.k(), p.lda(), 0},
          {nullptr, in, p.b_layout() == Layout::row_major, p.n(), p.k(), p.ldb(), 0}};
}

PaddedOperands padded_operands(const Problem& p) {
  const PaddedOperands caller = caller_operands(p);
  return {padded_for_tma(caller.a), padded_for_tma(caller.b)};
}

std::int64_t padded_copy_bytes(const WgmmaOperand& operand) {
  if (operand.caller_ld == 0) return 0;
  return lines_of(operand) * operand.ld * wgmma_input_bytes(operand.in_code);
}

std::string padded_copy_problem(const WgmmaOperand& operand) {
  const std::int64_t bytes = padded_copy_bytes(operand);
  if (bytes <= kMaxPaddedOperandBytes) return "";
  return "its leading dimension (" + std::to_string(operand.caller_ld) + " elements) is not a multiple of the 16 " +
         "bytes TMA needs, and a padded copy would take " + std::to_string(bytes >> 20) + " MiB (at most " +
         std::to_string(kMaxPaddedOperandBytes >> 20) + ")";
}

PaddedCopyShape padded_copy_shape(const WgmmaOperand& operand) {
  const std::int64_t bytes = wgmma_input_bytes(operand.in_code);
  return {lines_of(operand), line_elements(operand) * bytes, operand.caller_ld * bytes, operand.ld * bytes};
}

}  // namespace gemmtune::cuda
