#include "incremental_tune.h"

#include <algorithm>

namespace gemmtune {
namespace {

// A backend seen through a narrower config list: the autotuner runs only `keep`.
class NarrowedBackend final : public Backend {
 public:
  NarrowedBackend(const Backend& real, std::vector<KernelConfig> keep) : real_(real), keep_(std::move(keep)) {}
  std::string_view name() const override { return real_.name(); }
  std::string version() const override { return real_.version(); }
  std::vector<KernelConfig> configs(const Problem&, SearchSpace) const override { return keep_; }
  Status can_implement(const Problem& problem, const KernelConfig& config) const override {
    return real_.can_implement(problem, config);
  }
  Result<std::unique_ptr<Kernel>> prepare(const Problem& problem, const KernelConfig& config) const override {
    return real_.prepare(problem, config);
  }

 private:
  const Backend& real_;
  std::vector<KernelConfig> keep_;
};

const ChoiceReport* find_choice(const std::vector<ChoiceReport>& choices, std::string_view backend,
                                const KernelConfig& config) {
  for (const ChoiceReport& c : choices) {
    if (c.backend == backend && c.config == config) return &c;
  }
  return nullptr;
}

}  // namespace

TuneOutcome tune_incrementally(const Problem& problem, const DeviceInfo& device, const BackendList& backends,
                               const TuneOptions& options, const std::vector<ChoiceReport>& reusable) {
  // The anchor: the fastest stored choice runs again, so that the fresh times have a peer
  // measured in the same run.
  const int anchor = pick_best(reusable, options.noise_band);
  std::vector<ChoiceReport> carried;
  for (std::size_t i = 0; i < reusable.size(); ++i) {
    if (int(i) != anchor) carried.push_back(reusable[i]);
  }

  BackendList narrowed;
  std::vector<std::vector<KernelConfig>> all_configs;
  for (const auto& backend : backends) {
    all_configs.push_back(backend->configs(problem, options.search));
    std::vector<KernelConfig> keep;
    for (const KernelConfig& config : all_configs.back()) {
      if (find_choice(carried, backend->name(), config) == nullptr) keep.push_back(config);
    }
    narrowed.push_back(std::make_unique<NarrowedBackend>(*backend, std::move(keep)));
  }
  TuneOutcome fresh = autotune(problem, device, narrowed, options);

  // Every choice in the fixed order (backend registration, then config order), as a full
  // tuning would list them, so that pick_best breaks ties the same way.
  TuneOutcome out;
  out.report = fresh.report;
  out.report.choices.clear();
  for (std::size_t b = 0; b < backends.size(); ++b) {
    const std::string_view name = backends[b]->name();
    if (all_configs[b].empty()) {
      for (const ChoiceReport& c : fresh.report.choices) {
        if (c.backend == name) out.report.choices.push_back(c);  // its "offers nothing" row
      }
      continue;
    }
    for (const KernelConfig& config : all_configs[b]) {
      if (const ChoiceReport* c = find_choice(fresh.report.choices, name, config)) {
        out.report.choices.push_back(*c);
      } else if (const ChoiceReport* stored = find_choice(carried, name, config)) {
        out.report.choices.push_back(*stored);
      }
    }
  }
  out.report.best = pick_best(out.report.choices, options.noise_band);
  if (out.report.best < 0) return out;

  const ChoiceReport& best = out.report.choices[std::size_t(out.report.best)];
  const ChoiceReport* fresh_best = fresh.report.best_choice();
  if (fresh_best != nullptr && fresh_best->backend == best.backend && fresh_best->config == best.config) {
    out.kernel = std::move(fresh.kernel);
    return out;
  }
  // A stored choice won (or a fresh one other than the autotuner's pick, by the tie-break):
  // prepare it now. Should that fail, fall back to the fresh pick.
  for (const auto& backend : backends) {
    if (backend->name() != best.backend) continue;
    if (!backend->can_implement(problem, best.config).is_ok()) break;
    auto kernel = backend->prepare(problem, best.config);
    if (kernel.is_ok()) {
      out.kernel = std::shared_ptr<Kernel>(std::move(kernel).value());
      return out;
    }
  }
  out.kernel = std::move(fresh.kernel);
  out.report.best = -1;
  if (fresh_best != nullptr) {
    for (std::size_t i = 0; i < out.report.choices.size(); ++i) {
      const ChoiceReport& c = out.report.choices[i];
      if (c.backend == fresh_best->backend && c.config == fresh_best->config) out.report.best = int(i);
    }
  }
  return out;
}

}  // namespace gemmtune
