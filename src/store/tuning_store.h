// The persistence interface: a key-value map of tuning entries. Stores hold opaque text; what
// the text means, and whether it can be trusted, is store_entry.h's business, so every store
// (SQLite, Redis, tiered) stays a plain map and every entry is checked the same way.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gemmtune/status.h"
#include "gemmtune/store_options.h"
#include "../core/warnings.h"

namespace gemmtune {

struct StoreRecord {
  std::string key;
  std::string value;
  bool operator==(const StoreRecord&) const = default;
};

class TuningStore {
 public:
  virtual ~TuningStore() = default;
  // "sqlite /home/u/.cache/gemmtune/tuning.sqlite", for messages.
  virtual std::string describe() const = 0;
  // The value under `key`; not_found when there is none, unavailable when the store cannot be
  // reached.
  virtual Result<std::string> get(const std::string& key) = 0;
  virtual Status put(const std::string& key, const std::string& value) = 0;
  // All records or none: an import never leaves half a file behind.
  virtual Status put_all(const std::vector<StoreRecord>& records) = 0;
  virtual Result<std::vector<StoreRecord>> list() = 0;
  virtual Status clear() = 0;
};

// SQLite file at `path` (created with its folder when missing). A file that is not a SQLite
// database or fails PRAGMA quick_check is renamed aside to <path>.corrupt-<timestamp> with a
// warning, and a fresh one is created.
Result<std::unique_ptr<TuningStore>> open_sqlite_store(const std::string& path);

// Redis at "redis://host:port/db"; unavailable when it cannot be reached within the timeout.
// unsupported when this build has no hiredis.
Result<std::unique_ptr<TuningStore>> open_redis_store(const std::string& url, int timeout_ms = 200);
bool redis_store_built();

// Local first, then remote; remote hits are copied to local, writes go to both. The first
// failure of the remote is reported once and the remote is left alone from then on, so a
// dead Redis costs one timeout, not one per lookup.
std::unique_ptr<TuningStore> make_tiered_store(std::unique_ptr<TuningStore> local,
                                               std::unique_ptr<TuningStore> remote);

// The store the options describe: SQLite, Redis, both tiered, or null when off. A Redis that
// cannot be reached, or a malformed Redis URL, is a warning (the local store carries on), not
// an error.
Result<std::unique_ptr<TuningStore>> open_store(const StoreOptions& options);

}  // namespace gemmtune
