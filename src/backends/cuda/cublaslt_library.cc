#include "cublaslt_library.h"

#include "toolkit_library.h"

namespace gemmtune::cuda {
namespace {

const std::string kCublasLtSoname = "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR);

LoadedApi<CublasLtApi> load_cublaslt() {
  ToolkitLibrary library = open_toolkit_library(kCublasLtSoname);
  CublasLtApi api;
  resolve(library, api.create, "cublasLtCreate");
  resolve(library, api.get_version, "cublasLtGetVersion");
  resolve(library, api.status_name, "cublasLtGetStatusName");
  resolve(library, api.status_string, "cublasLtGetStatusString");
  resolve(library, api.desc_create, "cublasLtMatmulDescCreate");
  resolve(library, api.desc_destroy, "cublasLtMatmulDescDestroy");
  resolve(library, api.desc_set, "cublasLtMatmulDescSetAttribute");
  resolve(library, api.layout_create, "cublasLtMatrixLayoutCreate");
  resolve(library, api.layout_destroy, "cublasLtMatrixLayoutDestroy");
  resolve(library, api.preference_create, "cublasLtMatmulPreferenceCreate");
  resolve(library, api.preference_destroy, "cublasLtMatmulPreferenceDestroy");
  resolve(library, api.preference_set, "cublasLtMatmulPreferenceSetAttribute");
  resolve(library, api.heuristic, "cublasLtMatmulAlgoGetHeuristic");
  resolve(library, api.algo_get, "cublasLtMatmulAlgoConfigGetAttribute");
  resolve(library, api.matmul, "cublasLtMatmul");
  // A library missing an entry point is not used at all. It stays mapped: closing a library
  // whose initialisers ran is not worth the risk for a process that will not use it.
  return {api, library.error};
}

}  // namespace

Result<const CublasLtApi*> cublaslt_api() {
  static const LoadedApi<CublasLtApi> library = load_cublaslt();
  return usable(library);
}

Status check(cublasStatus_t code, const char* what) {
  if (code == CUBLAS_STATUS_SUCCESS) return Status::ok();
  std::string name = "cuBLAS status " + std::to_string(int(code));
  if (auto api = cublaslt_api(); api.is_ok()) {
    name = std::string((*api)->status_name(code)) + " (" + (*api)->status_string(code) + ")";
  }
  return Status(ErrorCode::unsupported, std::string(what) + ": " + name);
}

}  // namespace gemmtune::cuda
