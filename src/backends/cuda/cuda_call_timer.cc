// A pair of CUDA events per timed call (core/device_call_timer.h). Recording an event costs
// about a microsecond of the host's time; only a route's first watched calls pay it.
#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "../../core/device_call_timer.h"
#include "cuda_backends.h"
#include "cuda_check.h"

namespace gemmtune::cuda {
namespace {

// Makes `index` the current device while alive, and restores the caller's.
class CurrentDevice {
 public:
  explicit CurrentDevice(int index) {
    if (cudaGetDevice(&previous_) != cudaSuccess) previous_ = -1;
    if (previous_ != index) cudaSetDevice(index);
  }
  ~CurrentDevice() {
    if (previous_ >= 0) cudaSetDevice(previous_);
  }
  CurrentDevice(const CurrentDevice&) = delete;
  CurrentDevice& operator=(const CurrentDevice&) = delete;

 private:
  int previous_ = -1;
};

class CudaCallTimer final : public DeviceCallTimer {
 public:
  CudaCallTimer(int device, std::int64_t slots)
      : device_(device), slots_(std::size_t(slots)), state_(new std::atomic<int>[std::size_t(slots)]) {
    for (std::size_t s = 0; s < slots_.size(); ++s) state_[s].store(kFree, std::memory_order_relaxed);
  }
  ~CudaCallTimer() override {
    CurrentDevice current(device_);
    for (Slot& slot : slots_) {
      if (slot.start) cudaEventDestroy(slot.start);
      if (slot.stop) cudaEventDestroy(slot.stop);
    }
  }

  Status create_events() {
    CurrentDevice current(device_);
    for (Slot& slot : slots_) {
      GEMMTUNE_RETURN_IF_ERROR(check(cudaEventCreate(&slot.start), "cudaEventCreate"));
      GEMMTUNE_RETURN_IF_ERROR(check(cudaEventCreate(&slot.stop), "cudaEventCreate"));
    }
    return Status::ok();
  }

  void begin(std::int64_t slot, void* stream) override {
    if (slot < 0 || std::size_t(slot) >= slots_.size()) return;
    int expected = kFree;
    if (!state_[slot].compare_exchange_strong(expected, kBegun, std::memory_order_acq_rel)) return;
    auto s = static_cast<cudaStream_t>(stream);
    cudaStreamCaptureStatus capture = cudaStreamCaptureStatusNone;
    if (cudaStreamIsCapturing(s, &capture) != cudaSuccess || capture != cudaStreamCaptureStatusNone ||
        cudaEventRecord(slots_[std::size_t(slot)].start, s) != cudaSuccess) {
      cudaGetLastError();  // a failed record is this timer's, not the program's next call's
      state_[slot].store(kFailed, std::memory_order_release);
    }
  }

  void end(std::int64_t slot, void* stream) override {
    if (slot < 0 || std::size_t(slot) >= slots_.size()) return;
    if (state_[slot].load(std::memory_order_acquire) != kBegun) return;
    if (cudaEventRecord(slots_[std::size_t(slot)].stop, static_cast<cudaStream_t>(stream)) != cudaSuccess) {
      cudaGetLastError();
      state_[slot].store(kFailed, std::memory_order_release);
      return;
    }
    state_[slot].store(kEnded, std::memory_order_release);
  }

  std::int64_t elapsed_ns(std::int64_t slot) override {
    if (slot < 0 || std::size_t(slot) >= slots_.size()) return 0;
    if (state_[slot].load(std::memory_order_acquire) != kEnded) return 0;
    const Slot& events = slots_[std::size_t(slot)];
    float ms = 0;
    if (cudaEventSynchronize(events.stop) != cudaSuccess || cudaEventElapsedTime(&ms, events.start, events.stop) != cudaSuccess) {
      cudaGetLastError();
      return 0;
    }
    // Events resolve about half a microsecond; a call that ran still counts as 1 ns.
    return std::max<std::int64_t>(1, std::int64_t(double(ms) * 1e6));
  }

 private:
  static constexpr int kFree = 0, kBegun = 1, kEnded = 2, kFailed = 3;
  struct Slot {
    cudaEvent_t start = nullptr, stop = nullptr;
  };
  int device_;
  std::vector<Slot> slots_;
  std::unique_ptr<std::atomic<int>[]> state_;
};

}  // namespace

Result<std::unique_ptr<DeviceCallTimer>> make_cuda_call_timer(const DeviceInfo& device, std::int64_t slots) {
  if (slots < 1) return invalid_argument("a call timer needs at least one slot (got " + std::to_string(slots) + ")");
  auto timer = std::make_unique<CudaCallTimer>(device.cuda.index, slots);
  GEMMTUNE_RETURN_IF_ERROR(timer->create_events());
  return std::unique_ptr<DeviceCallTimer>(std::move(timer));
}

}  // namespace gemmtune::cuda
