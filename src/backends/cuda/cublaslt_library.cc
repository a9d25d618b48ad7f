#include "cublaslt_library.h"

#include "toolkit_library.h"

namespace gemmtune::cuda {
namespace {

const std::string kSoname = "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR);

LoadedApi<CublasLtApi> load() {
  ToolkitLibrary library = open_toolkit_library(kSoname);
  CublasLtApi api;
  resolve(library, kSoname, api.create, "cublasLtCreate");
  resolve(library, kSoname, api.get_version, "cublasLtGetVersion");
  resolve(library, kSoname, api.status_name, "cublasLtGetStatusName");
  resolve(library, kSoname, api.status_string, "cublasLtGetStatusString");
  resolve(library, kSoname, api.desc_create, "cublasLtMatmulDescCreate");
  resolve(library, kSoname, api.desc_destroy, "cublasLtMatmulDescDestroy");
  resolve(library, kSoname, api.desc_set, "cublasLtMatmulDescSetAttribute");
  resolve(library, kSoname, api.layout_create, "cublasLtMatrixLayoutCreate");
  resolve(library, kSoname, api.layout_destroy, "cublasLtMatrixLayoutDestroy");
  resolve(library, kSoname, api.preference_create, "cublasLtMatmulPreferenceCreate");
  resolve(library, kSoname, api.preference_destroy, "cublasLtMatmulPreferenceDestroy");
  resolve(library, kSoname, api.preference_set, "cublasLtMatmulPreferenceSetAttribute");
  resolve(library, kSoname, api.heuristic, "cublasLtMatmulAlgoGetHeuristic");
  resolve(library, kSoname, api.algo_get, "cublasLtMatmulAlgoConfigGetAttribute");
  resolve(library, kSoname, api.matmul, "cublasLtMatmul");
  // A library missing an entry point is not used at all. It stays mapped: closing a library
  // whose initialisers ran is not worth the risk for a process that will not use it.
  return {api, library.error};
}

}  // namespace

Result<const CublasLtApi*> cublaslt_api() {
  static const LoadedApi<CublasLtApi> library = load();
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
