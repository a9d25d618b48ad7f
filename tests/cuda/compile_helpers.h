// Compiling many instantiations at once in tests, and checking a cubin's machine code.
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <fstream>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backends/cuda/nvrtc_backend.h"
#include "cuda/h100.h"

namespace gemmtune::cuda::testing {

struct CompileJob {
  Problem problem;
  KernelConfig config;
};

struct CompileOutcome {
  Result<CubinArtifact> artifact = Status(ErrorCode::internal, "not run");
};

using CompileFunction = Result<CubinArtifact> (*)(const Problem&, const KernelConfig&, const CudaInfo&, bool);

// NVRTC takes 0.3-6 s per instantiation; the jobs run on all cores. `compile` is a family's
// compile function (compile_gemm_mma by default).
inline std::vector<CompileOutcome> compile_all(const std::vector<CompileJob>& jobs, const CudaInfo& device,
                                               CompileFunction compile = &compile_gemm_mma) {
  std::vector<CompileOutcome> outcomes(jobs.size());
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < jobs.size(); i = next++) {
      outcomes[i].artifact = compile(jobs[i].problem, jobs[i].config, device, false);
    }
  };
  const unsigned threads = std::max(2u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
  return outcomes;
}

// cuobjdump, when the toolkit has it.
inline std::string find_cuobjdump() {
  for (const char* path : {"/usr/local/cuda/bin/cuobjdump", "/usr/bin/cuobjdump"}) {
    if (std::ifstream(path).good()) return path;
  }
  return "";
}

// The SASS listing of a cubin ("" when cuobjdump is missing or fails).
inline std::string sass_of(const std::string& cubin, const std::string& cuobjdump) {
  if (cuobjdump.empty()) return "";
  static std::atomic<int> counter{0};
  const std::string path = "/tmp/gemmtune_sass_" + std::to_string(getpid()) + "_" + std::to_string(counter++) + ".cubin";
  std::ofstream(path, std::ios::binary).write(cubin.data(), std::streamsize(cubin.size()));
  std::string listing;
  if (FILE* pipe = popen((cuobjdump + " -sass " + path + " 2>&1").c_str(), "r")) {
    char buffer[4096];
    while (std::size_t got = fread(buffer, 1, sizeof buffer, pipe)) listing.append(buffer, got);
    pclose(pipe);
  }
  std::remove(path.c_str());
  return listing;
}

// A cubin is an ELF image that names the GEMM kernel.
inline bool looks_like_gemm_cubin(const std::string& cubin) {
  return cubin.size() > 4 && cubin.compare(0, 4, "\x7f" "ELF") == 0 && cubin.find("gemmtune_gemm") != std::string::npos;
}

// Compiles every job with `compile` (on all cores, into a fresh cubin cache) and checks each
// cubin: an ELF naming the kernel and, where the toolkit has cuobjdump, SASS with `opcode` and
// no local-memory spills. Returns how many compiled.
inline int expect_all_compile(const std::vector<CompileJob>& jobs, const char* opcode,
                              CompileFunction compile = &compile_gemm_mma) {
  EXPECT_FALSE(jobs.empty());
  use_fresh_cubin_cache();
  const auto outcomes = compile_all(jobs, h100(), compile);
  const std::string cuobjdump = find_cuobjdump();
  if (cuobjdump.empty()) {
    std::printf("note: no cuobjdump in this toolkit; checking only that each cubin is an ELF naming the kernel, "
                "not that its SASS has %s\n", opcode);
  }
  int compiled = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const std::string what = jobs[i].config.to_string() + " for " + jobs[i].problem.describe();
    EXPECT_TRUE(outcomes[i].artifact.is_ok()) << what << ": " << outcomes[i].artifact.status().message();
    if (!outcomes[i].artifact.is_ok()) continue;
    const std::string& cubin = outcomes[i].artifact->cubin;
    EXPECT_TRUE(looks_like_gemm_cubin(cubin)) << what;
    if (!cuobjdump.empty()) {
      const std::string sass = sass_of(cubin, cuobjdump);
      EXPECT_NE(sass.find(opcode), std::string::npos) << what << " has no " << opcode << " in its SASS";
      EXPECT_EQ(sass.find("LDL"), std::string::npos) << what << " spills to local memory";
    }
    ++compiled;
  }
  return compiled;
}

}  // namespace gemmtune::cuda::testing
