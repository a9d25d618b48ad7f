#include "nvrtc_compiler.h"

#include <atomic>
#include <cstdio>
#include <semaphore>

#include "../../core/usable_cpus.h"
#include "cubin_cache.h"
#include "nvrtc_library.h"

namespace gemmtune::cuda {
namespace {

// NVRTC logs of a broken template run to many kilobytes; the start names the first error.
constexpr std::size_t kLogChars = 2000;

std::atomic<std::uint64_t> compilations{0}, cache_hits{0}, corrupt_entries{0}, failures{0};

std::string nvrtc_version_text() {
  auto api = nvrtc_api();
  if (!api.is_ok()) return "unavailable";
  int major = 0, minor = 0;
  (*api)->version(&major, &minor);
  return std::to_string(major) + "." + std::to_string(minor);
}

// Owns an nvrtcProgram for the length of one compile.
struct Program {
  const NvrtcApi& api;
  nvrtcProgram handle = nullptr;
  ~Program() {
    if (handle != nullptr) api.destroy_program(&handle);
  }
};

// No more compiles at once than cores. The tuner's prepare pool has twice as many threads (some
// wait for the worker), and it hands out the costliest compiles first: with every compile
// running at once they all ran at a fraction of a core, and the longest finished last (a cold
// tuning of 1x4096x4096 on the H100: 31 compiles, the slowest 2.8 s against ~1.3 s of CPU;
// bench/results/2026-11-27-h100-cold-tuning.md).
std::counting_semaphore<>& compile_slots() {
  static std::counting_semaphore<> slots(usable_cpus());
  return slots;
}

// Holds one of compile_slots() for its lifetime.
struct CompileSlot {
  CompileSlot() { compile_slots().acquire(); }
  ~CompileSlot() { compile_slots().release(); }
  CompileSlot(const CompileSlot&) = delete;
  CompileSlot& operator=(const CompileSlot&) = delete;
};

std::string program_log(const NvrtcApi& api, nvrtcProgram program) {
  std::size_t size = 0;
  if (api.log_size(program, &size) != NVRTC_SUCCESS || size <= 1) return "";
  std::string log(size, '\0');
  api.log(program, log.data());
  log.resize(size - 1);
  if (log.size() > kLogChars) log = log.substr(0, kLogChars) + "\n[log truncated]";
  return log;
}

}  // namespace

CompileStats nvrtc_compile_stats() {
  return {compilations.load(), cache_hits.load(), corrupt_entries.load(), failures.load()};
}

Result<std::string> compile_cubin(std::string_view source, const std::vector<std::string>& options) {
  GEMMTUNE_ASSIGN_OR_RETURN(const NvrtcApi* api, nvrtc_api());
  Program program{*api};
  const std::string text(source);
  GEMMTUNE_RETURN_IF_ERROR(
      check(api->create_program(&program.handle, text.c_str(), "gemm_mma.cu", 0, nullptr, nullptr), "nvrtcCreateProgram"));
  std::vector<const char*> raw;
  for (const std::string& option : options) raw.push_back(option.c_str());
  const nvrtcResult result = [&] {
    CompileSlot slot;
    return api->compile_program(program.handle, int(raw.size()), raw.data());
  }();
  if (result != NVRTC_SUCCESS) {
    ++failures;
    return Status(ErrorCode::unsupported,
                  check(result, "nvrtc").message() + "\n" + program_log(*api, program.handle));
  }
  std::size_t size = 0;
  GEMMTUNE_RETURN_IF_ERROR(check(api->cubin_size(program.handle, &size), "nvrtcGetCUBINSize"));
  if (size == 0) {
    ++failures;
    return Status(ErrorCode::unsupported, "nvrtc produced no cubin (is the arch a real sm_XY target?)");
  }
  std::string cubin(size, '\0');
  GEMMTUNE_RETURN_IF_ERROR(check(api->cubin(program.handle, cubin.data()), "nvrtcGetCUBIN"));
  ++compilations;
  return cubin;
}

std::string cubin_key(std::string_view source, const std::vector<std::string>& options) {
  std::string material(source);
  material += '\0';
  for (const std::string& option : options) {
    material += option;
    material += '\0';
  }
  material += "nvrtc " + nvrtc_version_text();
  return to_hex(sha256(material));
}

Result<CubinArtifact> obtain_cached(const std::string& key, const std::function<Result<std::string>()>& build,
                                    bool recompile) {
  CubinArtifact artifact;
  artifact.key = key;
  const std::optional<CubinCache> cache = CubinCache::from_environment();
  if (cache && !recompile) {
    std::string corrupt;
    std::optional<std::string> cached = cache->load(artifact.key, &corrupt);
    if (!corrupt.empty()) {
      ++corrupt_entries;
      std::fprintf(stderr, "gemmtune: cubin cache: a damaged entry (%s); %s\n", corrupt.c_str(),
                   cached ? "a whole copy in another of its folders is used" : "recompiling");
    }
    if (cached) {
      ++cache_hits;
      artifact.cubin = std::move(*cached);
      artifact.from_cache = true;
      return artifact;
    }
  }
  GEMMTUNE_ASSIGN_OR_RETURN(artifact.cubin, build());
  if (cache) {
    Status stored = cache->store(artifact.key, artifact.cubin);
    if (!stored.is_ok()) std::fprintf(stderr, "gemmtune: %s\n", stored.message().c_str());
  }
  return artifact;
}

Result<CubinArtifact> obtain_cubin(std::string_view source, const std::vector<std::string>& options, bool recompile) {
  return obtain_cached(cubin_key(source, options), [&] { return compile_cubin(source, options); }, recompile);
}

void forget_cubin(const std::string& key) {
  const std::string dir = default_cubin_cache_dir();
  if (dir.empty()) return;
  ++corrupt_entries;
  CubinCache(dir).remove(key);
}

}  // namespace gemmtune::cuda
