// A Session's use of the store: look a problem up and check the entry against the backends
// that run now; write what a tuning found. Nothing here is on the dispatch hot path: the
// Session comes here only when its dispatch table misses.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "../core/backend.h"
#include "gemmtune/store_options.h"
#include "gemmtune/tune_report.h"
#include "../store/route_record.h"
#include "../store/tuning_store.h"

namespace gemmtune {

struct StoredPick {
  const Backend* backend = nullptr;
  KernelConfig config;
  TuneReport report;  // rebuilt from the stored timings, store_hit set
};

struct StoreLookup {
  // The stored pick, when the entry is intact, still valid and covers every choice of today.
  std::optional<StoredPick> hit;
  // Otherwise, the stored choices that are still good (their backend at the version that
  // measured them): a re-tuning need only run the others (incremental_tune.h).
  std::vector<ChoiceReport> reusable;
};

class SessionStore {
 public:
  // Null when the options turn the store off or it cannot be opened (then with a warning: a
  // session without a store still works, it only tunes more).
  static std::unique_ptr<SessionStore> open(const StoreOptions& options);
  SessionStore(std::unique_ptr<TuningStore> store, StoreMode mode) : store_(std::move(store)), mode_(mode) {}

  // A hit when an intact entry exists for this device and problem, its pick's backend is
  // among `backends` (and wanted by `options`) at the version that measured it and can still
  // implement the config, and the entry holds a time for every choice a tuning would run
  // today (select_choices: the search space, narrowed by the lookup table and the cost
  // model). A lookup-table entry of mode "use" makes every lookup a miss. A damaged or unusable entry is reported once and treated as a miss with
  // nothing reusable, so that the caller re-tunes all and overwrites it.
  StoreLookup lookup(const Problem& problem, const DeviceInfo& device, const BackendList& backends,
                     const TuneOptions& options);
  // Writes the result (read-write mode only); a failure is a warning.
  void save(const TuneReport& report, const BackendList& backends);

  // A multi-kernel op's stored route for `key` (route_record.h); nullopt when there is none or
  // it is damaged (reported once).
  std::optional<RouteRecord> load_route(const std::string& key);
  // Writes a route (read-write mode only); a failure is a warning.
  void save_route(const std::string& key, const RouteRecord& route);

 private:
  std::unique_ptr<TuningStore> store_;
  StoreMode mode_;
};

}  // namespace gemmtune
