// Compiling many instantiations at once in tests, and checking a cubin's machine code.
#pragma once

#include <gtest/gtest.h>

#include <nvrtc.h>

#include <atomic>
#include <cctype>
#include <cstdio>
#include <fstream>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "backends/cuda/mma_backend.h"
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

// Runs body(i) for i in [0, count) on all cores (NVRTC takes 0.3-6 s per instantiation).
inline void for_each_on_all_cores(std::size_t count, const std::function<void(std::size_t)>& body) {
  std::atomic<std::size_t> next{0};
  auto worker = [&] {
    for (std::size_t i = next++; i < count; i = next++) body(i);
  };
  const unsigned threads = std::max(2u, std::thread::hardware_concurrency());
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(worker);
  for (std::thread& t : pool) t.join();
}

// `compile` is a family's compile function (compile_gemm_mma by default).
inline std::vector<CompileOutcome> compile_all(const std::vector<CompileJob>& jobs, const CudaInfo& device,
                                               CompileFunction compile = &compile_gemm_mma) {
  std::vector<CompileOutcome> outcomes(jobs.size());
  for_each_on_all_cores(jobs.size(), [&](std::size_t i) {
    outcomes[i].artifact = compile(jobs[i].problem, jobs[i].config, device, false);
  });
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

// One instantiation as its family's compile function would build it: the source and NVRTC
// options, compiled here with ptxas's report (-v) on, which the cubin cache does not keep.
struct PtxasJob {
  std::string what, source;
  std::vector<std::string> options;
};

// What ptxas says of the kernel: registers a thread (-1 when the log has no such line) and the
// bytes of stack frame and spills.
struct PtxasUsage {
  bool compiled = false;
  std::string cubin, log;
  int registers = -1;
  int stack_bytes = -1, spill_store_bytes = -1, spill_load_bytes = -1;
};

// The number that ends one space before `label` in a ptxas log ("0 bytes spill stores"), or -1.
inline int ptxas_number(const std::string& log, const char* label) {
  const std::size_t at = log.find(label);
  if (at == std::string::npos || at < 2) return -1;
  std::size_t begin = at - 1;  // the space before the label
  while (begin > 0 && std::isdigit(static_cast<unsigned char>(log[begin - 1]))) --begin;
  return begin == at - 1 ? -1 : std::stoi(log.substr(begin, at - 1 - begin));
}

inline PtxasUsage ptxas_usage(const PtxasJob& job) {
  PtxasUsage usage;
  nvrtcProgram program;
  if (nvrtcCreateProgram(&program, job.source.c_str(), "ptxas_usage.cu", 0, nullptr, nullptr) != NVRTC_SUCCESS) {
    return usage;
  }
  std::vector<const char*> options;
  for (const std::string& o : job.options) options.push_back(o.c_str());
  options.push_back("--ptxas-options=-v");
  usage.compiled = nvrtcCompileProgram(program, int(options.size()), options.data()) == NVRTC_SUCCESS;
  std::size_t size = 0;
  nvrtcGetProgramLogSize(program, &size);
  usage.log.resize(size);
  if (size > 0) nvrtcGetProgramLog(program, usage.log.data());
  if (!usage.log.empty()) usage.log.pop_back();  // the terminating NUL
  if (usage.compiled && nvrtcGetCUBINSize(program, &size) == NVRTC_SUCCESS) {
    usage.cubin.resize(size);
    nvrtcGetCUBIN(program, usage.cubin.data());
  }
  nvrtcDestroyProgram(&program);
  usage.registers = ptxas_number(usage.log, "registers");
  usage.stack_bytes = ptxas_number(usage.log, "bytes stack frame");
  usage.spill_store_bytes = ptxas_number(usage.log, "bytes spill stores");
  usage.spill_load_bytes = ptxas_number(usage.log, "bytes spill loads");
  return usage;
}

// Whether ptxas serialised the kernel's wgmma instructions ("Potential Performance Loss:
// wgmma.mma_async instructions are serialized", C7510-C7514): the kernel still runs, slower.
// Reading an accumulator register in inline assembly before the kernel's last wgmma wait did
// it once (2026-11-27-h100-compile-time.md): 10-35 % slower, with no spill to show for it.
inline bool wgmma_serialized(const std::string& log) {
  return log.find("wgmma.mma_async instructions are serialized") != std::string::npos;
}

// Compiles every job on all cores and checks what ptxas reports: a cubin naming the kernel,
// registers reported, no stack frame, no spills and no serialised wgmma. Prints one line a job
// (registers, spills); returns how many passed.
inline int expect_no_spills(const std::vector<PtxasJob>& jobs) {
  std::vector<PtxasUsage> usages(jobs.size());
  for_each_on_all_cores(jobs.size(), [&](std::size_t i) { usages[i] = ptxas_usage(jobs[i]); });
  int passed = 0;
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    const PtxasUsage& u = usages[i];
    std::printf("%-70s %3d registers, %d bytes stack, %d/%d bytes spilled (stores/loads)\n", jobs[i].what.c_str(),
                u.registers, u.stack_bytes, u.spill_store_bytes, u.spill_load_bytes);
    EXPECT_TRUE(u.compiled) << jobs[i].what << ": " << u.log.substr(0, 2000);
    EXPECT_TRUE(looks_like_gemm_cubin(u.cubin)) << jobs[i].what;
    EXPECT_GT(u.registers, 0) << jobs[i].what << ": no register count in the ptxas log\n" << u.log;
    EXPECT_EQ(u.stack_bytes, 0) << jobs[i].what << "\n" << u.log;
    EXPECT_EQ(u.spill_store_bytes, 0) << jobs[i].what << "\n" << u.log;
    EXPECT_EQ(u.spill_load_bytes, 0) << jobs[i].what << "\n" << u.log;
    EXPECT_FALSE(wgmma_serialized(u.log)) << jobs[i].what << "\n" << u.log;
    if (u.compiled && u.registers > 0 && u.stack_bytes == 0 && u.spill_store_bytes == 0 && u.spill_load_bytes == 0 &&
        !wgmma_serialized(u.log)) {
      ++passed;
    }
  }
  return passed;
}

}  // namespace gemmtune::cuda::testing
