#include "session_store.h"

#include <chrono>

#include "store_entry.h"

namespace gemmtune {

std::unique_ptr<SessionStore> SessionStore::open(const StoreOptions& options) {
  if (options.mode == StoreMode::off) return nullptr;
  auto store = open_store(options);
  if (!store.is_ok()) {
    warn_once("tuning store unavailable (" + store.status().message() + "); results will not persist");
    return nullptr;
  }
  if (*store == nullptr) return nullptr;
  return std::make_unique<SessionStore>(std::move(store).value(), options.mode);
}

std::optional<StoredPick> SessionStore::lookup(const Problem& problem, const std::string& device,
                                               const BackendList& backends, const TuneOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const std::string problem_key = ProblemKey::of(problem).to_string();
  const std::string key = store_key(device, problem_key);
  auto ignore = [&](const std::string& why) -> std::optional<StoredPick> {
    warn_once("ignoring the stored entry for " + problem.describe() + " in " + store_->describe() + ": " + why +
              "; re-tuning");
    return std::nullopt;
  };

  auto text = store_->get(key);
  if (!text.is_ok()) {
    if (text.status().code() != ErrorCode::not_found) {
      warn_once("tuning store " + store_->describe() + ": " + text.status().message());
    }
    return std::nullopt;
  }
  auto entry = parse_entry(*text);
  if (!entry.is_ok()) return ignore(entry.status().message());
  if (entry->device != device || entry->problem != problem_key) return ignore("it was filed under another key");

  StoredPick pick;
  for (const auto& backend : backends) {
    if (backend->name() == entry->pick_backend) pick.backend = backend.get();
  }
  if (pick.backend == nullptr) return ignore("it names unknown backend '" + entry->pick_backend + "'");
  bool wanted = options.backends.empty();
  for (const std::string& name : options.backends) wanted = wanted || name == entry->pick_backend;
  if (!wanted) return std::nullopt;  // the caller narrowed the choice; the entry is fine
  // A new version of the picked backend may be faster or slower: the pick is stale, not bad.
  auto version = entry->backend_versions.find(entry->pick_backend);
  if (version == entry->backend_versions.end() || version->second != pick.backend->version()) return std::nullopt;

  auto config = KernelConfig::parse(entry->pick_config);
  if (!config.is_ok()) return ignore("its config '" + entry->pick_config + "' does not parse");
  pick.config = *config;
  if (Status can = pick.backend->can_implement(problem, pick.config); !can.is_ok()) {
    return ignore(entry->pick_backend + " can no longer implement " + entry->pick_config + ": " + can.message());
  }
  auto report = report_from_entry(*entry);
  if (!report.is_ok()) return ignore(report.status().message());
  pick.report = std::move(report).value();
  pick.report.key = ProblemKey::of(problem);
  pick.report.problem = problem.describe();
  pick.report.tuning_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return pick;
}

void SessionStore::save(const TuneReport& report, const BackendList& backends) {
  if (mode_ != StoreMode::read_write || report.best_choice() == nullptr) return;
  std::map<std::string, std::string> versions;
  for (const auto& backend : backends) versions[std::string(backend->name())] = backend->version();
  const StoreEntry entry = entry_from_report(report, std::move(versions));
  Status written = store_->put(store_key(entry.device, entry.problem), serialize_entry(entry));
  if (!written.is_ok()) warn_once("cannot write to tuning store " + store_->describe() + ": " + written.message());
}

}  // namespace gemmtune
