// A JIT-compiled kernel loaded for use: the CUDA driver calls the NVRTC families make, and a
// module in the device's primary context (the one the runtime API, and so the caller's streams
// and buffers, use).
//
// The driver API is resolved through the runtime (cudaGetDriverEntryPointByVersion) rather than
// linked: linking libcuda would stop the library, and every program using it, from even
// starting on a machine without a driver, such as CI's.
#pragma once

#include <cuda.h>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>

#include "../../core/backend.h"
#include "gemmtune/status.h"
#include "nvrtc_compiler.h"
#include "worker_client.h"

namespace gemmtune::cuda {

struct DriverApi {
  decltype(&::cuGetErrorName) get_error_name = nullptr;
  decltype(&::cuCtxGetCurrent) ctx_get_current = nullptr;
  decltype(&::cuCtxSetCurrent) ctx_set_current = nullptr;
  decltype(&::cuModuleLoadData) module_load_data = nullptr;
  decltype(&::cuModuleUnload) module_unload = nullptr;
  decltype(&::cuModuleGetFunction) module_get_function = nullptr;
  decltype(&::cuFuncSetAttribute) func_set_attribute = nullptr;
  decltype(&::cuLaunchKernel) launch_kernel = nullptr;
  decltype(&::cuLaunchKernelEx) launch_kernel_ex = nullptr;
  decltype(&::cuOccupancyMaxActiveClusters) occupancy_max_active_clusters = nullptr;
  decltype(&::cuOccupancyMaxActiveBlocksPerMultiprocessor) occupancy_max_active_blocks = nullptr;
  Status status;  // why an entry point is missing, if one is
};

// The driver's entry points, resolved once.
const DriverApi& driver();

// A CUresult as Status, naming the call.
Status check_driver(CUresult code, const char* what);

// Enqueues `function` on `stream` (grid x × y, 1-D blocks), with `overlapped` as programmatic
// stream serialization: the kernel may start while the previous one in the stream drains, and
// must itself wait (griddepcontrol.wait) before it touches that kernel's memory.
Status enqueue_launch(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned threads, unsigned shared_bytes,
                     CUstream stream, void** params, bool overlapped, const char* what);

// One module and the kernels taken from it, unloaded with the object.
class CudaModule {
 public:
  CudaModule() = default;
  CudaModule(const CudaModule&) = delete;
  CudaModule& operator=(const CudaModule&) = delete;
  ~CudaModule();

  // Loads `cubin` into device `device_index`'s primary context.
  Status load(int device_index, const std::string& cubin);
  // A kernel of the module; `dynamic_shared_bytes` above the default 48 KB is opted into.
  Result<CUfunction> function(const char* name, std::int64_t dynamic_shared_bytes = 0);
  // Makes the module's context current on this thread (a no-op when it already is).
  Status make_current() const;

 private:
  CUcontext context_ = nullptr;
  CUmodule module_ = nullptr;
};

// A kernel of a JIT family: it carries where its prepare went, for the tuning report.
class JitKernel : public Kernel {
 public:
  PrepareTimes prepare_times() const override { return prepare_times_; }
  void set_prepare_times(const PrepareTimes& times) { prepare_times_ = times; }

 private:
  PrepareTimes prepare_times_;
};

// The prepare of a JIT family's kernel: its cubin (cache or NVRTC, through `compile`), a first
// run in the worker process unless the worker passed this cubin on this problem before (a
// crash or hang there cannot poison this process's context), then `load` into a kernel object
// made by `make`. A cached cubin that passed its checksum yet fails to load for another reason
// than `unsupported` (written by another driver's NVRTC under the same key, say) is dropped and
// compiled afresh.
template <class K>
Result<std::unique_ptr<Kernel>> prepare_jit_kernel(const CudaInfo& device, const Problem& problem,
                                                   const KernelConfig& config, const std::string& backend,
                                                   const std::function<Result<CubinArtifact>(bool)>& compile,
                                                   const std::function<std::unique_ptr<K>()>& make) {
  static_assert(std::is_base_of_v<JitKernel, K>);
  using Clock = std::chrono::steady_clock;
  auto seconds_since = [](Clock::time_point start) { return std::chrono::duration<double>(Clock::now() - start).count(); };
  Kernel::PrepareTimes times;
  auto start = Clock::now();
  GEMMTUNE_ASSIGN_OR_RETURN(CubinArtifact artifact, compile(false));
  times.compile_s = seconds_since(start);
  if (!in_worker()) {
    start = Clock::now();
    GEMMTUNE_RETURN_IF_ERROR(verify_in_worker(device.index, problem, backend, config, artifact.key));
    times.check_s = seconds_since(start);
  }
  std::unique_ptr<K> kernel = make();
  Status loaded = kernel->load(device, artifact.cubin);
  // An `unsupported` load refuses the problem (no cluster of the kernel fits, CUTLASS's own
  // check of the instance), not the bytes: building them again would be refused again.
  if (!loaded.is_ok() && artifact.from_cache && loaded.code() != ErrorCode::unsupported) {
    forget_cubin(artifact.key);
    start = Clock::now();
    GEMMTUNE_ASSIGN_OR_RETURN(artifact, compile(true));
    times.compile_s += seconds_since(start);
    kernel = make();
    loaded = kernel->load(device, artifact.cubin);
  }
  GEMMTUNE_RETURN_IF_ERROR(loaded);
  kernel->set_prepare_times(times);
  return std::unique_ptr<Kernel>(std::move(kernel));
}

// Device scratch a kernel needs between its launches (split-k partial sums, counters), shared by
// every run of one kernel object. Runs on different streams take turns: each waits for the
// previous run's completion event before it launches and records its own after, so no two
// runs use the scratch at once; the host side holds a lock only around the enqueue.
class SerializedScratch {
 public:
  SerializedScratch() = default;
  SerializedScratch(const SerializedScratch&) = delete;
  SerializedScratch& operator=(const SerializedScratch&) = delete;
  ~SerializedScratch();

  // Allocates `bytes` (zeroed), and the completion event. No-op for 0 bytes.
  Status allocate(std::size_t bytes);
  void* data() const { return data_; }
  std::size_t bytes() const { return bytes_; }

  // A run's turn on `stream`: the returned lock is held until the run is enqueued and
  // finish() recorded. With `at_least` past what it holds, the scratch first grows (to twice
  // its size or more, zeroed): the last run's event is waited for, as a run on another stream
  // may still use the old one.
  Result<std::unique_lock<std::mutex>> begin(void* stream, std::size_t at_least = 0);
  Status finish(void* stream);

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
  void* free_ = nullptr;  // cudaEvent_t recorded after each run
  std::mutex mutex_;
};

}  // namespace gemmtune::cuda

