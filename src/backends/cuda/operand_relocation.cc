// The CUDA operand relocation (core/operand_relocation.h): A and B copied by the pad-copy kernel
// (kernels/pad_copy.cuh) into one buffer of cudaMalloc's, each at a multiple of 256 bytes, line
// for line at the caller's own leading dimension, so the kernel tuned for the problem reads them
// as it read tuning's operands.
#include <cuda_runtime.h>

#include <array>
#include <cstdint>
#include <optional>

#include "cuda_backends.h"
#include "cuda_check.h"
#include "cuda_module.h"
#include "pad_copy_kernel.h"
#include "padded_operand.h"

namespace gemmtune::cuda {
namespace {

class CudaOperandRelocation final : public OperandRelocation {
 public:
  struct Moved {
    std::size_t offset = 0;  // in the buffer
    PaddedCopyShape shape;   // copy pitch = caller pitch
  };

  CudaOperandRelocation(int device, int sm_count, CUfunction copy, std::array<std::optional<Moved>, 2> moved)
      : device_(device), sm_count_(sm_count), copy_(copy), moved_(moved) {}
  Status allocate(std::size_t bytes) { return buffer_.allocate(bytes); }

  Status run(const GemmArgs& args, std::uintptr_t grid_mask,
             const std::function<Status(const GemmArgs&)>& kernel) override {
    int current = -1;
    if (cudaGetDevice(&current) != cudaSuccess || current != device_) {
      GEMMTUNE_RETURN_IF_ERROR(check(cudaSetDevice(device_), "cudaSetDevice"));
    }
    GemmArgs moved_args = args;
    GEMMTUNE_ASSIGN_OR_RETURN(std::unique_lock<std::mutex> turn, buffer_.begin(args.stream));
    Status status = Status::ok();
    for (auto [i, operand] : {std::pair{0, &moved_args.a}, std::pair{1, &moved_args.b}}) {
      if (!moved_[i] || (reinterpret_cast<std::uintptr_t>(*operand) & grid_mask) == 0 || !status.is_ok()) continue;
      void* copy = static_cast<char*>(buffer_.data()) + moved_[i]->offset;
      status = enqueue_pad_copy(copy_, moved_[i]->shape, *operand, copy, args.stream, sm_count_);
      *operand = copy;
      moved_args.operands_just_written = true;
    }
    if (status.is_ok()) status = kernel(moved_args);
    // The turn is given back (its event recorded) whatever failed, so that a later call on
    // another stream never waits on an older one's event.
    const Status given_back = buffer_.finish(args.stream);
    return status.is_ok() ? given_back : status;
  }

 private:
  int device_;
  int sm_count_;
  CUfunction copy_;
  std::array<std::optional<Moved>, 2> moved_;  // A, B: unset where past the cap (or k = 0)
  SerializedScratch buffer_;
};

}  // namespace

Result<std::unique_ptr<OperandRelocation>> make_operand_relocation(const CudaInfo& device, const Problem& problem) {
  const PaddedOperands operands = padded_operands(problem);
  std::array<std::optional<CudaOperandRelocation::Moved>, 2> moved;
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < 2; ++i) {
    // The caller's own leading dimension, both sides: the copy is the operand, elsewhere.
    WgmmaOperand operand = i == 0 ? operands.a : operands.b;
    if (operand.caller_ld != 0) operand.ld = operand.caller_ld;
    operand.caller_ld = operand.ld;
    const std::int64_t copy_bytes = padded_copy_bytes(operand);
    if (problem.k() == 0 || copy_bytes == 0 || copy_bytes > kMaxPaddedOperandBytes) continue;
    moved[i] = CudaOperandRelocation::Moved{bytes, padded_copy_shape(operand)};
    bytes += std::size_t((copy_bytes + 255) / 256 * 256);
  }
  if (bytes == 0) {
    return unsupported("neither A nor B of " + problem.describe() + " can be copied (k = 0, or past " +
                       std::to_string(kMaxPaddedOperandBytes >> 20) + " MiB)");
  }
  GEMMTUNE_ASSIGN_OR_RETURN(CUfunction copy, pad_copy_function(device));
  auto relocation = std::make_unique<CudaOperandRelocation>(device.index, device.sm_count, copy, moved);
  GEMMTUNE_RETURN_IF_ERROR(relocation->allocate(bytes));
  return std::unique_ptr<OperandRelocation>(std::move(relocation));
}

}  // namespace gemmtune::cuda
