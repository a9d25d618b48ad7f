#include "nvrtc_library.h"

#include <cuda_runtime_api.h>

#include "toolkit_library.h"

namespace gemmtune::cuda {
namespace {

const std::string kNvrtcSoname = "libnvrtc.so." + std::to_string(CUDART_VERSION / 1000);

LoadedApi<NvrtcApi> load_nvrtc() {
  ToolkitLibrary library = open_toolkit_library(kNvrtcSoname);
  NvrtcApi api;
  resolve(library, api.version, "nvrtcVersion");
  resolve(library, api.error_string, "nvrtcGetErrorString");
  resolve(library, api.create_program, "nvrtcCreateProgram");
  resolve(library, api.destroy_program, "nvrtcDestroyProgram");
  resolve(library, api.compile_program, "nvrtcCompileProgram");
  resolve(library, api.log_size, "nvrtcGetProgramLogSize");
  resolve(library, api.log, "nvrtcGetProgramLog");
  resolve(library, api.cubin_size, "nvrtcGetCUBINSize");
  resolve(library, api.cubin, "nvrtcGetCUBIN");
  return {api, library.error};
}

}  // namespace

Result<const NvrtcApi*> nvrtc_api() {
  static const LoadedApi<NvrtcApi> library = load_nvrtc();
  return usable(library);
}

Status check(nvrtcResult code, const char* what) {
  if (code == NVRTC_SUCCESS) return Status::ok();
  std::string name = "NVRTC result " + std::to_string(int(code));
  if (auto api = nvrtc_api(); api.is_ok()) name = (*api)->error_string(code);
  return Status(ErrorCode::unsupported, std::string(what) + ": " + name);
}

}  // namespace gemmtune::cuda
