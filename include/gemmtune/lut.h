// The kernel lookup table: a JSON file that maps (device, problem) to configs, so that known
// good configs are always benchmarked, or used without tuning at all. Written by
// `gemmtune lut export` from the tuning store, or by hand; checked in full on load, and a
// table with any problem is refused as a whole (docs/lut-and-model.md).
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "gemmtune/config.h"
#include "gemmtune/device.h"
#include "gemmtune/problem.h"
#include "gemmtune/status.h"
#include "gemmtune/store_options.h"

namespace gemmtune {

inline constexpr const char* kLutFormat = "gemmtune-lut";
// Every bump says why; tables of another version are refused, never misread.
inline constexpr int kLutVersion = 1;  // 1: first layout

// What a matching entry does to the choices of a tuning.
enum class LutMode {
  include,  // its configs are timed with the others, whatever the search and benchmark spaces
  only,     // its configs are the only choices
  use,      // its first config that the backend can implement is used without tuning
};
std::string_view lut_mode_name(LutMode mode);
Result<LutMode> parse_lut_mode(std::string_view name);

struct LutChoice {
  std::string backend;
  KernelConfig config;
  double time_us = -1;  // what it measured when exported; for people reading the table (-1: unknown)
  bool operator==(const LutChoice&) const = default;
};

struct LutEntry {
  // Exactly one of the two is set: a DeviceInfo::fingerprint() or a DeviceInfo::device_class().
  std::string device;
  std::string device_class;
  std::string problem;  // ProblemKey::to_string()
  LutMode mode = LutMode::include;
  std::vector<LutChoice> configs;  // at least one
  bool operator==(const LutEntry&) const = default;
};

// One problem a table has, with the line it is on (0 when the file is not JSON at all).
struct LutIssue {
  int line = 0;
  std::string message;
};

class LookupTable {
 public:
  // The whole table or an error listing every problem found, each with its line
  // ("line 12: entry 3: config 'bm=x' of backend 'cpu': ..."). Never throws, whatever the text.
  static Result<LookupTable> parse(std::string_view text);
  static Result<LookupTable> load(const std::string& path);
  // A table file's text, unchecked, for validate() and seal_lut_text(); io_error naming the
  // file when it cannot be read.
  static Result<std::string> read_text(const std::string& path);
  // Every problem of a table's text, each with its line; empty when the table is good.
  static std::vector<LutIssue> validate(std::string_view text);

  // The table as JSON text, sealed with its checksum; parse() reads it back equal.
  std::string to_json() const;
  Status save(const std::string& path) const;

  // The entry for this device and problem: one naming the device's fingerprint first, else
  // one naming its class; null when there is none.
  const LutEntry* find(const DeviceInfo& device, const ProblemKey& problem) const;

  std::vector<LutEntry> entries;
  bool operator==(const LookupTable&) const = default;
};

// The text with its checksum recomputed: for a table edited by hand. Every other check still
// applies (validate() the result).
Result<std::string> seal_lut_text(std::string_view text);

// What `gemmtune lut export` writes from a tuning store.
struct LutExportOptions {
  LutMode mode = LutMode::include;
  // The pick and the next fastest correct choices, at most this many per entry.
  int configs_per_entry = 1;
  // Only entries measured on this fingerprint; "" for all.
  std::string device;
  // When set, entries name this device class instead of their fingerprint (then `device` must
  // be set: only a machine's own entries are known to be of its class).
  std::string device_class;
};
// One entry per intact store entry with a pick, in the store's key order; damaged store
// entries are left out (counted in `skipped`).
struct LutExport {
  LookupTable table;
  int skipped = 0;
};
Result<LutExport> export_lut(const StoreOptions& store, const LutExportOptions& options);

}  // namespace gemmtune
