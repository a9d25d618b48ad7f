#include "gemmtune/lut.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <optional>

#include <nlohmann/json.hpp>

#include "../core/file_text.h"
#include "../store/store_entry.h"
#include "json_lines.h"

namespace gemmtune {
namespace {

using nlohmann::json;

// A table is at most four levels deep (top, entries, entry, configs, config); anything much
// deeper is not a table and is refused before nlohmann's recursive dump() sees it.
constexpr int kMaxDepth = 16;

constexpr const char* kHowToSeal = "after a deliberate edit, `gemmtune lut seal FILE` recomputes it";

bool is_backend_name(const std::string& name) {
  if (name.empty() || name.size() > 32) return false;
  for (char c : name) {
    const bool ok = (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

bool is_checksum_text(const std::string& text) {
  if (text.size() != 16) return false;
  for (char c : text) {
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// The document's checksum: FNV-1a of its compact dump (keys sorted, as nlohmann keeps them)
// with "checksum" set to "", the same rule as tuning-store entries.
std::string document_checksum(json document) {
  document["checksum"] = "";
  return json_checksum(document);
}

// Walks the DOM of a table and collects every problem with its line; builds the table too,
// which is only used when no problem was found.
class Checker {
 public:
  Checker(const JsonLines& lines, std::vector<LutIssue>& issues) : lines_(lines), issues_(issues) {}

  LookupTable check(const json& document) {
    LookupTable table;
    if (!document.is_object()) {
      issue("", std::string("the top level is a JSON ") + document.type_name() + ", not an object");
      return table;
    }
    allowed_keys(document, "", {"format", "version", "entries", "checksum"});
    check_header(document);
    auto entries = document.find("entries");
    if (entries == document.end()) {
      issue("", "lacks 'entries'");
    } else if (!entries->is_array()) {
      issue("/entries", std::string("'entries' is a ") + entries->type_name() + ", not an array");
    } else {
      std::map<std::pair<std::string, std::string>, std::size_t> seen;
      for (std::size_t i = 0; i < entries->size(); ++i) {
        const std::string at = "/entries/" + std::to_string(i);
        std::optional<LutEntry> entry = check_entry((*entries)[i], at, "entry " + std::to_string(i));
        if (!entry) continue;
        const auto id = std::make_pair(entry->device.empty() ? "class " + entry->device_class : entry->device,
                                       entry->problem);
        if (auto [it, fresh] = seen.emplace(id, i); !fresh) {
          issue(at, "entry " + std::to_string(i) + " is for the same device and problem as entry " +
                        std::to_string(it->second) + " (line " +
                        std::to_string(lines_.line_of("/entries/" + std::to_string(it->second))) + ")");
          continue;
        }
        table.entries.push_back(std::move(*entry));
      }
    }
    check_checksum(document);
    return table;
  }

 private:
  void issue(const std::string& pointer, std::string message) {
    issues_.push_back({lines_.line_of(pointer), std::move(message)});
  }

  void allowed_keys(const json& object, const std::string& at, std::initializer_list<const char*> names) {
    for (const auto& [key, value] : object.items()) {
      bool known = false;
      for (const char* name : names) known = known || key == name;
      if (!known) issue(json_pointer_append(at, key), "unknown key '" + key + "'" + where(at));
    }
  }

  static std::string where(const std::string& at) {
    if (at.empty()) return "";
    return " in " + at.substr(1);
  }

  void check_header(const json& document) {
    auto format = document.find("format");
    if (format == document.end()) {
      issue("", std::string("lacks 'format' (\"") + kLutFormat + "\")");
    } else if (!format->is_string() || format->get<std::string>() != kLutFormat) {
      issue("/format", "'format' is " + format->dump() + ", not \"" + kLutFormat + "\"");
    }
    auto version = document.find("version");
    if (version == document.end()) {
      issue("", "lacks 'version'");
    } else if (!version->is_number_integer() || version->get<std::int64_t>() != kLutVersion) {
      issue("/version", "'version' is " + version->dump() + "; this build reads " + std::to_string(kLutVersion));
    }
  }

  void check_checksum(const json& document) {
    auto checksum = document.find("checksum");
    const std::string actual = document_checksum(document);
    if (checksum == document.end()) {
      issue("", "lacks 'checksum' (" + std::string(kHowToSeal) + ")");
    } else if (!checksum->is_string() || !is_checksum_text(checksum->get<std::string>())) {
      issue("/checksum", "'checksum' is " + checksum->dump() + ", not 16 lower-case hex digits");
    } else if (checksum->get<std::string>() != actual) {
      issue("/checksum", "'checksum' " + checksum->dump() + " does not match the content, which hashes to \"" +
                             actual + "\": the table was edited or damaged (" + kHowToSeal + ")");
    }
  }

  // A required, non-empty string field; nullopt (with the issue recorded) otherwise.
  std::optional<std::string> string_field(const json& object, const std::string& at, const char* name,
                                          const std::string& what) {
    auto it = object.find(name);
    if (it == object.end()) {
      issue(at, what + " lacks '" + name + "'");
      return std::nullopt;
    }
    if (!it->is_string() || it->get<std::string>().empty()) {
      issue(json_pointer_append(at, name), what + ": '" + name + "' is " + it->dump() + ", not a non-empty string");
      return std::nullopt;
    }
    return it->get<std::string>();
  }

  std::optional<LutEntry> check_entry(const json& e, const std::string& at, const std::string& what) {
    if (!e.is_object()) {
      issue(at, what + " is a " + std::string(e.type_name()) + ", not an object");
      return std::nullopt;
    }
    const std::size_t issues_before = issues_.size();
    allowed_keys(e, at, {"device", "device_class", "problem", "mode", "configs"});
    LutEntry entry;
    const bool has_device = e.contains("device"), has_class = e.contains("device_class");
    if (has_device == has_class) {
      issue(at, what + " must name exactly one of 'device' (a fingerprint) and 'device_class'");
    } else if (has_device) {
      entry.device = string_field(e, at, "device", what).value_or("");
    } else {
      entry.device_class = string_field(e, at, "device_class", what).value_or("");
    }
    if (auto problem = string_field(e, at, "problem", what)) {
      auto key = ProblemKey::parse(*problem);
      if (!key.is_ok()) {
        issue(at + "/problem", what + ": " + key.status().message());
      } else if (auto valid = key->problem(); !valid.is_ok()) {
        issue(at + "/problem", what + ": problem key '" + *problem + "' describes no valid problem: " +
                                   valid.status().message());
      } else {
        entry.problem = *problem;
      }
    }
    if (auto mode = e.find("mode"); mode != e.end()) {
      auto parsed = mode->is_string() ? parse_lut_mode(mode->get<std::string>())
                                      : Result<LutMode>(invalid_argument("not a string"));
      if (!parsed.is_ok()) {
        issue(at + "/mode", what + ": 'mode' is " + mode->dump() + ", not \"include\", \"only\" or \"use\"");
      } else {
        entry.mode = *parsed;
      }
    }
    auto configs = e.find("configs");
    if (configs == e.end()) {
      issue(at, what + " lacks 'configs'");
    } else if (!configs->is_array() || configs->empty()) {
      issue(at + "/configs", what + ": 'configs' is " + (configs->is_array() ? std::string("empty") : configs->dump()) +
                                 ", not a non-empty array");
    } else {
      for (std::size_t j = 0; j < configs->size(); ++j) {
        const std::string config_at = at + "/configs/" + std::to_string(j);
        std::optional<LutChoice> choice =
            check_choice((*configs)[j], config_at, what + ", config " + std::to_string(j));
        if (!choice) continue;
        bool repeated = false;
        for (const LutChoice& earlier : entry.configs) {
          repeated = repeated || (earlier.backend == choice->backend && earlier.config == choice->config);
        }
        if (repeated) {
          issue(config_at, what + ", config " + std::to_string(j) + ": names " + choice->backend + " " +
                               choice->config.to_string() + " a second time");
          continue;
        }
        entry.configs.push_back(std::move(*choice));
      }
    }
    if (issues_.size() != issues_before) return std::nullopt;
    return entry;
  }

  std::optional<LutChoice> check_choice(const json& c, const std::string& at, const std::string& what) {
    if (!c.is_object()) {
      issue(at, what + " is a " + std::string(c.type_name()) + ", not an object");
      return std::nullopt;
    }
    const std::size_t issues_before = issues_.size();
    allowed_keys(c, at, {"backend", "config", "time_us"});
    LutChoice choice;
    if (auto backend = string_field(c, at, "backend", what)) {
      if (!is_backend_name(*backend)) {
        issue(at + "/backend", what + ": backend '" + *backend + "' is not a backend name ([a-z0-9_-]+)");
      }
      choice.backend = *backend;
    }
    if (auto text = c.find("config"); text == c.end()) {
      issue(at, what + " lacks 'config' (\"-\" for a backend's only config)");
    } else if (!text->is_string()) {
      issue(at + "/config", what + ": 'config' is " + text->dump() + ", not a string");
    } else if (auto config = KernelConfig::parse(upgrade_config_text(choice.backend, text->get<std::string>())); !config.is_ok()) {
      issue(at + "/config", what + ": " + config.status().message());
    } else {
      choice.config = *config;
    }
    if (auto time = c.find("time_us"); time != c.end()) {
      if (!time->is_number() || !std::isfinite(time->get<double>()) || time->get<double>() < 0) {
        issue(at + "/time_us", what + ": 'time_us' is " + time->dump() + ", not a number >= 0");
      } else {
        choice.time_us = time->get<double>();
      }
    }
    if (issues_.size() != issues_before) return std::nullopt;
    return choice;
  }

  const JsonLines& lines_;
  std::vector<LutIssue>& issues_;
};

// The checked table, and every problem met on the way.
struct Checked {
  LookupTable table;
  std::vector<LutIssue> issues;
};

Checked check_text(std::string_view text) {
  Checked out;
  const JsonLines lines = locate_json_lines(text, kMaxDepth);
  for (const JsonLineIssue& issue : lines.issues) out.issues.push_back({issue.line, issue.message});
  if (!lines.parsed) return out;
  json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (document.is_discarded()) {  // cannot happen after the SAX pass accepted it; still no crash
    out.issues.push_back({0, "not valid JSON"});
    return out;
  }
  Checker checker(lines, out.issues);
  out.table = checker.check(document);
  std::stable_sort(out.issues.begin(), out.issues.end(),
                   [](const LutIssue& a, const LutIssue& b) { return a.line < b.line; });
  return out;
}

json entry_json(const LutEntry& entry) {
  json configs = json::array();
  for (const LutChoice& choice : entry.configs) {
    json c = {{"backend", choice.backend}, {"config", choice.config.to_string()}};
    if (choice.time_us >= 0) c["time_us"] = choice.time_us;
    configs.push_back(std::move(c));
  }
  json out = {{"problem", entry.problem}, {"mode", lut_mode_name(entry.mode)}, {"configs", std::move(configs)}};
  if (!entry.device.empty()) {
    out["device"] = entry.device;
  } else {
    out["device_class"] = entry.device_class;
  }
  return out;
}

}  // namespace

std::string_view lut_mode_name(LutMode mode) {
  switch (mode) {
    case LutMode::include: return "include";
    case LutMode::only: return "only";
    case LutMode::use: return "use";
  }
  return "?";
}

Result<LutMode> parse_lut_mode(std::string_view name) {
  for (LutMode mode : {LutMode::include, LutMode::only, LutMode::use}) {
    if (lut_mode_name(mode) == name) return mode;
  }
  return invalid_argument("unknown lookup-table mode '" + std::string(name) + "' (expected include, only or use)");
}

std::vector<LutIssue> LookupTable::validate(std::string_view text) { return check_text(text).issues; }

Result<LookupTable> LookupTable::parse(std::string_view text) {
  Checked checked = check_text(text);
  if (checked.issues.empty()) return std::move(checked.table);
  std::string message = "lookup table refused, " + std::to_string(checked.issues.size()) +
                        (checked.issues.size() == 1 ? " problem:" : " problems:");
  for (const LutIssue& issue : checked.issues) {
    message += "\n  line " + std::to_string(issue.line) + ": " + issue.message;
  }
  return Status(ErrorCode::corrupt_data, message);
}

Result<std::string> LookupTable::read_text(const std::string& path) { return read_file_text(path, "lookup table"); }

Result<LookupTable> LookupTable::load(const std::string& path) {
  GEMMTUNE_ASSIGN_OR_RETURN(std::string text, read_text(path));
  auto table = parse(text);
  if (!table.is_ok()) return Status(table.status().code(), path + ": " + table.status().message());
  return table;
}

std::string LookupTable::to_json() const {
  json list = json::array();
  for (const LutEntry& entry : entries) list.push_back(entry_json(entry));
  json document = {{"format", kLutFormat}, {"version", kLutVersion}, {"entries", std::move(list)}};
  document["checksum"] = document_checksum(document);
  return document.dump(2) + "\n";
}

Status LookupTable::save(const std::string& path) const {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << to_json();
  out.close();
  if (!out.good()) return Status(ErrorCode::io_error, "cannot write lookup table " + path);
  return Status::ok();
}

Result<std::string> seal_lut_text(std::string_view text) {
  const JsonLines lines = locate_json_lines(text, kMaxDepth);
  if (!lines.parsed) {
    return Status(ErrorCode::corrupt_data, "cannot seal: line " + std::to_string(lines.issues.front().line) + ": " +
                                               lines.issues.front().message);
  }
  json document = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!document.is_object()) return Status(ErrorCode::corrupt_data, "cannot seal: the top level is not an object");
  document["checksum"] = document_checksum(document);
  return document.dump(2) + "\n";
}

}  // namespace gemmtune
