#include "autotuner.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <optional>
#include <random>
#include <thread>
#include <utility>

#include "candidates.h"
#include "final_round.h"
#include "gemmtune/timing.h"
#include "../core/harness.h"
#include "../core/invariant.h"

namespace gemmtune {
namespace {

// Times `which` together; drops from it (marking them failed) those whose timing failed. Each
// one's time is its median, or with `short_sample` its short_sample_us.
void time_candidates(std::vector<Candidate*>& which, Harness& harness, const TimingOptions& timing,
                     std::vector<std::vector<double>>* rounds = nullptr, bool short_sample = false) {
  std::vector<Kernel*> kernels;
  for (Candidate* c : which) kernels.push_back(c->kernel.get());
  harness.reset_c();
  std::vector<Result<TimingStats>> stats = harness.time(kernels, timing);
  std::vector<Candidate*> survivors;
  if (rounds != nullptr) rounds->clear();
  for (std::size_t i = 0; i < which.size(); ++i) {
    if (!stats[i].is_ok()) {
      which[i]->report.status = ChoiceStatus::run_failed;
      which[i]->report.reason = stats[i].status().message();
      continue;
    }
    which[i]->report.time_us = short_sample ? short_sample_us(*stats[i]) : stats[i]->median_us;
    which[i]->report.time_mad_us = stats[i]->mad_us;
    which[i]->report.calls_per_sample = stats[i]->calls_per_sample;
    which[i]->report.calibration_us = stats[i]->calibration_us;
    survivors.push_back(which[i]);
    if (rounds != nullptr) rounds->push_back(stats[i]->sample_us);
  }
  which = survivors;
}

// Times the ok candidates: one short sample each, then full timing of those within
// prune_factor of the fastest short sample.
void time_all(std::vector<Candidate>& candidates, Harness& harness, const TuneOptions& options) {
  std::vector<Candidate*> timed;
  for (Candidate& c : candidates) {
    if (c.report.status == ChoiceStatus::ok) timed.push_back(&c);
  }
  if (options.prune_factor > 0 && timed.size() > 1) {
    time_candidates(timed, harness, short_sample_timing(options.timing), nullptr, /*short_sample=*/true);
    double fastest = -1;
    for (Candidate* c : timed) fastest = fastest < 0 ? c->report.time_us : std::min(fastest, c->report.time_us);
    std::vector<Candidate*> kept;
    for (Candidate* c : timed) {
      if (c->report.time_us <= options.prune_factor * fastest) {
        kept.push_back(c);
      } else {
        char reason[96];
        std::snprintf(reason, sizeof reason, "%.1fx slower than the fastest in a first sample; not timed further",
                      c->report.time_us / fastest);
        c->report.status = ChoiceStatus::pruned;
        c->report.reason = reason;
      }
    }
    timed = kept;
  }
  time_candidates(timed, harness, options.timing);
}

// The index of the earliest ratio within 1 + noise_band: the fastest's own ratio is 1, so it
// is found at the fastest or before. -1 for none.
int earliest_within_band(const std::vector<double>& ratios, double noise_band) {
  for (std::size_t i = 0; i < ratios.size(); ++i) {
    if (ratios[i] <= 1 + noise_band) return int(i);
  }
  return ratios.empty() ? -1 : 0;
}

// The final round's close finish (TuneOptions::close_band): the finalists that
// close_finish_members names are timed again among themselves for close_repeats × the
// samples, and `finalists`, `rounds` and `ratios` become theirs, over all their rounds. A
// finalist whose timing fails now drops out.
void close_round(std::vector<Candidate*>& finalists, std::vector<std::vector<double>>& rounds,
                 std::vector<double>& ratios, Harness& harness, const TuneOptions& options) {
  if (options.close_band <= 0 || options.close_repeats <= 0) return;
  std::vector<Candidate*> close;
  for (std::size_t i : close_finish_members(rounds, options.noise_band, options.close_band)) {
    close.push_back(finalists[i]);
  }
  if (close.empty()) return;
  TimingOptions more = options.timing;
  more.samples = options.close_repeats * options.timing.samples;
  std::vector<Candidate*> retimed = close;
  std::vector<std::vector<double>> extra;
  time_candidates(retimed, harness, more, &extra);
  std::vector<Candidate*> kept;
  std::vector<std::vector<double>> kept_rounds;
  for (std::size_t i = 0, r = 0; i < finalists.size() && r < retimed.size(); ++i) {
    if (finalists[i] != retimed[r]) continue;
    kept.push_back(finalists[i]);
    kept_rounds.push_back(rounds[i]);
    kept_rounds.back().insert(kept_rounds.back().end(), extra[r].begin(), extra[r].end());
    ++r;
  }
  finalists = kept;
  rounds = kept_rounds;
  ratios = ratios_to_fastest(rounds);
  for (std::size_t i = 0; i < finalists.size(); ++i) {
    finalists[i]->report.final_ratio = ratios[i];
    finalists[i]->report.final_rounds = int(rounds[i].size());
  }
}

// The final round (TuneOptions::finalists): the fastest few of the full timing, each
// backend's fastest and each backend's lead (final_round_members), timed again together,
// and those close to the fastest once more among themselves (close_round); their times in
// the report become these rounds'. The leads are cuBLASLt's first heuristic pick, oneDNN's
// default: on the H100 a tuning of s8 16 × 4096 × 4096 left cuBLASLt's first pick out of its
// three fastest and kept one 12 % slower than it. The index of the pick, or
// -1 when there was no round to make it (fewer than two finalists, or their timing failed).
int final_round(std::vector<Candidate>& candidates, Harness& harness, const TuneOptions& options) {
  if (options.finalists < 2) return -1;
  std::vector<Candidate*> all, timed;
  for (Candidate& c : candidates) {
    all.push_back(&c);
    if (c.report.status == ChoiceStatus::ok && c.report.time_us >= 0) timed.push_back(&c);
  }
  if (timed.size() < 2) return -1;
  // Candidates come backend by backend, each in its own config order (a cost model's reserve,
  // appended later, never leads).
  auto backend = [](const Candidate* c) { return c->backend; };
  const std::vector<Candidate*> leads = first_of_each(all, backend);
  std::vector<Candidate*> finalists = final_round_members(
      timed, leads, options.finalists, [](const Candidate* c) { return c->report.time_us; }, backend);
  // Back into the fixed order, in which ties break.
  std::sort(finalists.begin(), finalists.end());
  std::vector<std::vector<double>> rounds;
  time_candidates(finalists, harness, options.timing, &rounds);
  if (finalists.empty()) return -1;
  std::vector<double> ratios = ratios_to_fastest(rounds);
  for (std::size_t i = 0; i < finalists.size(); ++i) {
    finalists[i]->report.final_ratio = ratios[i];
    finalists[i]->report.final_rounds = int(rounds[i].size());
  }
  close_round(finalists, rounds, ratios, harness, options);
  if (finalists.empty()) return -1;
  const int winner = earliest_within_band(ratios, options.noise_band);
  GEMMTUNE_ASSERT(winner >= 0 && std::size_t(winner) < finalists.size(), "the final round picks one of its finalists");
  return int(finalists[std::size_t(winner)] - candidates.data());
}

// An interval that holds the median of what `values` sample with 90 % confidence or more,
// from their order statistics: the j-th lowest and the j-th highest, for the largest j at
// which fewer than j of n values fall below the median with probability 5 % or less (the
// whole range for up to 7 values, the 7th from each end of 21).
std::pair<double, double> median_interval(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  const std::size_t n = values.size();
  // P(Binomial(n, 1/2) <= j - 1), summed as j grows.
  double term = std::pow(0.5, double(n)), below = term;
  std::size_t j = 1;
  while (j < n / 2) {
    term *= double(n - j + 1) / double(j);  // P(X = j) from P(X = j - 1)
    if (below + term > 0.05) break;
    below += term;
    ++j;
  }
  return {values[j - 1], values[n - j]};
}

std::uint64_t fresh_seed() {
  static std::atomic<std::uint64_t> counter{0};
  return std::random_device{}() ^ (std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) +
                                   (counter++ << 32));
}

}  // namespace

double short_sample_us(const TimingStats& stats) {
  return stats.calibration_us > 0 ? std::min(stats.median_us, stats.calibration_us) : stats.median_us;
}

TimingOptions short_sample_timing(const TimingOptions& full) {
  TimingOptions quick = full;
  quick.samples = 1;
  quick.warmup_runs = 1;
  quick.min_sample_ms = std::min(quick.min_sample_ms, 1.0);
  return quick;
}

std::size_t fastest_by_rounds(const std::vector<std::vector<double>>& rounds) {
  if (rounds.empty()) return 0;
  std::size_t fastest = 0;
  for (std::size_t i = 1; i < rounds.size(); ++i) {
    if (median_of(rounds[i]) < median_of(rounds[fastest])) fastest = i;
  }
  // The lowest median is where the search starts, not always where it ends: a finalist faster
  // than it in most rounds reads below 1 against it (on the VM, oneDNN 0.99 against our
  // packed kernel at 256 × 6144 × 4096 while its median was the higher) and becomes the
  // fastest instead. Round-by-round medians need not be transitive, so each finalist is the
  // fastest at most once.
  std::vector<bool> tried(rounds.size(), false);
  for (;;) {
    tried[fastest] = true;
    std::size_t below = fastest;
    double lowest = 1.0;
    for (std::size_t i = 0; i < rounds.size(); ++i) {
      if (i == fastest) continue;
      const double ratio = median_ratio_by_round(rounds[i], rounds[fastest]);
      if (ratio < lowest && !tried[i]) below = i, lowest = ratio;
    }
    if (below == fastest) break;
    fastest = below;
  }
  return fastest;
}

std::vector<double> ratios_to_fastest(const std::vector<std::vector<double>>& rounds) {
  if (rounds.empty()) return {};
  const std::size_t fastest = fastest_by_rounds(rounds);
  std::vector<double> out(rounds.size(), 1.0);
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    if (i != fastest) out[i] = median_ratio_by_round(rounds[i], rounds[fastest]);
  }
  return out;
}

std::vector<std::size_t> close_finish_members(const std::vector<std::vector<double>>& rounds, double noise_band,
                                              double close_band) {
  if (rounds.size() < 2) return {};
  const std::size_t fastest = fastest_by_rounds(rounds);
  // Never narrower than the noise band: a tie with the fastest is always among them.
  const double band = std::max(close_band, noise_band);
  std::vector<std::size_t> members;
  bool undecided = false;
  for (std::size_t i = 0; i < rounds.size(); ++i) {
    if (i == fastest) {
      members.push_back(i);
      continue;
    }
    const std::vector<double> ratios = ratios_by_round(rounds[i], rounds[fastest]);
    if (ratios.empty() || median_of(ratios) > 1 + band) continue;
    members.push_back(i);
    const auto [low, high] = median_interval(ratios);
    undecided = undecided || (low <= 1 + noise_band && 1 + noise_band < high);
  }
  if (!undecided) return {};
  return members;
}

int pick_by_rounds(const std::vector<std::vector<double>>& rounds, double noise_band, int keep) {
  const std::vector<double> ratios = ratios_to_fastest(rounds);
  if (keep >= 0 && std::size_t(keep) < ratios.size() && ratios[std::size_t(keep)] <= 1 + noise_band) return keep;
  return earliest_within_band(ratios, noise_band);
}

int pick_best(const std::vector<ChoiceReport>& choices, double noise_band) {
  int fastest = -1;
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (choices[i].status != ChoiceStatus::ok || choices[i].time_us < 0) continue;
    if (fastest < 0 || choices[i].time_us < choices[std::size_t(fastest)].time_us) fastest = int(i);
  }
  if (fastest < 0) return -1;
  const ChoiceReport& best = choices[std::size_t(fastest)];
  const double band = std::max(noise_band * best.time_us, 2.0 * best.time_mad_us);
  for (std::size_t i = 0; i < choices.size(); ++i) {
    if (choices[i].status == ChoiceStatus::ok && choices[i].time_us >= 0 &&
        choices[i].time_us <= best.time_us + band) {
      return int(i);
    }
  }
  return fastest;
}

namespace {

// A lookup-table config used without tuning: prepared, neither verified nor timed (a config
// changes speed, never results). Nullopt when it fails to prepare.
std::optional<TuneOutcome> use_without_tuning(const Problem& problem, const DeviceInfo& device,
                                              const BackendList& backends, const ChoiceSelection& selection,
                                              std::string& why) {
  const auto start = std::chrono::steady_clock::now();
  const Backend& backend = *backends[selection.use->backend];
  // What the config cost to compile: none where its kernel was in the cubin cache (a bundle's).
  const std::int64_t compilations_before = backend.compilations();
  Candidate c = candidate(backend, selection.use->config);
  prepare_one(problem, c);
  if (c.report.status != ChoiceStatus::ok) {
    why = std::string(backend.name()) + " " + c.report.config.to_string() + ": " + c.report.reason;
    return std::nullopt;
  }
  TuneOutcome outcome;
  c.report.reason = "from the lookup table, used without tuning";
  outcome.report.choices.push_back(c.report);
  outcome.report.best = 0;
  outcome.report.problem = problem.describe();
  outcome.report.key = ProblemKey::of(problem);
  outcome.report.device = device.fingerprint();
  outcome.report.selection = selection.note;
  outcome.kernel = std::move(c.kernel);
  outcome.from_lookup_table = true;
  outcome.report.compilations = backend.compilations() - compilations_before;
  outcome.report.tuning_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

}  // namespace

TuneOutcome autotune_selection(const Problem& problem, const DeviceInfo& device, const BackendList& backends,
                               const TuneOptions& options, const ChoiceSelection& selection,
                               const HarnessFactory& make_harness) {
  const auto start = std::chrono::steady_clock::now();
  auto compiled_so_far = [&backends] {
    std::int64_t total = 0;
    for (const auto& backend : backends) total += backend->compilations();
    return total;
  };
  const std::int64_t compilations_before = compiled_so_far();
  TuneReport::Phases phases;
  // Adds the wall time since the last lap to `phase`.
  auto lap = [last = start](double& phase) mutable {
    const auto now = std::chrono::steady_clock::now();
    phase += std::chrono::duration<double>(now - last).count();
    last = now;
  };
  std::vector<Candidate> candidates = gather(problem, backends, selection);
  // The operands and their reference are set up meanwhile (a GPU's copies and reference
  // kernel beside the compiles on the CPU).
  Result<std::unique_ptr<Harness>> harness = Status(ErrorCode::internal, "no harness yet");
  Status ready = Status::ok();
  std::thread operands([&] {
    const auto operands_start = std::chrono::steady_clock::now();
    harness = make_harness ? make_harness(device) : create_harness(device);
    ready = harness.is_ok() ? (*harness)->prepare(problem, options.seed != 0 ? options.seed : fresh_seed())
                            : harness.status();
    phases.operands_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - operands_start).count();
  });
  const double cpu_before = process_cpu_s();
  prepare_all(problem, candidates);
  phases.prepare_cpu_s = process_cpu_s() - cpu_before;
  lap(phases.prepare_s);
  operands.join();
  // The operands' wait beyond the prepare, if any, counts as theirs (already in operands_s).
  double waited_for_operands = 0;
  lap(waited_for_operands);
  TuneOutcome outcome;
  int final_pick = -1;
  if (!ready.is_ok()) {
    // Without operands nothing can be checked, so nothing may be picked.
    for (Candidate& c : candidates) {
      if (c.report.status != ChoiceStatus::ok) continue;
      c.report.status = ChoiceStatus::run_failed;
      c.report.reason = "cannot set up operands: " + ready.message();
    }
  } else {
    verify_all(candidates, **harness);
    lap(phases.verify_s);
    // The cost model's top choices all failed: the next ones of its ranking, k at a time.
    for (std::size_t next = 0; !any_ok(candidates) && next < selection.reserve.size();) {
      const std::size_t first = candidates.size();
      for (std::size_t taken = 0; taken < std::max<std::size_t>(1, selection.batch) && next < selection.reserve.size();
           ++taken, ++next) {
        const SelectedChoice& choice = selection.reserve[next];
        candidates.push_back(candidate(*backends[choice.backend], choice.config));
      }
      prepare_all(problem, candidates, first);
      lap(phases.prepare_s);
      verify_all(candidates, **harness, first);
      lap(phases.verify_s);
    }
    time_all(candidates, **harness, options);
    lap(phases.timing_s);
    final_pick = final_round(candidates, **harness, options);
    lap(phases.final_round_s);
  }

  TuneReport& report = outcome.report;
  report.problem = problem.describe();
  report.key = ProblemKey::of(problem);
  report.device = device.fingerprint();
  report.selection = selection.note;
  report.phases = phases;
  for (Candidate& c : candidates) report.choices.push_back(c.report);
  report.best = final_pick >= 0 ? final_pick : pick_best(report.choices, options.noise_band);
  if (report.best >= 0) {
    GEMMTUNE_ASSERT(std::size_t(report.best) < candidates.size() &&
                        candidates[std::size_t(report.best)].report.status == ChoiceStatus::ok &&
                        candidates[std::size_t(report.best)].kernel != nullptr,
                    "the pick is a verified candidate with its kernel");
    outcome.kernel = std::move(candidates[std::size_t(report.best)].kernel);
  }
  report.compilations = compiled_so_far() - compilations_before;
  report.tuning_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (options.print_table) std::fputs(report.table().c_str(), stderr);
  return outcome;
}

TuneOutcome autotune(const Problem& problem, const DeviceInfo& device, const BackendList& backends,
                     const TuneOptions& options, const HarnessFactory& make_harness) {
  const ChoiceSelection selection = select_choices(problem, device, backends, options);
  if (!selection.use) return autotune_selection(problem, device, backends, options, selection, make_harness);
  std::string why;
  if (std::optional<TuneOutcome> used = use_without_tuning(problem, device, backends, selection, why)) {
    if (options.print_table) std::fputs(used->report.table().c_str(), stderr);
    return std::move(*used);
  }
  // The table's config does not prepare here: tune as if the table had no entry.
  TuneOptions without_table = options;
  without_table.lut = nullptr;
  TuneOutcome outcome = autotune(problem, device, backends, without_table, make_harness);
  outcome.report.selection = "lookup table config failed to prepare (" + why + "), tuned instead" +
                             (outcome.report.selection.empty() ? "" : "; " + outcome.report.selection);
  return outcome;
}

}  // namespace gemmtune
