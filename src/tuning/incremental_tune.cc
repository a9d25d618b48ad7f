#include "incremental_tune.h"

#include <algorithm>

#include "guarded_choice.h"

namespace gemmtune {
namespace {

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

  // Today's choices (choice_selection.h), less those carried over from the store.
  const ChoiceSelection today = select_choices(problem, device, backends, options);
  if (today.use) return autotune(problem, device, backends, options);
  ChoiceSelection fresh_choices = today;
  for (std::size_t b = 0; b < backends.size(); ++b) {
    std::vector<KernelConfig> keep;
    for (const KernelConfig& config : today.configs[b]) {
      if (find_choice(carried, backends[b]->name(), config) == nullptr) keep.push_back(config);
    }
    fresh_choices.configs[b] = std::move(keep);
  }
  // The ranking's reserve stands in for top choices that all fail; a good carried choice
  // already does.
  for (const ChoiceReport& c : carried) {
    if (c.status == ChoiceStatus::ok) fresh_choices.reserve.clear();
  }
  TuneOutcome fresh = autotune_selection(problem, device, backends, options, fresh_choices);
  const std::vector<std::vector<KernelConfig>>& all_configs = today.configs;

  // Every choice in the fixed order (backend registration, then config order), as a full
  // tuning would list them, so that pick_best breaks ties the same way.
  TuneOutcome out;
  out.report = fresh.report;
  out.report.choices.clear();
  for (std::size_t b = 0; b < backends.size(); ++b) {
    const std::string_view name = backends[b]->name();
    if (today.offered[b] == 0) {
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
  // Choices the fresh tuning took from the ranking's reserve (its top choices all failed).
  for (const ChoiceReport& c : fresh.report.choices) {
    if (find_choice(out.report.choices, c.backend, c.config) == nullptr) out.report.choices.push_back(c);
  }
  // The fresh tuning's pick stands: it timed the stored pick (the anchor) beside today's
  // choices, and every other stored choice was slower than the anchor, or tied with it, when
  // stored. Its final round (TuneOptions::finalists) picked on the times of one run, which a
  // comparison with times stored from other runs would undo.
  out.report.best = -1;
  if (const ChoiceReport* fresh_best = fresh.report.best_choice()) {
    for (std::size_t i = 0; i < out.report.choices.size(); ++i) {
      const ChoiceReport& c = out.report.choices[i];
      if (c.backend == fresh_best->backend && c.config == fresh_best->config) out.report.best = int(i);
    }
    out.kernel = std::move(fresh.kernel);
    return out;
  }
  // The fresh tuning picked nothing: the stored times decide, and the pick is prepared now.
  out.report.best = pick_best(out.report.choices, options.noise_band);
  if (out.report.best < 0) return out;
  const ChoiceReport& best = out.report.choices[std::size_t(out.report.best)];
  for (const auto& backend : backends) {
    if (backend->name() != best.backend) continue;
    auto kernel = prepare_checked(*backend, problem, best.config);
    if (kernel.is_ok()) {
      out.kernel = std::shared_ptr<Kernel>(std::move(kernel).value());
      return out;
    }
  }
  out.report.best = -1;
  return out;
}

}  // namespace gemmtune
