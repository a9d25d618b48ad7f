// Run-time compilation with NVRTC to a cubin, through the on-disk cubin cache. Thread-safe:
// the autotuner prepares several configs at once, each compile is its own NVRTC program.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/status.h"

namespace gemmtune::cuda {

// Process-wide counts: a second process finding every cubin in the cache shows 0 compilations.
struct CompileStats {
  std::uint64_t compilations = 0;     // NVRTC runs that produced a cubin
  std::uint64_t cache_hits = 0;       // cubins read from the cache
  std::uint64_t corrupt_entries = 0;  // cache entries found damaged (or rejected by the driver) and removed
  std::uint64_t failures = 0;         // compiles that failed
};
CompileStats nvrtc_compile_stats();

// Compiles `source` with `options` (which name the arch) into a cubin; on failure the error
// carries the start of the NVRTC log.
Result<std::string> compile_cubin(std::string_view source, const std::vector<std::string>& options);

struct CubinArtifact {
  std::string cubin;
  std::string key;  // SHA-256 of (source, options, NVRTC version): the cache entry's name
  bool from_cache = false;
};

// The cache key of a compilation.
std::string cubin_key(std::string_view source, const std::vector<std::string>& options);

// The bytes stored under `key` in the cubin cache or, on a miss (or with `recompile`), from
// `build`, stored for next time: the cache path every JIT family shares (NVRTC cubins, the
// cutlass family's shared objects). A cache that cannot be written only costs a rebuild.
Result<CubinArtifact> obtain_cached(const std::string& key, const std::function<Result<std::string>()>& build,
                                    bool recompile = false);

// The cubin from the cache or, on a miss (or with `recompile`), from NVRTC, stored for next time.
// A cache that cannot be written only costs the next process a compile.
Result<CubinArtifact> obtain_cubin(std::string_view source, const std::vector<std::string>& options,
                                   bool recompile = false);

// Removes a cached cubin the driver would not load (it passed the header check, so the file was
// written whole but is still unusable), and counts it as corrupt.
void forget_cubin(const std::string& key);

}  // namespace gemmtune::cuda
