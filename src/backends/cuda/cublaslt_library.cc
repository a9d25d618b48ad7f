#include "cublaslt_library.h"

#include <dlfcn.h>

#include <type_traits>
#include <utility>

namespace gemmtune::cuda {
namespace {

#ifndef GEMMTUNE_CUBLASLT_DIR
#define GEMMTUNE_CUBLASLT_DIR ""
#endif

const std::string kSoname = "libcublasLt.so." + std::to_string(CUBLAS_VER_MAJOR);

struct Loaded {
  CublasLtApi api;
  std::string error;  // empty when every entry point resolved
};

// dlopen by soname, then by the build's toolkit folder; "" and the handle, or the reason.
std::pair<void*, std::string> open_library() {
  if (void* handle = dlopen(kSoname.c_str(), RTLD_NOW | RTLD_LOCAL)) return {handle, ""};
  std::string error = dlerror();
  const std::string dir = GEMMTUNE_CUBLASLT_DIR;
  if (!dir.empty()) {
    const std::string path = dir + "/" + kSoname;
    if (void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) return {handle, ""};
    error += "; " + std::string(dlerror());
  }
  return {nullptr, "cannot load cuBLASLt (" + kSoname + "): " + error};
}

Loaded load() {
  Loaded loaded;
  auto [handle, error] = open_library();
  if (handle == nullptr) {
    loaded.error = error;
    return loaded;
  }
  auto resolve = [&](auto& entry, const char* symbol) {
    entry = reinterpret_cast<std::remove_reference_t<decltype(entry)>>(dlsym(handle, symbol));
    if (entry == nullptr && loaded.error.empty()) loaded.error = kSoname + " has no " + symbol;
  };
  CublasLtApi& api = loaded.api;
  resolve(api.create, "cublasLtCreate");
  resolve(api.get_version, "cublasLtGetVersion");
  resolve(api.status_name, "cublasLtGetStatusName");
  resolve(api.status_string, "cublasLtGetStatusString");
  resolve(api.desc_create, "cublasLtMatmulDescCreate");
  resolve(api.desc_destroy, "cublasLtMatmulDescDestroy");
  resolve(api.desc_set, "cublasLtMatmulDescSetAttribute");
  resolve(api.layout_create, "cublasLtMatrixLayoutCreate");
  resolve(api.layout_destroy, "cublasLtMatrixLayoutDestroy");
  resolve(api.preference_create, "cublasLtMatmulPreferenceCreate");
  resolve(api.preference_destroy, "cublasLtMatmulPreferenceDestroy");
  resolve(api.preference_set, "cublasLtMatmulPreferenceSetAttribute");
  resolve(api.heuristic, "cublasLtMatmulAlgoGetHeuristic");
  resolve(api.algo_get, "cublasLtMatmulAlgoConfigGetAttribute");
  resolve(api.matmul, "cublasLtMatmul");
  // A library missing an entry point is not used at all (it stays mapped: closing a library
  // whose initialisers ran is not worth the risk for a process that will not use it).
  return loaded;
}

const Loaded& loaded() {
  static const Loaded library = load();
  return library;
}

}  // namespace

Result<const CublasLtApi*> cublaslt_api() {
  if (!loaded().error.empty()) return Status(ErrorCode::unavailable, loaded().error);
  return &loaded().api;
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
