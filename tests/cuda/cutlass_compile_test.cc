// The cutlass family's build path without a GPU: nvcc builds an instance against the CUTLASS
// headers into a shared object exporting gemmtune's C interface, the cache returns it the
// second time, and nvcc's own error reaches the caller. Skipped, with the reason, where
// gemmtune knows no CUTLASS or nvcc. One build takes nvcc 40-60 s of one core.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <fstream>

#include "backends/cuda/cutlass_config_space.h"
#include "backends/cuda/kernels/cutlass_abi.h"
#include "cuda/cutlass_helpers.h"
#include "cuda/h100.h"

namespace gemmtune::cuda {
namespace {

using testing::h100;

Problem make(std::int64_t m, std::int64_t n, std::int64_t k, DType type, const char* layout, DType out) {
  return testing::make_problem(m, n, k, type, layout, out);
}

// The names `object` exports of gemmtune's interface, found by loading it.
int exported_functions(const std::string& object) {
  const std::string path = "/tmp/gemmtune_cutlass_test_" + std::to_string(getpid()) + ".so";
  std::ofstream(path, std::ios::binary).write(object.data(), std::streamsize(object.size()));
  void* handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::remove(path.c_str());
  EXPECT_NE(handle, nullptr) << dlerror();
  if (handle == nullptr) return 0;
  int found = 0;
  for (const char* name : {"gemmtune_cutlass_abi", "gemmtune_cutlass_create", "gemmtune_cutlass_workspace_bytes",
                           "gemmtune_cutlass_run", "gemmtune_cutlass_destroy"}) {
    found += dlsym(handle, name) != nullptr;
  }
  auto abi = reinterpret_cast<GtCutlassAbiFn>(dlsym(handle, "gemmtune_cutlass_abi"));
  if (abi != nullptr) EXPECT_EQ(abi(), GT_CUTLASS_ABI);
  dlclose(handle);
  return found;
}

TEST(CutlassCompile, AnS8InstanceBuildsOnceAndServesEveryProblemSizeFromTheCache) {
  SKIP_WITHOUT_CUTLASS();
  testing::use_fresh_cubin_cache();
  const auto setup = cutlass_setup();
  const Problem p = make(4096, 4096, 4096, DType::s8, "nt", DType::s32);
  const KernelConfig c = cutlass_list_config({128, 128, false, 2, 1, false}, DType::s8);
  const auto start = std::chrono::steady_clock::now();
  auto first = compile_gemm_cutlass(p, c, h100(), *setup);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_TRUE(first.is_ok()) << first.status().message();
  EXPECT_FALSE(first->from_cache);
  std::printf("nvcc built %s for %s in %.1f s (%zu bytes)\n", c.to_string().c_str(), p.describe().c_str(), seconds,
              first->cubin.size());
  EXPECT_EQ(first->cubin.substr(0, 4), "\x7f" "ELF");
  EXPECT_EQ(exported_functions(first->cubin), 5);
  // The instance does not depend on the problem's size: another shape finds it cached.
  auto other = compile_gemm_cutlass(make(300, 14336, 4096, DType::s8, "nt", DType::s32), c, h100(), *setup);
  ASSERT_TRUE(other.is_ok()) << other.status().message();
  EXPECT_TRUE(other->from_cache);
  EXPECT_EQ(other->key, first->key);
  EXPECT_EQ(other->cubin, first->cubin);
  // A config the family refuses is refused before nvcc runs.
  KernelConfig bad = c;
  bad.block_n = 120;
  const auto refused = compile_gemm_cutlass(p, bad, h100(), *setup);
  ASSERT_FALSE(refused.is_ok());
  EXPECT_NE(refused.status().message().find("steps of 16"), std::string::npos) << refused.status().message();
}

TEST(CutlassCompile, NvccsOwnErrorReachesTheCaller) {
  SKIP_WITHOUT_CUTLASS();
  testing::use_fresh_cubin_cache();
  const auto setup = cutlass_setup();
  const auto built = obtain_cutlass_object(*setup, "#error gemmtune test: no such instance\n",
                                           cutlass_nvcc_options(*setup, {}, "sm_90a"));
  ASSERT_FALSE(built.is_ok());
  EXPECT_EQ(built.status().code(), ErrorCode::unsupported);
  EXPECT_NE(built.status().message().find("nvcc failed"), std::string::npos) << built.status().message();
  EXPECT_NE(built.status().message().find("no such instance"), std::string::npos) << built.status().message();
}

}  // namespace
}  // namespace gemmtune::cuda
