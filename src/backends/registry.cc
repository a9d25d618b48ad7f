// The one place backends are registered. The order is the tie-break order of the autotuner:
// among choices within the noise band of the fastest, the earliest wins.
#include "../core/backend.h"
#include "../core/harness.h"
#include "cpu/cpu_backends.h"

namespace gemmtune {

BackendList create_backends(const DeviceInfo& device) {
  BackendList backends;
  if (device.kind == DeviceKind::cpu) {
    backends.push_back(cpu::make_cpu_template_backend(device.cpu));
#ifdef GEMMTUNE_HAVE_ONEDNN
    backends.push_back(cpu::make_onednn_backend(device.cpu));
#endif
#ifdef GEMMTUNE_HAVE_OPENBLAS
    backends.push_back(cpu::make_openblas_backend());
#endif
    backends.push_back(cpu::make_reference_backend());
  }
  return backends;
}

Result<std::unique_ptr<Harness>> create_harness(const DeviceInfo& device) {
  if (device.kind == DeviceKind::cpu) return make_host_harness();
  return unsupported("no harness for device " + device.name + " in this build");
}

std::vector<BackendAvailability> compiled_backends(DeviceKind kind) {
  std::vector<BackendAvailability> list;
  if (kind == DeviceKind::cpu) {
    list.push_back({"cpu", true, "gemmtune's own kernels"});
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
    list.push_back({"reference", true, "double-accumulating loop; the verifier"});
  } else {
    list.push_back({"cublaslt", false, "CUDA backend not in this build"});
    list.push_back({"cuda", false, "CUDA backend not in this build"});
  }
  return list;
}

}  // namespace gemmtune
