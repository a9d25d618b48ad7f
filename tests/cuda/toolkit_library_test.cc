// cuBLASLt and NVRTC are opened on first use, not linked (toolkit_library.h): a process that
// never asks for them does not pay their load-time set-up (0.13 s and 12 ms of CPU). Needs only
// the toolkit's libraries, no GPU. Each test runs in its own process (ctest), so "not yet
// loaded" holds at each test's start.
#include <gtest/gtest.h>

#include <cuda_runtime_api.h>

#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "backends/cuda/cublaslt_library.h"
#include "backends/cuda/nvrtc_library.h"
#include "gemmtune/session.h"

namespace gemmtune::cuda {
namespace {

// Whether the process has a library whose file name contains `name` mapped.
bool mapped(const char* name) {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find(name) != std::string::npos) return true;
  }
  return false;
}

// How many of `entries` are set.
int resolved(const std::vector<const void*>& entries) {
  int count = 0;
  for (const void* entry : entries) count += entry != nullptr;
  return count;
}

TEST(CublasLtLibrary, IsNotMappedUntilFirstAskedForThenResolvesEveryEntryPoint) {
  EXPECT_FALSE(mapped("libcublasLt.so")) << "libcublasLt is loaded before anything asked for it (linked again?)";
  auto api = cublaslt_api();
  ASSERT_TRUE(api.is_ok()) << api.status().message();
  EXPECT_TRUE(mapped("libcublasLt.so"));
  const CublasLtApi& lt = **api;
  EXPECT_EQ(resolved({(const void*)lt.create, (const void*)lt.get_version, (const void*)lt.status_name,
                      (const void*)lt.status_string, (const void*)lt.desc_create, (const void*)lt.desc_destroy,
                      (const void*)lt.desc_set, (const void*)lt.layout_create, (const void*)lt.layout_destroy,
                      (const void*)lt.preference_create, (const void*)lt.preference_destroy,
                      (const void*)lt.preference_set, (const void*)lt.heuristic, (const void*)lt.algo_get,
                      (const void*)lt.matmul}),
            15);
  // The library loaded is the major version of the headers built against.
  EXPECT_EQ(int(lt.get_version() / 10000), CUBLAS_VER_MAJOR);
  // Loaded once: a second call returns the same table.
  EXPECT_EQ(*cublaslt_api(), &lt);
}

TEST(CublasLtLibrary, StatusesAreNamedByTheLibraryAndSuccessIsOk) {
  EXPECT_TRUE(check(CUBLAS_STATUS_SUCCESS, "cublasLtMatmul").is_ok());
  const Status failed = check(CUBLAS_STATUS_NOT_SUPPORTED, "cublasLtMatmul");
  EXPECT_FALSE(failed.is_ok());
  EXPECT_NE(failed.message().find("cublasLtMatmul: CUBLAS_STATUS_NOT_SUPPORTED"), std::string::npos) << failed.message();
}

// The table's calls reach the library: a matmul descriptor is a host object (no GPU needed),
// and the backend's plan creates one first.
TEST(CublasLtLibrary, DescriptorsNeedNoGpu) {
  auto api = cublaslt_api();
  ASSERT_TRUE(api.is_ok()) << api.status().message();
  cublasLtMatmulDesc_t desc = nullptr;
  ASSERT_TRUE(check((*api)->desc_create(&desc, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate").is_ok());
  const cublasOperation_t transpose = CUBLAS_OP_T;
  EXPECT_TRUE(check((*api)->desc_set(desc, CUBLASLT_MATMUL_DESC_TRANSA, &transpose, sizeof transpose), "set TRANSA")
                  .is_ok());
  EXPECT_TRUE(check((*api)->desc_destroy(desc), "cublasLtMatmulDescDestroy").is_ok());
}

TEST(NvrtcLibrary, IsNotMappedUntilFirstAskedForThenResolvesEveryEntryPoint) {
  EXPECT_FALSE(mapped("libnvrtc.so")) << "libnvrtc is loaded before anything asked for it (linked again?)";
  auto api = nvrtc_api();
  ASSERT_TRUE(api.is_ok()) << api.status().message();
  EXPECT_TRUE(mapped("libnvrtc.so"));
  const NvrtcApi& nvrtc = **api;
  EXPECT_EQ(resolved({(const void*)nvrtc.version, (const void*)nvrtc.error_string, (const void*)nvrtc.create_program,
                      (const void*)nvrtc.destroy_program, (const void*)nvrtc.compile_program,
                      (const void*)nvrtc.log_size, (const void*)nvrtc.log, (const void*)nvrtc.cubin_size,
                      (const void*)nvrtc.cubin}),
            9);
  int major = 0, minor = -1;
  EXPECT_EQ(nvrtc.version(&major, &minor), NVRTC_SUCCESS);
  EXPECT_EQ(major, CUDART_VERSION / 1000);
  EXPECT_GE(minor, 0);
  EXPECT_EQ(*nvrtc_api(), &nvrtc);
}

TEST(NvrtcLibrary, ResultsAreNamedByTheLibraryAndSuccessIsOk) {
  EXPECT_TRUE(check(NVRTC_SUCCESS, "nvrtcCompileProgram").is_ok());
  const Status failed = check(NVRTC_ERROR_COMPILATION, "nvrtcCompileProgram");
  EXPECT_FALSE(failed.is_ok());
  EXPECT_NE(failed.message().find("nvrtcCompileProgram: NVRTC_ERROR_COMPILATION"), std::string::npos)
      << failed.message();
}

// What a CPU-only program does, start to finish: a session on the CPU tunes and runs a product
// without mapping either library.
TEST(ToolkitLibraries, ACpuSessionNeverMapsCublasLtOrNvrtc) {
  if (mapped("libcublasLt.so") || mapped("libnvrtc.so")) {
    GTEST_SKIP() << "an earlier test of this process loaded them; ctest runs this test alone";
  }
  SessionOptions options;
  options.device = "cpu";
  auto session = Session::create(options);
  ASSERT_TRUE(session.is_ok()) << session.status().message();
  const Problem p = *Problem::create(16, 16, 16, DType::f32);
  std::vector<float> a(16 * 16, 1.0f), b(16 * 16, 2.0f), c(16 * 16, 0.0f);
  ASSERT_TRUE((*session)->gemm(p, a.data(), b.data(), c.data()).is_ok());
  EXPECT_FLOAT_EQ(c[0], 32.0f);
  EXPECT_FALSE(mapped("libcublasLt.so"));
  EXPECT_FALSE(mapped("libnvrtc.so"));
}

}  // namespace
}  // namespace gemmtune::cuda
