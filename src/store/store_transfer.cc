#include "store_transfer.h"

#include "../core/json_reading.h"
#include "route_record.h"

namespace gemmtune {

Result<std::vector<ListedRecord>> list_entries(TuningStore& store) {
  GEMMTUNE_ASSIGN_OR_RETURN(std::vector<StoreRecord> records, store.list());
  std::vector<ListedRecord> listed;
  for (const StoreRecord& record : records) {
    // Routes of multi-kernel ops are not tuning entries; they are re-derived on a new machine.
    if (is_route_key(record.key)) continue;
    auto entry = parse_entry(record.value);
    // A record whose content belongs under another key was moved or edited: as bad as a
    // failed checksum, since a lookup would never find it where it claims to be.
    if (entry.is_ok() && store_key(entry->device, entry->problem) != record.key) {
      entry = Status(ErrorCode::corrupt_data, "stored entry is filed under another key");
    }
    listed.push_back({record.key, std::move(entry)});
  }
  return listed;
}

Result<ExportOutcome> export_entries(TuningStore& store) {
  GEMMTUNE_ASSIGN_OR_RETURN(std::vector<ListedRecord> listed, list_entries(store));
  ExportOutcome out;
  nlohmann::json entries = nlohmann::json::array();
  for (const ListedRecord& record : listed) {
    if (!record.entry.is_ok()) {
      ++out.skipped;
      continue;
    }
    entries.push_back(entry_to_json(*record.entry));
    ++out.exported;
  }
  out.document = {{"format", kExportFormat}, {"schema", kStoreSchemaVersion}, {"entries", entries}};
  return out;
}

Result<ImportOutcome> import_entries(TuningStore& store, std::string_view text, const std::string& local_device,
                                     bool any_device) {
  auto bad = [](const std::string& why) { return Status(ErrorCode::corrupt_data, why); };
  // Entries are copied and dumped, which recurses once per level of nesting.
  if (!json_nests_within(text)) return bad("nests arrays and objects deeper than " + std::to_string(kMaxJsonNesting) + " levels");
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(text);
  } catch (const nlohmann::json::exception& e) {
    // e.what() names the byte offset and what was expected there. Not parse_error alone: a
    // number too large for a double (1e+3075) is out_of_range, which escaped and terminated
    // `gemmtune cache import` (found by cache_import_fuzz).
    return bad("not valid JSON: " + json_error_excerpt(e));
  }
  if (!document.is_object()) return bad("the top level is not a JSON object");
  auto format = document.find("format");
  if (format == document.end() || *format != kExportFormat) {
    return bad(std::string("'format' is not \"") + kExportFormat + "\"");
  }
  auto schema = document.find("schema");
  if (schema == document.end() || !schema->is_number() || *schema != kStoreSchemaVersion) {
    return bad("'schema' is not " + std::to_string(kStoreSchemaVersion));
  }
  auto entries = document.find("entries");
  if (entries == document.end() || !entries->is_array()) return bad("'entries' is missing or not an array");

  ImportOutcome out;
  std::vector<StoreRecord> records;
  for (std::size_t i = 0; i < entries->size(); ++i) {
    auto entry = entry_from_json((*entries)[i]);
    if (!entry.is_ok()) return bad("entry " + std::to_string(i) + ": " + entry.status().message());
    if (!any_device && entry->device != local_device) {
      ++out.other_device;
      continue;
    }
    records.push_back({store_key(entry->device, entry->problem), serialize_entry(*entry)});
  }
  GEMMTUNE_RETURN_IF_ERROR(store.put_all(records));
  out.imported = int(records.size());
  return out;
}

}  // namespace gemmtune
