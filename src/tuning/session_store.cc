#include "session_store.h"

#include <chrono>

#include "choice_selection.h"
#include "../store/store_entry.h"

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

namespace {

const Backend* find_backend(const BackendList& backends, std::string_view name) {
  for (const auto& backend : backends) {
    if (backend->name() == name) return backend.get();
  }
  return nullptr;
}

bool holds(const std::vector<ChoiceReport>& choices, std::string_view backend, const KernelConfig& config) {
  for (const ChoiceReport& c : choices) {
    if (c.backend == backend && c.config == config) return true;
  }
  return false;
}

// The problem a store key stands for: alpha 1, and beta 0 or 1 by its class.
Problem key_problem(const Problem& problem) {
  ProblemSpec spec = problem.spec();
  spec.alpha = 1;
  spec.beta = problem.beta() == 0 ? 0 : 1;
  auto keyed = Problem::create(spec);
  return keyed.is_ok() ? *keyed : problem;
}

// The index of the fastest verified choice of `report` whose backend can run `problem`; -1 if
// none. A pruned choice counts: it was verified, and its short sample is its time. Where the
// pick's rivals were all pruned (a loaded machine prunes more), leaving them out would re-tune
// this call's alpha, and that tuning would replace the entry that holds alpha 1's pick.
int fastest_runnable(const TuneReport& report, const Problem& problem, const BackendList& backends) {
  int best = -1;
  for (std::size_t i = 0; i < report.choices.size(); ++i) {
    const ChoiceReport& c = report.choices[i];
    if ((c.status != ChoiceStatus::ok && c.status != ChoiceStatus::pruned) || c.time_us < 0) continue;
    if (best >= 0 && c.time_us >= report.choices[std::size_t(best)].time_us) continue;
    const Backend* backend = find_backend(backends, c.backend);
    if (backend != nullptr && backend->can_implement(problem, c.config).is_ok()) best = int(i);
  }
  return best;
}

}  // namespace

StoreLookup SessionStore::lookup(const Problem& problem, const DeviceInfo& device_info, const BackendList& backends,
                                 const TuneOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  const std::string device = device_info.fingerprint();
  const std::string problem_key = ProblemKey::of(problem).to_string();
  const std::string key = store_key(device, problem_key);
  auto ignore = [&](const std::string& why) {
    warn_once("ignoring the stored entry for " + problem.describe() + " in " + store_->describe() + ": " + why +
              "; re-tuning");
    return StoreLookup{};
  };

  auto text = store_->get(key);
  if (!text.is_ok()) {
    if (text.status().code() != ErrorCode::not_found) {
      warn_once("tuning store " + store_->describe() + ": " + text.status().message());
    }
    return {};
  }
  auto entry = parse_entry(*text);
  if (!entry.is_ok()) return ignore(entry.status().message());
  if (entry->device != device || entry->problem != problem_key) return ignore("it was filed under another key");
  auto report = report_from_entry(*entry);
  if (!report.is_ok()) return ignore(report.status().message());
  const Backend* pick_backend = find_backend(backends, entry->pick_backend);
  if (pick_backend == nullptr) return ignore("it names unknown backend '" + entry->pick_backend + "'");
  KernelConfig pick_config = report->best_choice()->config;
  if (Status can = pick_backend->can_implement(problem, pick_config); !can.is_ok()) {
    if (!pick_backend->can_implement(key_problem(problem), pick_config).is_ok()) {
      return ignore(entry->pick_backend + " can no longer implement " + entry->pick_config + ": " + can.message());
    }
    // The pick runs the key's problem but not this call's alpha or beta (libxsmm takes alpha 1
    // only): the fastest stored choice that runs this call serves it, without a word. Through
    // the BLAS drop-in a program calls one shape with several alphas.
    const int runner = fastest_runnable(*report, problem, backends);
    if (runner < 0) return {};
    report->best = runner;
    pick_backend = find_backend(backends, report->choices[std::size_t(runner)].backend);
    pick_config = report->choices[std::size_t(runner)].config;
  }

  // A new version of a backend may be faster or slower: its stored times are stale, not bad.
  auto current = [&](std::string_view name) {
    const Backend* backend = find_backend(backends, name);
    auto version = entry->backend_versions.find(std::string(name));
    return backend != nullptr && backend_wanted(options, name) && version != entry->backend_versions.end() &&
           version->second == backend->version();
  };
  StoreLookup out;
  for (const ChoiceReport& c : report->choices) {
    if (current(c.backend)) out.reusable.push_back(c);
  }
  // Today's choices (the search space, narrowed by the lookup table and the cost model) must
  // all have a stored time. A table entry that says "use this config" makes the store moot.
  const ChoiceSelection today = select_choices(problem, device_info, backends, options);
  if (today.use) return {};
  bool covered = current(pick_backend->name());
  for (std::size_t b = 0; b < backends.size() && covered; ++b) {
    for (const KernelConfig& config : today.configs[b]) {
      covered = covered && holds(out.reusable, backends[b]->name(), config);
    }
  }
  if (!covered) return out;

  StoredPick pick{pick_backend, pick_config, std::move(report).value()};
  pick.report.key = ProblemKey::of(problem);
  pick.report.problem = problem.describe();
  pick.report.tuning_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  out.hit = std::move(pick);
  out.reusable.clear();
  return out;
}

void SessionStore::save(const TuneReport& report, const BackendList& backends) {
  if (mode_ != StoreMode::read_write || report.best_choice() == nullptr) return;
  std::map<std::string, std::string> versions;
  for (const auto& backend : backends) versions[std::string(backend->name())] = backend->version();
  const StoreEntry entry = entry_from_report(report, std::move(versions));
  Status written = store_->put(store_key(entry.device, entry.problem), serialize_entry(entry));
  if (!written.is_ok()) warn_once("cannot write to tuning store " + store_->describe() + ": " + written.message());
}

std::optional<RouteRecord> SessionStore::load_route(const std::string& key) {
  auto text = store_->get(key);
  if (!text.is_ok()) return std::nullopt;
  auto route = parse_route(key, *text);
  if (!route.is_ok()) {
    warn_once(route.status().message() + " (" + key + "); routing the shape again");
    return std::nullopt;
  }
  return *route;
}

void SessionStore::save_route(const std::string& key, const RouteRecord& route) {
  if (mode_ != StoreMode::read_write) return;
  Status written = store_->put(key, serialize_route(key, route));
  if (!written.is_ok()) warn_once("cannot write to tuning store " + store_->describe() + ": " + written.message());
}

}  // namespace gemmtune
