#include "toolkit_library.h"

#include <dlfcn.h>

#ifndef GEMMTUNE_CUDA_LIBRARY_DIR
#define GEMMTUNE_CUDA_LIBRARY_DIR ""
#endif

namespace gemmtune::cuda {

ToolkitLibrary open_toolkit_library(const std::string& soname) {
  ToolkitLibrary library;
  library.soname = soname;
  if ((library.handle = dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL)) != nullptr) return library;
  std::string error = dlerror();
  const std::string dir = GEMMTUNE_CUDA_LIBRARY_DIR;
  if (!dir.empty()) {
    const std::string path = dir + "/" + soname;
    if ((library.handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL)) != nullptr) return library;
    error += "; " + std::string(dlerror());
  }
  library.error = "cannot load " + soname + ": " + error;
  return library;
}

void* find_symbol(ToolkitLibrary& library, const char* symbol) {
  if (library.handle == nullptr) return nullptr;
  void* address = dlsym(library.handle, symbol);
  if (address == nullptr && library.error.empty()) library.error = library.soname + " has no " + symbol;
  return address;
}

}  // namespace gemmtune::cuda
