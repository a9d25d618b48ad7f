// Where a Session keeps its tuning results between runs (docs/tuning-store.md).
#pragma once

#include <string>
#include <string_view>

#include "gemmtune/status.h"

namespace gemmtune {

enum class StoreMode {
  read_write,  // look picks up and write new results
  read_only,   // look picks up, never write (a shared, curated store)
  off,         // neither
};

Result<StoreMode> parse_store_mode(std::string_view name);  // "rw" | "ro" | "off"
std::string_view store_mode_name(StoreMode mode);

struct StoreOptions {
  // SQLite file of the local store; "off" for none; "" for the default location,
  // $XDG_CACHE_HOME/gemmtune/tuning.sqlite or ~/.cache/gemmtune/tuning.sqlite.
  std::string path;
  StoreMode mode = StoreMode::read_write;
  // "redis://host:port/db" of a store shared by a fleet; "" for none.
  std::string redis_url;

  // GEMMTUNE_CACHE (path or "off"), GEMMTUNE_CACHE_MODE (rw|ro|off), GEMMTUNE_REDIS_URL.
  // An unknown mode is reported on stderr and read as rw.
  static StoreOptions from_env();
  // The SQLite path these options name: `path` itself, or the default location; "off" when
  // the local store is disabled.
  std::string resolved_path() const;
  // invalid_argument when the options cannot name a store: a local path that is a URL
  // ("redis://…" given for the file rather than as redis_url).
  Status check() const;
};

}  // namespace gemmtune
