// `gemmtune lut export`: a lookup table from what the tuning store learned.
#include <algorithm>

#include "../store/store_transfer.h"
#include "../store/tuning_store.h"
#include "gemmtune/lut.h"

namespace gemmtune {

Result<LutExport> export_lut(const StoreOptions& store_options, const LutExportOptions& options) {
  if (options.configs_per_entry < 1) return invalid_argument("configs per entry must be >= 1");
  if (!options.device_class.empty() && options.device.empty()) {
    return invalid_argument("naming entries by device class needs the device whose entries are exported");
  }
  GEMMTUNE_ASSIGN_OR_RETURN(std::unique_ptr<TuningStore> store, open_store(store_options));
  if (!store) return not_found("no tuning store at " + store_options.resolved_path());
  GEMMTUNE_ASSIGN_OR_RETURN(std::vector<ListedRecord> listed, list_entries(*store));
  LutExport out;
  for (const ListedRecord& record : listed) {
    if (!record.entry.is_ok()) {
      ++out.skipped;
      continue;
    }
    const StoreEntry& stored = *record.entry;
    if (!options.device.empty() && stored.device != options.device) continue;
    auto report = report_from_entry(stored);
    if (!report.is_ok() || report->best_choice() == nullptr) {
      ++out.skipped;
      continue;
    }
    LutEntry entry;
    if (options.device_class.empty()) {
      entry.device = stored.device;
    } else {
      entry.device_class = options.device_class;
    }
    entry.problem = stored.problem;
    entry.mode = options.mode;
    // The pick first, then the other correct choices, fastest first.
    const ChoiceReport& best = *report->best_choice();
    entry.configs.push_back({best.backend, best.config, best.time_us >= 0 ? best.time_us : -1});
    std::vector<const ChoiceReport*> others;
    for (const ChoiceReport& c : report->choices) {
      if (&c != &best && c.status == ChoiceStatus::ok && c.time_us >= 0) others.push_back(&c);
    }
    std::stable_sort(others.begin(), others.end(),
                     [](const ChoiceReport* a, const ChoiceReport* b) { return a->time_us < b->time_us; });
    for (const ChoiceReport* c : others) {
      if (int(entry.configs.size()) >= options.configs_per_entry) break;
      bool listed = false;
      for (const LutChoice& earlier : entry.configs) listed = listed || (earlier.backend == c->backend && earlier.config == c->config);
      if (!listed) entry.configs.push_back({c->backend, c->config, c->time_us});
    }
    out.table.entries.push_back(std::move(entry));
  }
  return out;
}

}  // namespace gemmtune
