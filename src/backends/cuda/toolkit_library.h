// A CUDA toolkit library opened on first use (dlopen) instead of linked: cuBLASLt and NVRTC.
// Linked, each one's load-time set-up ran in every process that linked gemmtune, GPU or not:
// cuBLASLt 0.13 s of CPU and 210 MB, NVRTC 12 ms and 33 MB, on the 2-core Zen 3 VM
// (bench/results/2026-11-28-process-start.md).
#pragma once

#include <string>

#include "gemmtune/status.h"

namespace gemmtune::cuda {

// A library opened by soname (LD_LIBRARY_PATH, the caller's run path, the loader's cache),
// else from the CUDA toolkit folder of the build; the handle, or why neither worked.
struct ToolkitLibrary {
  std::string soname;
  void* handle = nullptr;
  std::string error;
};
ToolkitLibrary open_toolkit_library(const std::string& soname);

// `symbol`'s address in `library`, or null; the first symbol missing is named in library.error.
void* find_symbol(ToolkitLibrary& library, const char* symbol);

// Sets `entry` to `symbol` of `library` (null where it is missing).
template <class Entry>
void resolve(ToolkitLibrary& library, Entry& entry, const char* symbol) {
  entry = reinterpret_cast<Entry>(find_symbol(library, symbol));
}

// A table of entry points loaded once per process, and why it cannot be used ("" when it can).
template <class Api>
struct LoadedApi {
  Api api;
  std::string error;
};

template <class Api>
Result<const Api*> usable(const LoadedApi<Api>& loaded) {
  if (!loaded.error.empty()) return Status(ErrorCode::unavailable, loaded.error);
  return &loaded.api;
}

}  // namespace gemmtune::cuda
