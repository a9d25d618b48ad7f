// A synthetic H100 (SXM) as the CUDA backends see it, for tests that need no GPU.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <string>
#include <vector>

#include "gemmtune/device.h"
#include "gemmtune/problem.h"

namespace gemmtune::cuda::testing {

inline CudaInfo h100() {
  CudaInfo d;
  d.name = "NVIDIA H100 80GB HBM3 (synthetic)";
  d.cc_major = 9;
  d.cc_minor = 0;
  d.sm_count = 132;
  d.l2_bytes = 50 << 20;
  d.shared_memory_per_block_optin = 232448;  // 227 KiB
  d.shared_memory_per_sm = 233472;
  d.registers_per_block = 65536;
  d.registers_per_sm = 65536;
  d.max_threads_per_block = 1024;
  d.nvrtc_major = 13;
  return d;
}

// A problem of one input dtype with the output dtype, beta and ldc given; alpha 0.75 (1 for s8,
// which allows no other), TF32 allowed for f32.
inline Problem test_problem(std::int64_t m, std::int64_t n, std::int64_t k, DType type, const char* layout, DType out,
                            double beta, std::int64_t ldc = 0) {
  ProblemSpec spec = Problem::create(m, n, k, type, layout)->spec();
  spec.c_type = out;
  spec.beta = beta;
  spec.alpha = type == DType::s8 ? 1.0 : 0.75;
  spec.allow_tf32 = type == DType::f32;
  if (ldc != 0) spec.ldc = ldc;
  return *Problem::create(spec);
}

// A problem of one input dtype with the output dtype given; alpha 1, beta 0, packed.
inline Problem make_problem(std::int64_t m, std::int64_t n, std::int64_t k, DType type, const char* layout, DType out) {
  ProblemSpec spec = Problem::create(m, n, k, type, layout)->spec();
  spec.c_type = out;
  return *Problem::create(spec);
}

// An nt problem of `type` (s32 out for s8) with alpha -0.5 and beta 0.75 (1 and 1 for s8, which
// allows no other), its leading dimensions padded past k, k and n by multiples of 16 bytes.
inline Problem padded_with_alpha_beta(std::int64_t m, std::int64_t n, std::int64_t k, DType type) {
  ProblemSpec spec = test_problem(m, n, k, type, "nt", type == DType::s8 ? DType::s32 : type, 1.0).spec();
  spec.lda = k + 64;
  spec.ldb = k + 128;
  spec.ldc = n + 8;
  spec.alpha = type == DType::s8 ? 1.0 : -0.5;
  spec.beta = type == DType::s8 ? 1.0 : 0.75;
  return *Problem::create(spec);
}


// Directories made by use_fresh_cubin_cache, removed when the test process exits.
struct TempDirs {
  std::mutex mutex;
  std::vector<std::string> paths;
  ~TempDirs() {
    std::error_code ignored;
    for (const std::string& path : paths) std::filesystem::remove_all(path, ignored);
  }
};

// Points the cubin cache at a fresh directory for this test process.
inline std::string use_fresh_cubin_cache() {
  static TempDirs made;
  char pattern[] = "/tmp/gemmtune_cubins_XXXXXX";
  const char* dir = mkdtemp(pattern);
  std::string path = dir != nullptr ? dir : "/tmp/gemmtune_cubins_fallback";
  setenv("GEMMTUNE_CUBIN_CACHE", path.c_str(), 1);
  std::lock_guard<std::mutex> lock(made.mutex);
  made.paths.push_back(path);
  return path;
}

}  // namespace gemmtune::cuda::testing
