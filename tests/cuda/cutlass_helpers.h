// What the cutlass family's tests share: skipping where the family is absent, one cache of built
// objects for every test process, and the family's compile function in the tests' form.
#pragma once

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

#include "backends/cuda/cutlass_backend.h"

namespace gemmtune::cuda::testing {

// Skips the test, naming why, where gemmtune knows no CUTLASS or nvcc (cutlass_setup()).
#define SKIP_WITHOUT_CUTLASS()                                                               \
  do {                                                                                       \
    auto setup_ = cutlass_setup();                                                           \
    if (!setup_.is_ok()) GTEST_SKIP() << "cutlass family absent: " << setup_.status().message(); \
  } while (0)

// Points the cubin cache at one folder that the cutlass tests share between processes and runs:
// $GEMMTUNE_CUTLASS_TEST_CACHE, else /tmp/gemmtune_cutlass_objects. Entries are named by
// content, so a kept object is one nvcc would build again byte for byte.
inline std::string use_cutlass_objects_cache() {
  const char* given = std::getenv("GEMMTUNE_CUTLASS_TEST_CACHE");
  const std::string dir = given != nullptr && *given != '\0' ? given : "/tmp/gemmtune_cutlass_objects";
  setenv("GEMMTUNE_CUBIN_CACHE", dir.c_str(), 1);
  return dir;
}

inline Result<CubinArtifact> compile_cutlass(const Problem& p, const KernelConfig& c, const CudaInfo& device,
                                             bool recompile) {
  GEMMTUNE_ASSIGN_OR_RETURN(CutlassSetup setup, cutlass_setup());
  return compile_gemm_cutlass(p, c, device, setup, recompile);
}

}  // namespace gemmtune::cuda::testing
