// A content-addressed cache of compiled cubins on disk, shared by every process of the user.
// An entry is named by the SHA-256 of everything that determines the cubin (template source,
// compile options, arch, NVRTC version) and carries a header with its length and the SHA-256
// of its payload, so a truncated or corrupted file is detected instead of loaded.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/kernel_cache.h"
#include "gemmtune/status.h"

namespace gemmtune::cuda {

using Sha256Digest = std::array<std::uint8_t, 32>;
Sha256Digest sha256(std::string_view data);
std::string to_hex(const Sha256Digest& digest);

// The first of kernel_cache_dirs() (gemmtune/kernel_cache.h: the one written), or empty.
std::string default_cubin_cache_dir();

class CubinCache {
 public:
  explicit CubinCache(std::string dir, std::vector<std::string> read_only = {})
      : dir_(std::move(dir)), read_only_(std::move(read_only)) {}
  // The cache the environment names (kernel_cache_dirs(): the first written, the others read),
  // or nullopt where it names none.
  static std::optional<CubinCache> from_environment();

  const std::string& dir() const { return dir_; }
  std::string path_of(const std::string& key) const;

  // The cubin stored under `key`, or nullopt when there is none. Looks in dir(), then in each
  // read-only directory; an entry found in one of those is copied into dir(), so that dir()
  // ends up holding every kernel the process used. An entry that fails its header check is
  // skipped (and removed from dir(); a read-only directory is left as it is) and `corrupt`
  // (if given) says why, also where a whole copy found after it is returned.
  std::optional<std::string> load(const std::string& key, std::string* corrupt = nullptr) const;
  // Writes atomically: a temporary file in the same directory, then rename, so a concurrent
  // reader sees either no entry or the whole of it.
  Status store(const std::string& key, std::string_view cubin) const;
  // Drops an entry that loaded but that the driver rejected.
  void remove(const std::string& key) const;

  // Whether the worker process ran the cubin `key` on the problem `check` names and found its
  // result right (mark_passed), in this process or an earlier one. A kernel that passed on a
  // problem passes again on it, so a later tuning runs it in process without the worker:
  // a second process tuning the same shape then costs no worker round trips. Each mark is an
  // empty file named by the hash of both, created whole or not at all. A mark found in a
  // read-only directory is copied into dir(), as an entry is.
  bool passed(const std::string& key, const std::string& check) const;
  Status mark_passed(const std::string& key, const std::string& check) const;

 private:
  std::string dir_;
  std::vector<std::string> read_only_;
};

}  // namespace gemmtune::cuda
