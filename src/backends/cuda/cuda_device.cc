// CUDA device detection: properties from the runtime, versions of driver, runtime and NVRTC.
#include "cuda_backends.h"
#include "cuda_check.h"
#include "launch_overlap.h"
#include "nvrtc_library.h"

namespace gemmtune::cuda {

Result<DeviceInfo> detect_device(int index, const CpuInfo& host) {
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    cudaGetLastError();  // clear the sticky "no device" error
    return Status(ErrorCode::unavailable, "device 'cuda:" + std::to_string(index) + "': no CUDA device");
  }
  if (index < 0 || index >= count) {
    return Status(ErrorCode::not_found, "device 'cuda:" + std::to_string(index) + "': only " +
                                            std::to_string(count) + " CUDA device(s)");
  }
  GEMMTUNE_RETURN_IF_ERROR(check_launch_overlap_env());
  cudaDeviceProp prop{};
  GEMMTUNE_RETURN_IF_ERROR(check(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties"));
  DeviceInfo device;
  device.kind = DeviceKind::cuda;
  device.name = "cuda:" + std::to_string(index);
  device.cpu = host;
  CudaInfo& c = device.cuda;
  c.index = index;
  c.name = prop.name;
  c.cc_major = prop.major;
  c.cc_minor = prop.minor;
  c.sm_count = prop.multiProcessorCount;
  c.l2_bytes = prop.l2CacheSize;
  c.global_memory_bytes = std::int64_t(prop.totalGlobalMem);
  c.shared_memory_per_block_optin = std::int64_t(prop.sharedMemPerBlockOptin);
  c.shared_memory_per_sm = std::int64_t(prop.sharedMemPerMultiprocessor);
  c.registers_per_block = prop.regsPerBlock;
  c.registers_per_sm = prop.regsPerMultiprocessor;
  c.max_threads_per_block = prop.maxThreadsPerBlock;
  cudaDriverGetVersion(&c.driver_version);
  cudaRuntimeGetVersion(&c.runtime_version);
  // Left at 0.0 where NVRTC cannot be opened; the NVRTC families then say why themselves.
  if (auto nvrtc = nvrtc_api(); nvrtc.is_ok()) (*nvrtc)->version(&c.nvrtc_major, &c.nvrtc_minor);
  return device;
}

}  // namespace gemmtune::cuda
