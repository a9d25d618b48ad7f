// From a problem to the fastest correct kernel: gather every backend's configs, prepare them
// in parallel, verify each against the reference, time the survivors, pick.
#pragma once

#include <memory>
#include <vector>

#include "backend.h"
#include "choice_selection.h"
#include "gemmtune/session.h"
#include "gemmtune/tune_report.h"

namespace gemmtune {

struct TuneOutcome {
  TuneReport report;
  // The picked kernel, ready to run; null when no choice succeeded.
  std::shared_ptr<Kernel> kernel;
  // The pick came from a lookup-table entry of mode "use", untimed: the table, not the
  // store, is where it lives.
  bool from_lookup_table = false;
};

// Tunes the choices select_choices() gives (choice_selection.h): all of the search space, or
// the cost model's top k, with the lookup table's configs; or, for a table entry of mode
// "use", prepares that config without tuning.
TuneOutcome autotune(const Problem& problem, const DeviceInfo& device, const BackendList& backends,
                     const TuneOptions& options);
// Tunes exactly the choices of `selection` (and its reserve, should they all fail).
TuneOutcome autotune_selection(const Problem& problem, const DeviceInfo& device, const BackendList& backends,
                               const TuneOptions& options, const ChoiceSelection& selection);

// The first, short sample every choice gets before the full timing of those within
// TuneOptions::prune_factor of the fastest: one warm-up call, one sample of at most 1 ms.
TimingOptions short_sample_timing(const TimingOptions& full);

// The pick among timed choices: the fastest median, unless an earlier choice (in the fixed
// order) is within the noise band of it, max(noise_band × fastest, 2 × fastest's MAD); then
// the earliest such choice. -1 when none is ok.
int pick_best(const std::vector<ChoiceReport>& choices, double noise_band);

// The final round's pick (TuneOptions::finalists): rounds[i] holds finalist i's per-call
// times, one per round, finalists in the fixed order. The fastest is ratios_to_fastest's; an
// earlier finalist whose median ratio to it, round by round, is within 1 + noise_band is a
// tie, and the earliest such wins.
int pick_by_rounds(const std::vector<std::vector<double>>& rounds, double noise_band);
// Each finalist's median round-by-round ratio to the fastest, which reads 1. The fastest is
// the finalist that none reads below 1 against, searched from the lowest median (if the
// search comes round to a finalist it has left, it stops where it is).
std::vector<double> ratios_to_fastest(const std::vector<std::vector<double>>& rounds);

}  // namespace gemmtune
