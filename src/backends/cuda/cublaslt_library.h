// cuBLASLt, opened on first use (toolkit_library.h) instead of linked.
//
// Linked, libcublasLt's load-time initialisers ran in every process that linked gemmtune, GPU
// or not, before main: 0.13 s of CPU, 25,000 more page faults and 210 MB more resident memory
// on the 2-core Zen 3 VM (bench/results/2026-11-28-process-start.md). A CPU-only program, a
// Python `import gemmtune` and every test process paid it; now only a process whose cublaslt
// backend is asked for configs or a version does, once.
#pragma once

#include <cublasLt.h>

#include <string>

#include "gemmtune/status.h"

namespace gemmtune::cuda {

// The entry points the cublaslt backend calls, resolved from the loaded library.
struct CublasLtApi {
  decltype(&cublasLtCreate) create = nullptr;
  decltype(&cublasLtGetVersion) get_version = nullptr;
  decltype(&cublasLtGetStatusName) status_name = nullptr;
  decltype(&cublasLtGetStatusString) status_string = nullptr;
  decltype(&cublasLtMatmulDescCreate) desc_create = nullptr;
  decltype(&cublasLtMatmulDescDestroy) desc_destroy = nullptr;
  decltype(&cublasLtMatmulDescSetAttribute) desc_set = nullptr;
  decltype(&cublasLtMatrixLayoutCreate) layout_create = nullptr;
  decltype(&cublasLtMatrixLayoutDestroy) layout_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceCreate) preference_create = nullptr;
  decltype(&cublasLtMatmulPreferenceDestroy) preference_destroy = nullptr;
  decltype(&cublasLtMatmulPreferenceSetAttribute) preference_set = nullptr;
  decltype(&cublasLtMatmulAlgoGetHeuristic) heuristic = nullptr;
  decltype(&cublasLtMatmulAlgoConfigGetAttribute) algo_get = nullptr;
  decltype(&cublasLtMatmul) matmul = nullptr;
};

// The library of the toolkit gemmtune was built with (libcublasLt.so.<major>), loaded once per
// process, or why it could not be.
Result<const CublasLtApi*> cublaslt_api();

// A cuBLASLt status as a Status naming the call; the names come from the library when loaded.
Status check(cublasStatus_t code, const char* what);

}  // namespace gemmtune::cuda
