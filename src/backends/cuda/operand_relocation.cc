// The CUDA operand relocation (core/operand_relocation.h): A and B copied by the pad-copy kernel
// (kernels/pad_copy.cuh), line for line at the caller's own leading dimension, so the kernel
// tuned for the problem reads them as it read tuning's operands. One buffer per session, grown
// to the largest call's copies and shared by every problem's calls: a buffer per problem would
// hold a copy of A for every m a program meets.
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <mutex>

#include "cuda_backends.h"
#include "cuda_check.h"
#include "cuda_module.h"
#include "pad_copy_kernel.h"
#include "padded_operand.h"

namespace gemmtune::cuda {
namespace {

class CudaOperandRelocation final : public OperandRelocation {
 public:
  explicit CudaOperandRelocation(const CudaInfo& device) : device_(device) {}

  Status run(const Problem& problem, const GemmArgs& args, std::uintptr_t grid_mask,
             const std::function<Status(const GemmArgs&)>& kernel) override {
    // The operands that move: off the grid, read (k > 0), and within the cap.
    OperandCopies moved;
    const std::array<const void*, 2> callers = {args.a, args.b};
    const OperandGridMasks masks = unpack_grid_masks(grid_mask);
    const std::array<std::uintptr_t, 2> operand_masks = {masks.a, masks.b};
    const PaddedOperands operands = caller_operands(problem);
    for (std::size_t i = 0; i < 2 && problem.k() > 0; ++i) {
      if ((reinterpret_cast<std::uintptr_t>(callers[i]) & operand_masks[i]) == 0) continue;
      // Copied at the caller's own leading dimension: the copy is the operand, elsewhere.
      WgmmaOperand operand = i == 0 ? operands.a : operands.b;
      operand.caller_ld = operand.ld;
      const std::int64_t copy_bytes = padded_copy_bytes(operand);
      if (copy_bytes == 0 || copy_bytes > max_relocated_operand_bytes(device_.global_memory_bytes)) continue;
      moved.add(i, padded_copy_shape(operand));
    }
    if (!moved.any()) return kernel(args);

    GEMMTUNE_RETURN_IF_ERROR(make_device_current(device_.index));
    GEMMTUNE_ASSIGN_OR_RETURN(CUfunction copy_kernel, pad_copy_function(device_));
    GEMMTUNE_ASSIGN_OR_RETURN(std::unique_lock<std::mutex> turn, scratch_.begin(args.stream, moved.bytes()));
    std::array<const void*, 2> on_grid = callers;
    Status status = moved.enqueue(copy_kernel, on_grid, scratch_.data(), args.stream, device_.sm_count);
    if (status.is_ok()) {
      GemmArgs moved_args = args;
      moved_args.a = on_grid[0];
      moved_args.b = on_grid[1];
      moved_args.operands_just_written = true;
      status = kernel(moved_args);
    }
    // The turn is given back (its event recorded) whatever failed, so that a later call on
    // another stream never waits on an older one's event.
    const Status given_back = scratch_.finish(args.stream);
    return status.is_ok() ? given_back : status;
  }

 private:
  CudaInfo device_;
  SerializedScratch scratch_;  // grown to the largest call's copies
};

}  // namespace

std::unique_ptr<OperandRelocation> make_operand_relocation(const CudaInfo& device) {
  return std::make_unique<CudaOperandRelocation>(device);
}

}  // namespace gemmtune::cuda
