// NVRTC, opened on first use (toolkit_library.h) instead of linked: linked, it cost every
// process that linked gemmtune 12 ms of CPU and 33 MB before main, GPU or not
// (bench/results/2026-11-28-process-start.md). Now only a process that compiles a kernel or
// describes a CUDA device loads it.
#pragma once

#include <nvrtc.h>

#include "gemmtune/status.h"

namespace gemmtune::cuda {

// The entry points gemmtune calls, resolved from the loaded library.
struct NvrtcApi {
  decltype(&nvrtcVersion) version = nullptr;
  decltype(&nvrtcGetErrorString) error_string = nullptr;
  decltype(&nvrtcCreateProgram) create_program = nullptr;
  decltype(&nvrtcDestroyProgram) destroy_program = nullptr;
  decltype(&nvrtcCompileProgram) compile_program = nullptr;
  decltype(&nvrtcGetProgramLogSize) log_size = nullptr;
  decltype(&nvrtcGetProgramLog) log = nullptr;
  decltype(&nvrtcGetCUBINSize) cubin_size = nullptr;
  decltype(&nvrtcGetCUBIN) cubin = nullptr;
};

// libnvrtc.so.<major of the CUDA runtime built against>, loaded once per process, or why it
// could not be.
Result<const NvrtcApi*> nvrtc_api();

// An NVRTC result as a Status naming the call.
Status check(nvrtcResult code, const char* what);

}  // namespace gemmtune::cuda
