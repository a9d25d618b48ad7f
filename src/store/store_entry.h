// What the store keeps for one (device, problem): the pick and the time of every config tried,
// with the versions of the backends that measured them. Entries are JSON with a checksum;
// nothing read back is trusted until parse_entry has checked it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "gemmtune/status.h"
#include "gemmtune/tune_report.h"

namespace gemmtune {

// Every bump says why; entries of another schema are ignored (and re-tuned), never misread.
inline constexpr int kStoreSchemaVersion = 1;  // 1: first layout

struct StoredChoice {
  std::string backend;
  std::string config;  // KernelConfig::to_string()
  std::string status;  // choice_status_name()
  double time_us = -1;
  std::string reason;  // why it is not ok; empty when ok
  bool operator==(const StoredChoice&) const = default;
};

struct StoreEntry {
  std::string device;   // DeviceInfo::fingerprint()
  std::string problem;  // ProblemKey::to_string()
  std::string problem_description;  // Problem::describe(), for people reading listings
  // Version of every backend of the session that tuned it: a pick is stale once its backend's
  // version differs from the running one.
  std::map<std::string, std::string> backend_versions;
  std::string pick_backend;
  std::string pick_config;
  double pick_time_us = -1;
  std::vector<StoredChoice> choices;
  std::int64_t created_unix = 0;
  bool operator==(const StoreEntry&) const = default;
};

// The key of a (device, problem): schema version, device fingerprint and problem key. Backend
// versions live in the value so that a new backend version replaces the pick rather than
// leaving an orphan beside it.
std::string store_key(std::string_view device, std::string_view problem);

// FNV-1a of the canonical dump of a JSON body (with any "checksum" field blanked by the caller).
std::string json_checksum(const nlohmann::json& body);

nlohmann::json entry_to_json(const StoreEntry& entry);  // checksum included
// Checks schema, every field's type and the checksum; corrupt_data with the reason otherwise.
// Takes the document by value: the checksum is checked on it in place.
Result<StoreEntry> entry_from_json(nlohmann::json json);
std::string serialize_entry(const StoreEntry& entry);
Result<StoreEntry> parse_entry(std::string_view text);

// The entry a finished tuning leaves.
StoreEntry entry_from_report(const TuneReport& report, std::map<std::string, std::string> backend_versions);
// The report a stored entry stands for (store_hit set); corrupt_data when a stored config or
// status does not parse.
Result<TuneReport> report_from_entry(const StoreEntry& entry);

}  // namespace gemmtune
