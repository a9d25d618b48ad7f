// What every GPU test file needs: whether a device is there (CI has none: the tests skip with a
// notice), a session on it that tunes quickly, and a problem's operands on the device, checked
// against the host reference.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <thread>
#include <vector>

#include "core/reference_gemm.h"
#include "core/test_buffers.h"
#include "core/verify.h"
#include "gemmtune/session.h"

namespace gemmtune {

inline bool have_gpu() {
  int count = 0;
  const bool ok = cudaGetDeviceCount(&count) == cudaSuccess && count > 0;
  cudaGetLastError();
  return ok;
}

#define REQUIRE_GPU()                                                                              \
  if (!have_gpu()) GTEST_SKIP() << "no CUDA device: GPU tests run on a GPU machine (scripts/gpu-check)"

inline SessionOptions gpu_options() {
  SessionOptions options;
  options.device = "cuda:0";
  options.tuning.timing.samples = 3;
  options.tuning.timing.min_sample_ms = 0.2;
  return options;
}

// A device buffer freed with its owner.
struct DeviceBytes {
  explicit DeviceBytes(std::size_t bytes) { EXPECT_EQ(cudaMalloc(&ptr, bytes), cudaSuccess); }
  ~DeviceBytes() { cudaFree(ptr); }
  DeviceBytes(const DeviceBytes&) = delete;
  DeviceBytes& operator=(const DeviceBytes&) = delete;
  void* ptr = nullptr;
};

// Where a problem's operands lie on the device: each this many bytes past cudaMalloc's 256-byte
// aligned start (a view into a larger buffer).
struct OperandOffsets {
  std::size_t a = 0, b = 0, c = 0;
};

// A problem's random operands (TestBuffers) copied to the device, C with its guard bytes; check()
// copies C back and compares it with the host reference.
class DeviceOperands {
 public:
  DeviceOperands(const Problem& problem, std::uint64_t seed, OperandOffsets offsets = {})
      : problem_(problem),
        host_(problem, seed),
        reference_(compute_reference(problem, host_)),
        offsets_(offsets),
        a_(offsets.a + a_bytes() + 1),
        b_(offsets.b + b_bytes() + 1),
        c_(offsets.c + host_.c_bytes_with_guards()) {
    cudaMemcpy(a(), host_.a(), a_bytes(), cudaMemcpyHostToDevice);
    cudaMemcpy(b(), host_.b(), b_bytes(), cudaMemcpyHostToDevice);
    cudaMemcpy(c_guarded(), host_.c_with_guards(), host_.c_bytes_with_guards(), cudaMemcpyHostToDevice);
  }
  void* a() const { return static_cast<std::uint8_t*>(a_.ptr) + offsets_.a; }
  void* b() const { return static_cast<std::uint8_t*>(b_.ptr) + offsets_.b; }
  void* c() { return c_guarded() + TestBuffers::kGuardBytes; }  // inside the guards
  // Call after the device has finished writing C.
  VerifyOutcome check() {
    cudaMemcpy(host_.c_with_guards(), c_guarded(), host_.c_bytes_with_guards(), cudaMemcpyDeviceToHost);
    return check_output(problem_, host_, reference_);
  }

 private:
  std::uint8_t* c_guarded() { return static_cast<std::uint8_t*>(c_.ptr) + offsets_.c; }
  std::size_t a_bytes() const { return std::size_t(problem_.a_elements()) * dtype_size(problem_.a_type()); }
  std::size_t b_bytes() const { return std::size_t(problem_.b_elements()) * dtype_size(problem_.b_type()); }
  Problem problem_;
  TestBuffers host_;
  Reference reference_;
  OperandOffsets offsets_;
  DeviceBytes a_, b_, c_;
};

// `threads` threads at once, each with a stream of its own, each making `calls` calls
// call(thread, stream) until one fails; each thread's last status, after its stream finished.
inline std::vector<Status> call_from_threads(int threads, int calls,
                                             const std::function<Status(int, cudaStream_t)>& call) {
  std::vector<Status> last(std::size_t(threads), Status::ok());
  std::vector<std::thread> running;
  for (int t = 0; t < threads; ++t) {
    running.emplace_back([&, t] {
      cudaStream_t stream = nullptr;
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      for (int i = 0; i < calls && last[std::size_t(t)].is_ok(); ++i) last[std::size_t(t)] = call(t, stream);
      cudaStreamSynchronize(stream);
      cudaStreamDestroy(stream);
    });
  }
  for (std::thread& thread : running) thread.join();
  return last;
}

}  // namespace gemmtune
