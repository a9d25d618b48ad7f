#include "store_entry.h"

#include <chrono>
#include <cstdio>

#include "../core/json_reading.h"
#include "gemmtune/config.h"

namespace gemmtune {
namespace {

using nlohmann::json;

// FNV-1a: the checksum guards against truncation and hand edits, not against an attacker (a
// store anyone can write to can be written with a matching checksum).
std::string fnv1a_hex(std::string_view text) {
  std::uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  char out[17];
  std::snprintf(out, sizeof out, "%016llx", static_cast<unsigned long long>(hash));
  return out;
}

std::string entry_checksum(const json& body) { return json_checksum(body); }

Status bad(const std::string& why) { return Status(ErrorCode::corrupt_data, "stored entry " + why); }

// The field or a corrupt_data error naming it; nlohmann would throw on a wrong type.
Result<const json*> field(const json& object, const char* name, json::value_t type) {
  auto it = object.find(name);
  if (it == object.end()) return bad(std::string("lacks '") + name + "'");
  const bool number_wanted = type == json::value_t::number_float;
  if (number_wanted ? !it->is_number() : it->type() != type) {
    return bad(std::string("has '") + name + "' of type " + it->type_name());
  }
  return &*it;
}

Result<std::string> string_field(const json& object, const char* name) {
  GEMMTUNE_ASSIGN_OR_RETURN(const json* value, field(object, name, json::value_t::string));
  return value->get<std::string>();
}

Result<double> number_field(const json& object, const char* name) {
  GEMMTUNE_ASSIGN_OR_RETURN(const json* value, field(object, name, json::value_t::number_float));
  return value->get<double>();
}

// Each choice is a row [backend, config, status, time_us, reason] rather than an object: an
// entry holds tens of choices, and rows parse in two thirds of the time objects take, which a
// store hit pays in full (bench/store_lookup_bench.cc).
constexpr const char* kChoiceColumns = "[backend, config, status, time_us, reason]";

json body_of(const StoreEntry& entry) {
  json choices = json::array();
  for (const StoredChoice& c : entry.choices) {
    choices.push_back(json::array({c.backend, c.config, c.status, c.time_us, c.reason}));
  }
  return {{"schema", kStoreSchemaVersion},
          {"device", entry.device},
          {"problem", entry.problem},
          {"description", entry.problem_description},
          {"backend_versions", entry.backend_versions},
          {"pick", {{"backend", entry.pick_backend}, {"config", entry.pick_config}, {"time_us", entry.pick_time_us}}},
          {"choices", choices},
          {"created_unix", entry.created_unix}};
}

Result<StoredChoice> choice_from_json(const json& row) {
  const bool shaped = row.is_array() && row.size() == 5 && row[0].is_string() && row[1].is_string() &&
                      row[2].is_string() && row[3].is_number() && row[4].is_string();
  if (!shaped) {
    std::string text = row.dump();
    if (text.size() > 80) text = text.substr(0, 80) + "...";
    return bad("has a choice that is not a row " + std::string(kChoiceColumns) + ": " + text);
  }
  return StoredChoice{row[0].get<std::string>(), row[1].get<std::string>(), row[2].get<std::string>(),
                      row[3].get<double>(), row[4].get<std::string>()};
}

Result<ChoiceStatus> parse_choice_status(std::string_view name) {
  for (ChoiceStatus s : {ChoiceStatus::ok, ChoiceStatus::skipped, ChoiceStatus::prepare_failed,
                         ChoiceStatus::run_failed, ChoiceStatus::wrong_result, ChoiceStatus::pruned}) {
    if (choice_status_name(s) == name) return s;
  }
  return bad("has an unknown choice status '" + std::string(name) + "'");
}

}  // namespace

// nlohmann's objects keep their keys sorted, so the dump is canonical.
std::string json_checksum(const nlohmann::json& body) { return fnv1a_hex(body.dump()); }

std::string store_key(std::string_view device, std::string_view problem) {
  // Appended piece by piece: GCC 12 reads `"v" + std::to_string(...)` as a memcpy of overlapping
  // ranges (-Wrestrict, a false positive) when inlined here.
  std::string key = "v";
  key += std::to_string(kStoreSchemaVersion);
  key += '/';
  key += device;
  key += '/';
  key += problem;
  return key;
}

json entry_to_json(const StoreEntry& entry) {
  json out = body_of(entry);
  out["checksum"] = "";
  out["checksum"] = entry_checksum(out);
  return out;
}

Result<StoreEntry> entry_from_json(json object) {
  if (!object.is_object()) return bad(std::string("is a JSON ") + object.type_name() + ", not an object");
  GEMMTUNE_ASSIGN_OR_RETURN(double schema, number_field(object, "schema"));
  if (schema != kStoreSchemaVersion) {
    return bad("has schema " + object["schema"].dump() + ", this build reads " + std::to_string(kStoreSchemaVersion));
  }
  StoreEntry entry;
  GEMMTUNE_ASSIGN_OR_RETURN(entry.device, string_field(object, "device"));
  GEMMTUNE_ASSIGN_OR_RETURN(entry.problem, string_field(object, "problem"));
  GEMMTUNE_ASSIGN_OR_RETURN(entry.problem_description, string_field(object, "description"));
  GEMMTUNE_ASSIGN_OR_RETURN(const json* versions, field(object, "backend_versions", json::value_t::object));
  for (const auto& [name, version] : versions->items()) {
    if (!version.is_string()) return bad("has a non-string version for backend '" + name + "'");
    entry.backend_versions[name] = version.get<std::string>();
  }
  GEMMTUNE_ASSIGN_OR_RETURN(const json* pick, field(object, "pick", json::value_t::object));
  GEMMTUNE_ASSIGN_OR_RETURN(entry.pick_backend, string_field(*pick, "backend"));
  GEMMTUNE_ASSIGN_OR_RETURN(entry.pick_config, string_field(*pick, "config"));
  GEMMTUNE_ASSIGN_OR_RETURN(entry.pick_time_us, number_field(*pick, "time_us"));
  GEMMTUNE_ASSIGN_OR_RETURN(const json* choices, field(object, "choices", json::value_t::array));
  for (const json& c : *choices) {
    GEMMTUNE_ASSIGN_OR_RETURN(StoredChoice choice, choice_from_json(c));
    entry.choices.push_back(std::move(choice));
  }
  GEMMTUNE_ASSIGN_OR_RETURN(const json* created, field(object, "created_unix", json::value_t::number_float));
  // An integer as written; a float such as 1e300 has no int64 value.
  const auto created_unix = json_integer<std::int64_t>(*created);
  if (!created_unix) return bad("has 'created_unix' " + created->dump() + ", not a whole number of seconds");
  entry.created_unix = *created_unix;
  GEMMTUNE_ASSIGN_OR_RETURN(std::string checksum, string_field(object, "checksum"));
  // Recomputed over the document as stored, its checksum blanked, so any edit of a field (or
  // of the checksum) shows. Dumping the parsed document in place, rather than rebuilding or
  // copying it, keeps a store hit within its latency budget (bench/store_lookup_bench.cc).
  object["checksum"] = "";
  if (checksum != entry_checksum(object)) return bad("fails its checksum (edited or damaged)");
  return entry;
}

std::string serialize_entry(const StoreEntry& entry) { return entry_to_json(entry).dump(); }

Result<StoreEntry> parse_entry(std::string_view text) {
  // Checked before parsing: the checksum dumps the document, which recurses once per level.
  if (!json_nests_within(text)) {
    return bad("nests arrays and objects deeper than " + std::to_string(kMaxJsonNesting) + " levels");
  }
  json parsed = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (parsed.is_discarded()) return bad("is not valid JSON (truncated or damaged)");
  return entry_from_json(std::move(parsed));
}

StoreEntry entry_from_report(const TuneReport& report, std::map<std::string, std::string> backend_versions) {
  StoreEntry entry;
  entry.device = report.device;
  entry.problem = report.key.to_string();
  entry.problem_description = report.problem;
  entry.backend_versions = std::move(backend_versions);
  if (const ChoiceReport* best = report.best_choice()) {
    entry.pick_backend = best->backend;
    entry.pick_config = best->config.to_string();
    entry.pick_time_us = best->time_us;
  }
  for (const ChoiceReport& c : report.choices) {
    entry.choices.push_back(
        {c.backend, c.config.to_string(), std::string(choice_status_name(c.status)), c.time_us, c.reason});
  }
  entry.created_unix =
      std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count();
  return entry;
}

Result<TuneReport> report_from_entry(const StoreEntry& entry) {
  TuneReport report;
  report.problem = entry.problem_description;
  report.device = entry.device;
  report.store_hit = true;
  for (const StoredChoice& stored : entry.choices) {
    ChoiceReport c;
    c.backend = stored.backend;
    auto config = KernelConfig::parse(upgrade_config_text(stored.backend, stored.config));
    if (!config.is_ok()) return bad("has an unreadable config '" + stored.config + "': " + config.status().message());
    c.config = *config;
    GEMMTUNE_ASSIGN_OR_RETURN(c.status, parse_choice_status(stored.status));
    c.time_us = stored.time_us;
    c.reason = stored.reason;
    if (report.best < 0 && c.backend == entry.pick_backend && stored.config == entry.pick_config) {
      report.best = int(report.choices.size());
    }
    report.choices.push_back(std::move(c));
  }
  if (report.best < 0) return bad("names a pick that is not among its choices");
  return report;
}

}  // namespace gemmtune
