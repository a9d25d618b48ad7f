// Moving tuning results between machines: a JSON document of entries (docs/tuning-store.md).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "store_entry.h"
#include "tuning_store.h"

namespace gemmtune {

inline constexpr const char* kExportFormat = "gemmtune-tuning-store";

// Every record of a store, each parsed; bad ones keep their reason.
struct ListedRecord {
  std::string key;
  Result<StoreEntry> entry;
};
Result<std::vector<ListedRecord>> list_entries(TuningStore& store);

struct ExportOutcome {
  nlohmann::json document;
  int exported = 0;
  int skipped = 0;  // damaged records, left out
};
Result<ExportOutcome> export_entries(TuningStore& store);

struct ImportOutcome {
  int imported = 0;
  int other_device = 0;  // refused: measured on another device (and any_device not set)
};
// Checks the whole document first and writes nothing unless every entry is intact; then writes
// the entries in one transaction. corrupt_data names the first problem ("entry 3: ...").
Result<ImportOutcome> import_entries(TuningStore& store, std::string_view text, const std::string& local_device,
                                     bool any_device);

}  // namespace gemmtune
