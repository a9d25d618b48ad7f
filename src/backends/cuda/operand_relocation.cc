// The CUDA operand relocation (core/operand_relocation.h): A and B copied by the pad-copy kernel
// (kernels/pad_copy.cuh), line for line at the caller's own leading dimension, so the kernel
// tuned for the problem reads them as it read tuning's operands. One buffer per session, grown
// to the largest call's copies and shared by every problem's calls: a buffer per problem would
// hold a copy of A for every m a program meets.
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <mutex>
#include <optional>

#include "cuda_backends.h"
#include "cuda_check.h"
#include "pad_copy_kernel.h"
#include "padded_operand.h"

namespace gemmtune::cuda {
namespace {

// One buffer on which calls take turns, as on SerializedScratch (each call's stream waits on
// the event the previous call recorded), grown (never shrunk) when a call needs more.
class GrowingScratch {
 public:
  GrowingScratch() = default;
  GrowingScratch(const GrowingScratch&) = delete;
  GrowingScratch& operator=(const GrowingScratch&) = delete;
  ~GrowingScratch() {
    if (data_ != nullptr) cudaFree(data_);
    if (free_ != nullptr) cudaEventDestroy(free_);
  }

  // A turn on at least `bytes`: the lock is held until finish() has been called.
  Result<std::unique_lock<std::mutex>> begin(std::size_t bytes, void* stream) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (free_ == nullptr) {
      GEMMTUNE_RETURN_IF_ERROR(check(cudaEventCreateWithFlags(&free_, cudaEventDisableTiming), "cudaEventCreate"));
    }
    if (bytes > bytes_) {
      // A call enqueued on another stream may still read the old buffer: its event first.
      GEMMTUNE_RETURN_IF_ERROR(check(cudaEventSynchronize(free_), "cudaEventSynchronize(relocation buffer)"));
      const std::size_t grown = std::max(bytes, 2 * bytes_);
      if (data_ != nullptr) cudaFree(data_);
      data_ = nullptr;
      bytes_ = 0;
      GEMMTUNE_RETURN_IF_ERROR(check(cudaMalloc(&data_, grown), "cudaMalloc(relocation buffer)"));
      bytes_ = grown;
    }
    GEMMTUNE_RETURN_IF_ERROR(
        check(cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), free_, 0), "cudaStreamWaitEvent(relocation)"));
    return lock;
  }
  Status finish(void* stream) {
    return check(cudaEventRecord(free_, static_cast<cudaStream_t>(stream)), "cudaEventRecord(relocation)");
  }
  void* data() const { return data_; }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  cudaEvent_t free_ = nullptr;  // recorded after each call
  std::mutex mutex_;
};

class CudaOperandRelocation final : public OperandRelocation {
 public:
  explicit CudaOperandRelocation(const CudaInfo& device) : device_(device) {}

  Status run(const Problem& problem, const GemmArgs& args, std::uintptr_t grid_mask,
             const std::function<Status(const GemmArgs&)>& kernel) override {
    // The operands that move: off the grid, read (k > 0), and within the cap. Each copy starts
    // at a multiple of 256 bytes.
    struct Moved {
      std::size_t offset = 0;
      PaddedCopyShape shape;
    };
    std::array<std::optional<Moved>, 2> moved;
    std::size_t bytes = 0;
    const std::array<const void*, 2> callers = {args.a, args.b};
    const PaddedOperands operands = padded_operands(problem);
    for (std::size_t i = 0; i < 2 && problem.k() > 0; ++i) {
      if ((reinterpret_cast<std::uintptr_t>(callers[i]) & grid_mask) == 0) continue;
      // The caller's own leading dimension, both sides: the copy is the operand, elsewhere.
      WgmmaOperand operand = i == 0 ? operands.a : operands.b;
      if (operand.caller_ld != 0) operand.ld = operand.caller_ld;
      operand.caller_ld = operand.ld;
      const std::int64_t copy_bytes = padded_copy_bytes(operand);
      if (copy_bytes == 0 || copy_bytes > kMaxRelocatedOperandBytes) continue;
      moved[i] = Moved{bytes, padded_copy_shape(operand)};
      bytes += std::size_t((copy_bytes + 255) / 256 * 256);
    }
    if (bytes == 0) return kernel(args);

    int current = -1;
    if (cudaGetDevice(&current) != cudaSuccess || current != device_.index) {
      GEMMTUNE_RETURN_IF_ERROR(check(cudaSetDevice(device_.index), "cudaSetDevice"));
    }
    GEMMTUNE_ASSIGN_OR_RETURN(CUfunction copy_kernel, pad_copy_function(device_));
    GEMMTUNE_ASSIGN_OR_RETURN(std::unique_lock<std::mutex> turn, scratch_.begin(bytes, args.stream));
    GemmArgs moved_args = args;
    Status status = Status::ok();
    for (auto [i, operand] : {std::pair{0, &moved_args.a}, std::pair{1, &moved_args.b}}) {
      if (!moved[i] || !status.is_ok()) continue;
      void* copy = static_cast<char*>(scratch_.data()) + moved[i]->offset;
      status = enqueue_pad_copy(copy_kernel, moved[i]->shape, *operand, copy, args.stream, device_.sm_count);
      *operand = copy;
      moved_args.operands_just_written = true;
    }
    if (status.is_ok()) status = kernel(moved_args);
    // The turn is given back (its event recorded) whatever failed, so that a later call on
    // another stream never waits on an older one's event.
    const Status given_back = scratch_.finish(args.stream);
    return status.is_ok() ? given_back : status;
  }

 private:
  CudaInfo device_;
  GrowingScratch scratch_;
};

}  // namespace

std::unique_ptr<OperandRelocation> make_operand_relocation(const CudaInfo& device) {
  return std::make_unique<CudaOperandRelocation>(device);
}

}  // namespace gemmtune::cuda
