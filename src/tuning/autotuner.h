// From a problem to the fastest correct kernel: gather every backend's configs, prepare them
// in parallel, verify each against the reference, time the survivors, pick.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <vector>

#include "../core/backend.h"
#include "../core/harness.h"
#include "choice_selection.h"
#include "gemmtune/tuning_options.h"
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

// Makes the harness a tuning checks and times its choices on. Null: the device's own
// (create_harness). Tests pass one of fixed times, so that the prune and the final round are
// checked without a clock.
using HarnessFactory = std::function<Result<std::unique_ptr<Harness>>(const DeviceInfo&)>;

// Tunes the choices select_choices() gives (choice_selection.h): all of the search space, or
// the cost model's top k, with the lookup table's configs; or, for a table entry of mode
// "use", prepares that config without tuning.
TuneOutcome autotune(const Problem& problem, const DeviceInfo& device, const BackendList& backends,
                     const TuneOptions& options, const HarnessFactory& make_harness = nullptr);
// Tunes exactly the choices of `selection` (and its reserve, should they all fail).
TuneOutcome autotune_selection(const Problem& problem, const DeviceInfo& device, const BackendList& backends,
                               const TuneOptions& options, const ChoiceSelection& selection,
                               const HarnessFactory& make_harness = nullptr);

// The first, short sample every choice gets before the full timing of those within
// TuneOptions::prune_factor of the fastest: one warm-up call, one sample of at most 1 ms.
TimingOptions short_sample_timing(const TimingOptions& full);
// What a short sample reads for the prune: the lower of the sample and the calibration run
// (TimingStats::calibration_us) where there is one. A one-off stall of the VM in either reading
// then no longer drops a choice: in the CPU sweeps of 2026-11-25 (359 shapes) the fastest
// config's short sample read over 1.5x the fastest short sample in 7 shapes, 1.5-3.6x its own
// full timing, and the prune would have kept a pick up to 1.18x slower. Over 11609 configs of
// two later sweeps, a reading above 1.5x the config's full time was 5x rarer this way (0.65 %
// of samples, 0.12 % of these readings; bench/results/2026-11-25b-cpu-short-sample.md).
double short_sample_us(const TimingStats& stats);

// The pick among timed choices: the fastest median, unless an earlier choice (in the fixed
// order) is within the noise band of it, max(noise_band × fastest, 2 × fastest's MAD); then
// the earliest such choice. -1 when none is ok.
int pick_best(const std::vector<ChoiceReport>& choices, double noise_band);

// The final round's pick (TuneOptions::finalists): rounds[i] holds finalist i's per-call
// times, one per round, finalists in the fixed order. The fastest is ratios_to_fastest's; an
// earlier finalist whose median ratio to it, round by round, is within 1 + noise_band is a
// tie, and the earliest such wins.
// `keep` (an index, or -1): a choice that wins whenever it is within the band, ahead of the
// fixed order (a multi-kernel op's serving sub-kernel at its revisit).
int pick_by_rounds(const std::vector<std::vector<double>>& rounds, double noise_band, int keep = -1);
// The fastest finalist: the one that none reads below 1 against, round by round (the median
// of their ratios), searched from the lowest median; if the search comes round to a finalist
// it has left, it stops where it is. 0 for no finalists.
std::size_t fastest_by_rounds(const std::vector<std::vector<double>>& rounds);
// Each finalist's median round-by-round ratio to the fastest, which reads 1.
std::vector<double> ratios_to_fastest(const std::vector<std::vector<double>>& rounds);
// Who the close finish times again (TuneOptions::close_band), as indices into `rounds`: the
// fastest and each finalist within max(close_band, noise_band) of it, but only where the
// rounds leave a pick open. That is where, for some finalist among them, the band's edge
// (1 + noise_band) lies within a 90 % interval of its median ratio to the fastest (its whole
// range of ratios for up to 7 rounds). Empty otherwise. On the 2-core VM the rounds of kernels
// of 20-40 ms scatter (the middle half of two kernels' round-by-round ratios spans 1-8 %, and
// single rounds read up to 30 % off): where our packed kernel is 3.6 % slower than oneDNN
// (256 × 6144 × 4096), 7 rounds read it within the 1 % band in 7 % of tunings and 21 rounds in
// 0.7 % (resampled; bench/results/2026-11-24f-cpu-close-round/). On the H100, where
// cuBLASLt's algorithms are often within 3 % of each other, a close finish wherever finalists
// were that close ran in 32 of 48 bf16 tunings; this rule ran it in 27.
std::vector<std::size_t> close_finish_members(const std::vector<std::vector<double>>& rounds, double noise_band,
                                              double close_band);

}  // namespace gemmtune
