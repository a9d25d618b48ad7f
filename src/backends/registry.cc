// The one place backends are registered. The order is the tie-break order of the autotuner:
// among choices within the noise band of the fastest, the earliest wins.
#include "../core/backend.h"
#include "../core/device_call_timer.h"
#include "../core/harness.h"
#include "../core/operand_relocation.h"
#include "gemmtune/session.h"  // compiled_backends
#include "cpu/cpu_backends.h"
#ifdef GEMMTUNE_HAVE_CPU_KERNELS
#include "cpu/cpu_kernel_levels.h"
#endif
#ifdef GEMMTUNE_HAVE_CUDA
#include "cuda/cuda_backends.h"
#endif

namespace gemmtune {

BackendList create_backends(const DeviceInfo& device) {
  BackendList backends;
  if (device.kind == DeviceKind::cpu) {
#ifdef GEMMTUNE_HAVE_CPU_KERNELS
    backends.push_back(cpu::make_cpu_template_backend(device.cpu));
    backends.push_back(cpu::make_amx_backend(device.cpu));
#endif
#ifdef GEMMTUNE_HAVE_ONEDNN
    backends.push_back(cpu::make_onednn_backend(device.cpu));
#endif
#ifdef GEMMTUNE_HAVE_OPENBLAS
    backends.push_back(cpu::make_openblas_backend());
#endif
#ifdef GEMMTUNE_HAVE_LIBXSMM
    backends.push_back(cpu::make_libxsmm_backend());
#endif
    backends.push_back(cpu::make_reference_backend());
  }
#ifdef GEMMTUNE_HAVE_CUDA
  if (device.kind == DeviceKind::cuda) {
    backends.push_back(cuda::make_cublaslt_backend(device.cuda));
    backends.push_back(cuda::make_wgmma_backend(device.cuda));
    backends.push_back(cuda::make_skinny_backend(device.cuda));
    // Present when gemmtune knows where CUTLASS and nvcc are (compiled_backends says why not).
    if (auto cutlass = cuda::make_cutlass_backend(device.cuda); cutlass.is_ok()) backends.push_back(std::move(*cutlass));
    backends.push_back(cuda::make_mma_backend(device.cuda));
  }
#endif
  return backends;
}

Result<std::unique_ptr<Harness>> create_harness(const DeviceInfo& device) {
  if (device.kind == DeviceKind::cpu) return make_host_harness();
#ifdef GEMMTUNE_HAVE_CUDA
  return cuda::make_cuda_harness(device);
#else
  return unsupported("no harness for device " + device.name + " in this build");
#endif
}

std::unique_ptr<OperandRelocation> create_operand_relocation(const DeviceInfo& device) {
#ifdef GEMMTUNE_HAVE_CUDA
  if (device.kind == DeviceKind::cuda) return cuda::make_operand_relocation(device.cuda);
#endif
  (void)device;
  return nullptr;
}

Result<std::unique_ptr<DeviceCallTimer>> create_device_call_timer(const DeviceInfo& device, std::int64_t slots) {
  if (device.kind == DeviceKind::cpu) return unsupported("the CPU's calls are timed by the host's clock, not a device call timer");
#ifdef GEMMTUNE_HAVE_CUDA
  return cuda::make_cuda_call_timer(device, slots);
#else
  (void)slots;
  return unsupported("no call timer for device " + device.name + " in this build");
#endif
}

Result<DeviceInfo> detect_cuda_device(int index) {
#ifdef GEMMTUNE_HAVE_CUDA
  return cuda::detect_device(index, host_cpu());
#else
  return Status(ErrorCode::unavailable,
                "device 'cuda:" + std::to_string(index) + "': this build has no CUDA backends (toolkit not found)");
#endif
}

std::vector<BackendAvailability> compiled_backends(DeviceKind kind) {
  std::vector<BackendAvailability> list;
  if (kind == DeviceKind::cpu) {
#ifdef GEMMTUNE_HAVE_CPU_KERNELS
    list.push_back({"cpu", true, "gemmtune's own kernels; " + cpu::compiled_isas_note()});
    list.push_back({"amx", true, cpu::amx_availability_note()});
#else
    list.push_back({"cpu", false, "not built (GEMMTUNE_WITH_CPU_KERNELS=OFF: a GPU-only build)"});
    list.push_back({"amx", false, "not built (GEMMTUNE_WITH_CPU_KERNELS=OFF: a GPU-only build)"});
#endif
#ifdef GEMMTUNE_HAVE_ONEDNN
    list.push_back({"onednn", true, "oneDNN matmul primitive"});
#else
    list.push_back({"onednn", false, "not built (GEMMTUNE_WITH_ONEDNN=OFF or oneDNN not found)"});
#endif
#ifdef GEMMTUNE_HAVE_OPENBLAS
    list.push_back({"openblas", true, "OpenBLAS cblas_sgemm"});
#else
    list.push_back({"openblas", false, "not built (GEMMTUNE_WITH_OPENBLAS=OFF or OpenBLAS not found)"});
#endif
#ifdef GEMMTUNE_HAVE_LIBXSMM
    list.push_back({"libxsmm", true, "libxsmm JIT small-matrix kernels (f32)"});
#else
    list.push_back({"libxsmm", false, "not built (GEMMTUNE_WITH_LIBXSMM=OFF or libxsmm not found)"});
#endif
    list.push_back({"reference", true, "double-accumulating loop; the verifier"});
  } else {
#ifdef GEMMTUNE_HAVE_CUDA
    list.push_back({"cublaslt", true, "cuBLASLt, its top heuristic algorithms as choices"});
    list.push_back({"wgmma", true, "gemmtune's NVRTC-compiled Hopper templates (TMA, wgmma; sm_90a)"});
    list.push_back({"skinny", true, "gemmtune's NVRTC-compiled kernels for m <= 64 (weights streamed, split k in one launch; gemv for m <= 8)"});
    if (auto setup = cuda::cutlass_setup(); setup.is_ok()) {
      list.push_back({"cutlass", true, "CUTLASS " + setup->version + " SM90 GEMMs (sm_90a), built by nvcc at tuning time from " +
                                           setup->cutlass_dir});
    } else {
      list.push_back({"cutlass", false, setup.status().message()});
    }
    list.push_back({"mma", true, "gemmtune's NVRTC-compiled tensor-core templates (mma.sync); on Hopper only where wgmma cannot map the problem, or in the exhaustive space"});
#else
    list.push_back({"cublaslt", false, "not built (CUDA toolkit not found or GEMMTUNE_WITH_CUDA=OFF)"});
    list.push_back({"wgmma", false, "not built (CUDA toolkit not found or GEMMTUNE_WITH_CUDA=OFF)"});
    list.push_back({"skinny", false, "not built (CUDA toolkit not found or GEMMTUNE_WITH_CUDA=OFF)"});
    list.push_back({"cutlass", false, "not built (CUDA toolkit not found or GEMMTUNE_WITH_CUDA=OFF)"});
    list.push_back({"mma", false, "not built (CUDA toolkit not found or GEMMTUNE_WITH_CUDA=OFF)"});
#endif
  }
  return list;
}

}  // namespace gemmtune
