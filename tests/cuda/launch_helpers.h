// Running a backend's kernels on the GPU against the host reference, for the launch tests of
// the NVRTC families. Tests using these skip themselves where the machine has no CUDA device.
#pragma once

#include <cuda_runtime.h>
#include <gtest/gtest.h>

#include <functional>
#include <memory>
#include <thread>

#include "core/backend.h"
#include "core/test_buffers.h"
#include "core/verify.h"
#include "cuda/compile_helpers.h"
#include "cuda/h100.h"

namespace gemmtune::cuda::testing {

#define SKIP_WITHOUT_GPU()                                          \
  do {                                                              \
    int count = 0;                                                  \
    if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {  \
      cudaGetLastError();                                           \
      GTEST_SKIP() << "no CUDA device";                             \
    }                                                               \
  } while (0)

// The Hopper families' tests: a compute capability 9 device.
#define SKIP_WITHOUT_HOPPER()                                                         \
  SKIP_WITHOUT_GPU();                                                                 \
  do {                                                                                \
    auto device_ = find_device("cuda:0");                                             \
    if (!device_.is_ok() || device_->cuda.cc_major != 9) GTEST_SKIP() << "not Hopper"; \
  } while (0)

struct DeviceBuffer {
  void* ptr = nullptr;
  explicit DeviceBuffer(std::size_t bytes) { cudaMalloc(&ptr, bytes == 0 ? 1 : bytes); }
  ~DeviceBuffer() { cudaFree(ptr); }
};

// Prepares each of `configs` (the first `max_configs` of the default space when empty; all
// when 0), runs it on random operands, and checks C against the host reference and its guard
// bytes. With `compile`, the configs are compiled in parallel first so that each prepare finds
// its cubin cached. With `launches` > 1 each kernel runs again on C set back to its first
// contents (NaN where beta is 0) and is checked each time: what a launch leaves behind (tile
// counters) must not change the next one. Returns how many configs ran and matched every time.
// The cubin cache is a fresh one unless `fresh_cache` is false (the cutlass family's objects take
// nvcc tens of seconds each and do not depend on the problem's size: its tests share one cache).
// `c_offset_bytes` moves C that far past the allocation's (256-byte aligned) start.
inline int run_and_verify(const Backend& backend, const Problem& p, std::size_t max_configs = 0,
                          std::vector<KernelConfig> configs = {}, CompileFunction compile = nullptr,
                          int launches = 1, bool fresh_cache = true, std::size_t c_offset_bytes = 0) {
  if (fresh_cache) use_fresh_cubin_cache();
  if (configs.empty()) configs = backend.configs(p, SearchSpace::default_space);
  EXPECT_FALSE(configs.empty()) << p.describe();
  if (max_configs != 0 && configs.size() > max_configs) configs.resize(max_configs);
  if (compile != nullptr) {
    std::vector<CompileJob> jobs;
    for (const KernelConfig& c : configs) jobs.push_back({p, c});
    auto device = find_device("cuda:0");
    if (device.is_ok()) compile_all(jobs, device->cuda, compile);
  }

  TestBuffers host(p, 42);
  const Reference reference = compute_reference(p, host);
  const std::size_t a_bytes = std::size_t(p.a_elements()) * dtype_size(p.a_type());
  const std::size_t b_bytes = std::size_t(p.b_elements()) * dtype_size(p.b_type());
  const std::size_t c_bytes = std::size_t(p.c_elements()) * dtype_size(p.c_type());
  DeviceBuffer a(a_bytes), b(b_bytes), c_allocation(c_bytes + c_offset_bytes);
  void* const c = static_cast<char*>(c_allocation.ptr) + c_offset_bytes;
  EXPECT_EQ(cudaMemcpy(a.ptr, host.a(), a_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(b.ptr, host.b(), b_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  int matched = 0;
  for (const KernelConfig& config : configs) {
    SCOPED_TRACE(config.to_string() + " on " + p.describe());
    auto kernel = backend.prepare(p, config);
    EXPECT_TRUE(kernel.is_ok()) << kernel.status().message();
    if (!kernel.is_ok()) continue;
    bool all_matched = true;
    for (int launch = 0; launch < launches; ++launch) {
      SCOPED_TRACE("launch " + std::to_string(launch + 1) + " of " + std::to_string(launches));
      host.reset_c();
      EXPECT_EQ(cudaMemcpy(c, host.c(), c_bytes, cudaMemcpyHostToDevice), cudaSuccess);
      GemmArgs args{a.ptr, b.ptr, c, nullptr};
      const Status ran = (*kernel)->run(args);
      EXPECT_TRUE(ran.is_ok()) << ran.message();
      EXPECT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      EXPECT_EQ(cudaMemcpy(host.c(), c, c_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
      const VerifyOutcome outcome = check_output(p, host, reference);
      EXPECT_TRUE(outcome.ok) << outcome.reason << " (error " << outcome.error << ")";
      EXPECT_EQ(host.check_guards(), "");
      all_matched = all_matched && ran.is_ok() && outcome.ok;
    }
    if (all_matched) ++matched;
  }
  return matched;
}

// Runs one kernel from `threads` host threads at once, each on a stream of its own with its own
// C, 20 times; checks each C. Returns how many threads' results matched.
inline int run_from_threads(Kernel& kernel, const Problem& p, int threads = 4) {
  TestBuffers host(p, 3);
  const Reference reference = compute_reference(p, host);
  const std::size_t a_bytes = std::size_t(p.a_elements()) * dtype_size(p.a_type());
  const std::size_t b_bytes = std::size_t(p.b_elements()) * dtype_size(p.b_type());
  const std::size_t c_bytes = std::size_t(p.c_elements()) * dtype_size(p.c_type());
  DeviceBuffer a(a_bytes), b(b_bytes);
  EXPECT_EQ(cudaMemcpy(a.ptr, host.a(), a_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  EXPECT_EQ(cudaMemcpy(b.ptr, host.b(), b_bytes, cudaMemcpyHostToDevice), cudaSuccess);
  std::vector<std::unique_ptr<DeviceBuffer>> outputs;
  for (int t = 0; t < threads; ++t) outputs.push_back(std::make_unique<DeviceBuffer>(c_bytes));
  std::vector<Status> statuses(static_cast<std::size_t>(threads), Status::ok());
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      cudaSetDevice(0);
      cudaStream_t stream = nullptr;
      cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
      for (int i = 0; i < 20 && statuses[t].is_ok(); ++i) statuses[t] = kernel.run({a.ptr, b.ptr, outputs[t]->ptr, stream});
      cudaStreamSynchronize(stream);
      cudaStreamDestroy(stream);
    });
  }
  for (std::thread& thread : pool) thread.join();
  int matched = 0;
  for (int t = 0; t < threads; ++t) {
    EXPECT_TRUE(statuses[t].is_ok()) << statuses[t].message();
    EXPECT_EQ(cudaMemcpy(host.c(), outputs[t]->ptr, c_bytes, cudaMemcpyDeviceToHost), cudaSuccess);
    const VerifyOutcome outcome = check_output(p, host, reference);
    EXPECT_TRUE(outcome.ok) << "thread " << t << ": " << outcome.reason;
    if (statuses[t].is_ok() && outcome.ok) ++matched;
  }
  return matched;
}

}  // namespace gemmtune::cuda::testing
