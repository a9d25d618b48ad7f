#include "cuda_module.h"

#include <algorithm>

#include "cuda_check.h"

namespace gemmtune::cuda {
namespace {


template <class Fn>
Status resolve(const char* symbol, Fn& fn) {
  void* address = nullptr;
  cudaDriverEntryPointQueryResult found{};
  // 12000: the ABI version of these entry points (all unchanged since CUDA 12.0).
  GEMMTUNE_RETURN_IF_ERROR(check(cudaGetDriverEntryPointByVersion(symbol, &address, 12000, cudaEnableDefault, &found),
                                 "cudaGetDriverEntryPointByVersion"));
  if (found != cudaDriverEntryPointSuccess || address == nullptr) {
    return Status(ErrorCode::unavailable, std::string("the CUDA driver lacks ") + symbol);
  }
  fn = reinterpret_cast<Fn>(address);
  return Status::ok();
}

}  // namespace

const DriverApi& driver() {
  static const DriverApi api = [] {
    DriverApi d;
    for (Status s : {resolve("cuGetErrorName", d.get_error_name), resolve("cuCtxGetCurrent", d.ctx_get_current),
                     resolve("cuCtxSetCurrent", d.ctx_set_current), resolve("cuModuleLoadData", d.module_load_data),
                     resolve("cuModuleUnload", d.module_unload), resolve("cuModuleGetFunction", d.module_get_function),
                     resolve("cuFuncSetAttribute", d.func_set_attribute), resolve("cuLaunchKernel", d.launch_kernel),
                     resolve("cuLaunchKernelEx", d.launch_kernel_ex),
                     resolve("cuOccupancyMaxActiveClusters", d.occupancy_max_active_clusters),
                     resolve("cuOccupancyMaxActiveBlocksPerMultiprocessor", d.occupancy_max_active_blocks)}) {
      if (!s.is_ok() && d.status.is_ok()) d.status = s;
    }
    return d;
  }();
  return api;
}

Status check_driver(CUresult code, const char* what) {
  if (code == CUDA_SUCCESS) return Status::ok();
  const char* name = nullptr;
  if (driver().get_error_name != nullptr) driver().get_error_name(code, &name);
  return Status(ErrorCode::unavailable,
                std::string(what) + ": " + (name != nullptr ? name : "CUresult " + std::to_string(int(code))));
}

Status enqueue_launch(CUfunction function, unsigned grid_x, unsigned grid_y, unsigned threads, unsigned shared_bytes,
                     CUstream stream, void** params, bool overlapped, const char* what) {
  CUlaunchAttribute overlap{};
  overlap.id = CU_LAUNCH_ATTRIBUTE_PROGRAMMATIC_STREAM_SERIALIZATION;
  overlap.value.programmaticStreamSerializationAllowed = 1;
  CUlaunchConfig launch{};
  launch.gridDimX = grid_x;
  launch.gridDimY = grid_y;
  launch.gridDimZ = 1;
  launch.blockDimX = threads;
  launch.blockDimY = launch.blockDimZ = 1;
  launch.sharedMemBytes = shared_bytes;
  launch.hStream = stream;
  launch.attrs = overlapped ? &overlap : nullptr;
  launch.numAttrs = overlapped ? 1 : 0;
  return check_driver(driver().launch_kernel_ex(&launch, function, params, nullptr), what);
}

CudaModule::~CudaModule() {
  if (module_ == nullptr) return;
  if (context_ != nullptr) driver().ctx_set_current(context_);
  driver().module_unload(module_);
}

Status CudaModule::load(int device_index, const std::string& cubin) {
  GEMMTUNE_RETURN_IF_ERROR(check(cudaSetDevice(device_index), "cudaSetDevice"));
  GEMMTUNE_RETURN_IF_ERROR(check(cudaFree(nullptr), "cudaFree(0) to create the primary context"));
  GEMMTUNE_RETURN_IF_ERROR(driver().status);
  GEMMTUNE_RETURN_IF_ERROR(check_driver(driver().ctx_get_current(&context_), "cuCtxGetCurrent"));
  return check_driver(driver().module_load_data(&module_, cubin.data()), "cuModuleLoadData");
}

Result<CUfunction> CudaModule::function(const char* name, std::int64_t dynamic_shared_bytes) {
  CUfunction fn = nullptr;
  GEMMTUNE_RETURN_IF_ERROR(check_driver(driver().module_get_function(&fn, module_, name), "cuModuleGetFunction"));
  // A block past 48 KB of shared memory in all must opt in per function, and the static part
  // (a kernel's own __shared__ variables) counts too: 48 KB of dynamic memory beside 4 static
  // bytes failed to launch. Opting in for any dynamic size covers both.
  if (dynamic_shared_bytes > 0) {
    GEMMTUNE_RETURN_IF_ERROR(check_driver(
        driver().func_set_attribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, int(dynamic_shared_bytes)),
        "cuFuncSetAttribute(max dynamic shared memory)"));
  }
  return fn;
}

Status CudaModule::make_current() const {
  CUcontext current = nullptr;
  if (driver().ctx_get_current(&current) == CUDA_SUCCESS && current == context_) return Status::ok();
  return check_driver(driver().ctx_set_current(context_), "cuCtxSetCurrent");
}

SerializedScratch::~SerializedScratch() {
  if (data_ != nullptr) cudaFree(data_);
  if (free_ != nullptr) cudaEventDestroy(static_cast<cudaEvent_t>(free_));
}

Status SerializedScratch::allocate(std::size_t bytes) {
  if (bytes == 0) return Status::ok();
  bytes_ = bytes;
  GEMMTUNE_RETURN_IF_ERROR(check(cudaMalloc(&data_, bytes), "cudaMalloc(kernel scratch)"));
  GEMMTUNE_RETURN_IF_ERROR(check(cudaMemset(data_, 0, bytes), "cudaMemset(kernel scratch)"));
  if (free_ == nullptr) {
    cudaEvent_t event = nullptr;
    GEMMTUNE_RETURN_IF_ERROR(check(cudaEventCreateWithFlags(&event, cudaEventDisableTiming), "cudaEventCreate(scratch)"));
    free_ = event;
  }
  return check(cudaDeviceSynchronize(), "zeroing kernel scratch");
}

Result<std::unique_lock<std::mutex>> SerializedScratch::begin(void* stream, std::size_t at_least) {
  std::unique_lock<std::mutex> lock(mutex_);
  if (at_least > bytes_) {
    if (free_ != nullptr) {
      GEMMTUNE_RETURN_IF_ERROR(check(cudaEventSynchronize(static_cast<cudaEvent_t>(free_)), "cudaEventSynchronize(scratch)"));
    }
    const std::size_t grown = std::max(at_least, 2 * bytes_);
    if (data_ != nullptr) cudaFree(data_);
    data_ = nullptr;
    bytes_ = 0;
    GEMMTUNE_RETURN_IF_ERROR(allocate(grown));
  }
  GEMMTUNE_RETURN_IF_ERROR(check(
      cudaStreamWaitEvent(static_cast<cudaStream_t>(stream), static_cast<cudaEvent_t>(free_), 0), "cudaStreamWaitEvent(scratch)"));
  return lock;
}

Status SerializedScratch::finish(void* stream) {
  return check(cudaEventRecord(static_cast<cudaEvent_t>(free_), static_cast<cudaStream_t>(stream)),
               "cudaEventRecord(scratch)");
}

}  // namespace gemmtune::cuda
