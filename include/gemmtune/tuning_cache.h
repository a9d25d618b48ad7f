// The tuning store seen from outside a Session: what `gemmtune cache` does, for any program
// (look into the store, move its entries between machines, empty it). docs/tuning-store.md
// describes the store and the export format.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/status.h"
#include "gemmtune/store_options.h"

namespace gemmtune {

// One record of the store.
struct CachedEntry {
  std::string key;
  std::string damaged;  // why the record cannot be read; empty when it is intact
  // Of an intact record:
  std::string problem;  // the problem, described
  std::string device;   // the fingerprint of the device that measured it
  std::string backend;  // the pick
  std::string config;
  double time_us = 0;
  std::size_t choices = 0;  // choices timed
};

struct CacheExport {
  std::string document;  // JSON, format "gemmtune-tuning-store"
  int exported = 0;
  int skipped = 0;  // damaged records, left out
};

struct CacheImport {
  int imported = 0;
  int other_device = 0;  // refused: measured on another device (and any_device not set)
};

class TuningCache {
 public:
  // The store `options` names (tiered with Redis when a URL is set). invalid_argument when the
  // options turn the store off; not_found when read-only mode finds none.
  static Result<std::unique_ptr<TuningCache>> open(const StoreOptions& options);
  ~TuningCache();
  TuningCache(const TuningCache&) = delete;
  TuningCache& operator=(const TuningCache&) = delete;

  // "sqlite /home/u/.cache/gemmtune/tuning.sqlite", for messages.
  std::string describe() const;
  StoreMode mode() const;
  // Every record, a damaged one with the reason.
  Result<std::vector<CachedEntry>> entries();
  // Every intact entry as one JSON document.
  Result<CacheExport> export_json();
  // Checks the whole document first and writes nothing unless every entry is intact; then
  // writes in one transaction. Entries of another device than `device_fingerprint` are refused
  // unless `any_device`. corrupt_data names the first problem ("entry 3: ..."); invalid_argument
  // in read-only mode.
  Result<CacheImport> import_json(std::string_view document, const std::string& device_fingerprint, bool any_device);
  // Removes every entry (of the shared Redis store too, when one is set); invalid_argument in
  // read-only mode.
  Status clear();

 private:
  struct Impl;
  explicit TuningCache(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The layout version of the store's entries this build reads and writes.
int tuning_store_schema_version();

}  // namespace gemmtune
