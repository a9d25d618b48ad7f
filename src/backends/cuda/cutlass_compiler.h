// Building the cutlass family's shared objects: where CUTLASS and nvcc are, and one nvcc run
// per instance (kernels/gemm_cutlass.cuh with the instance's macros), through the content-
// addressed cache the NVRTC families use. Thread-safe: the tuner prepares several configs at
// once, and each compile is its own nvcc process, so they run in parallel.
#pragma once

#include <string>
#include <vector>

#include "gemmtune/status.h"
#include "nvrtc_compiler.h"  // CubinArtifact

namespace gemmtune::cuda {

// Where the family's tools are: $GEMMTUNE_CUTLASS_DIR, else the CMake setting
// GEMMTUNE_CUTLASS_DIR the library was built with (a CUTLASS checkout or its headers: the folder
// holding include/cutlass); $GEMMTUNE_NVCC, else the toolkit's nvcc found at build time.
struct CutlassSetup {
  std::string cutlass_dir;
  std::string nvcc;
  std::string version;  // CUTLASS's, from include/cutlass/version.h ("4.7.0")
};

// The setup, or why the family is absent (no CUTLASS location given, no headers there, no nvcc).
Result<CutlassSetup> cutlass_setup();

// nvcc's options for an instance (its -D macros), the arch and the include paths.
std::vector<std::string> cutlass_nvcc_options(const CutlassSetup& setup, const std::vector<std::string>& defines,
                                              const std::string& arch);

// The shared object of `source` built with `options`, from the cache or from nvcc, stored for
// next time. The key covers the source, the options (not the include paths), nvcc's version
// and CUTLASS's version header. On failure the error carries the start of nvcc's output.
// ptxas's warning that wgmma instructions were serialized (C7510: the kernel would run at a
// fraction of its speed) fails the build too.
Result<CubinArtifact> obtain_cutlass_object(const CutlassSetup& setup, const std::string& source,
                                            const std::vector<std::string>& options, bool recompile = false);

}  // namespace gemmtune::cuda
