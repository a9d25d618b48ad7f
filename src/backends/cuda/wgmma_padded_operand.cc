#include "wgmma_padded_operand.h"

#include <cuda_runtime.h>

#include "cuda_check.h"
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

Status enqueue_padded_copy(const WgmmaOperand& operand, const void* caller, void* copy, void* stream) {
  const std::int64_t bytes = wgmma_input_bytes(operand.in_code);
  if (lines_of(operand) == 0 || line_elements(operand) == 0) return Status::ok();
  return check(cudaMemcpy2DAsync(copy, std::size_t(operand.ld * bytes), caller, std::size_t(operand.caller_ld * bytes),
                                 std::size_t(line_elements(operand) * bytes), std::size_t(lines_of(operand)),
                                 cudaMemcpyDeviceToDevice, static_cast<cudaStream_t>(stream)),
               "cudaMemcpy2DAsync (wgmma operand padded for TMA)");
}

}  // namespace gemmtune::cuda
