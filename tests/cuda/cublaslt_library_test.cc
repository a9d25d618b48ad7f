// cuBLASLt is opened on first use, not linked (cublaslt_library.h): a process that never asks
// for it does not pay its load-time initialisers (~0.13 s of CPU). Needs only the toolkit's
// libraries, no GPU. Each test runs in its own process (ctest), so "not yet loaded" holds at
// each test's start.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "backends/cuda/cublaslt_library.h"

namespace gemmtune::cuda {
namespace {

// Whether the process has libcublasLt mapped.
bool cublaslt_mapped() {
  std::ifstream maps("/proc/self/maps");
  std::string line;
  while (std::getline(maps, line)) {
    if (line.find("libcublasLt.so") != std::string::npos) return true;
  }
  return false;
}

TEST(CublasLtLibrary, IsNotMappedUntilFirstAskedForThenResolvesEveryEntryPoint) {
  EXPECT_FALSE(cublaslt_mapped()) << "libcublasLt is loaded before anything asked for it (linked again?)";
  auto api = cublaslt_api();
  ASSERT_TRUE(api.is_ok()) << api.status().message();
  EXPECT_TRUE(cublaslt_mapped());
  const CublasLtApi& lt = **api;
  int resolved = 0;
  for (const void* entry : {(const void*)lt.create, (const void*)lt.get_version, (const void*)lt.status_name,
                            (const void*)lt.status_string, (const void*)lt.desc_create, (const void*)lt.desc_destroy,
                            (const void*)lt.desc_set, (const void*)lt.layout_create, (const void*)lt.layout_destroy,
                            (const void*)lt.preference_create, (const void*)lt.preference_destroy,
                            (const void*)lt.preference_set, (const void*)lt.heuristic, (const void*)lt.algo_get,
                            (const void*)lt.matmul}) {
    EXPECT_NE(entry, nullptr) << "entry point " << resolved;
    resolved += entry != nullptr;
  }
  EXPECT_EQ(resolved, 15);
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

}  // namespace
}  // namespace gemmtune::cuda
