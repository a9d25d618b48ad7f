#include "autotuner.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <exception>
#include <random>
#include <thread>

#include "harness.h"

namespace gemmtune {
namespace {

struct Candidate {
  const Backend* backend = nullptr;
  std::unique_ptr<Kernel> kernel;
  ChoiceReport report;
};

bool wanted(const TuneOptions& options, std::string_view backend) {
  if (options.backends.empty()) return true;
  for (const std::string& name : options.backends) {
    if (name == backend) return true;
  }
  return false;
}

std::vector<Candidate> gather(const Problem& problem, const BackendList& backends, const TuneOptions& options) {
  std::vector<Candidate> candidates;
  for (const auto& backend : backends) {
    if (!wanted(options, backend->name())) continue;
    std::vector<KernelConfig> configs = backend->configs(problem, options.search);
    if (configs.empty()) {
      // Say why the backend offers nothing rather than leave it out silently.
      Candidate c;
      c.backend = backend.get();
      c.report.backend = std::string(backend->name());
      c.report.status = ChoiceStatus::skipped;
      Status why = backend->can_implement(problem, {});
      c.report.reason = why.is_ok() ? "no config fits this problem" : why.message();
      candidates.push_back(std::move(c));
      continue;
    }
    for (const KernelConfig& config : configs) {
      Candidate c;
      c.backend = backend.get();
      c.report.backend = std::string(backend->name());
      c.report.config = config;
      c.report.status = ChoiceStatus::ok;
      candidates.push_back(std::move(c));
    }
  }
  return candidates;
}

void prepare_one(const Problem& problem, Candidate& c) {
  if (c.report.status != ChoiceStatus::ok) return;
  Status can = c.backend->can_implement(problem, c.report.config);
  if (!can.is_ok()) {
    c.report.status = ChoiceStatus::skipped;
    c.report.reason = can.message();
    return;
  }
  try {
    auto kernel = c.backend->prepare(problem, c.report.config);
    if (!kernel.is_ok()) {
      c.report.status = ChoiceStatus::prepare_failed;
      c.report.reason = kernel.status().message();
      return;
    }
    c.kernel = std::move(kernel).value();
  } catch (const std::exception& e) {
    c.report.status = ChoiceStatus::prepare_failed;
    c.report.reason = std::string("prepare threw: ") + e.what();
  } catch (...) {
    c.report.status = ChoiceStatus::prepare_failed;
    c.report.reason = "prepare threw a non-standard exception";
  }
}

// Preparing can mean compiling (NVRTC, oneDNN JIT): spread it over the cores.
void prepare_all(const Problem& problem, std::vector<Candidate>& candidates) {
  std::atomic<std::size_t> next{0};
  const unsigned workers = std::max(1u, std::min<unsigned>(std::thread::hardware_concurrency(),
                                                            unsigned(candidates.size())));
  std::vector<std::thread> pool;
  for (unsigned w = 0; w < workers; ++w) {
    pool.emplace_back([&] {
      for (std::size_t i = next++; i < candidates.size(); i = next++) prepare_one(problem, candidates[i]);
    });
  }
  for (auto& thread : pool) thread.join();
}

void verify_all(std::vector<Candidate>& candidates, Harness& harness) {
  for (Candidate& c : candidates) {
    if (c.report.status != ChoiceStatus::ok) continue;
    harness.reset_c();
    Status ran = run_guarded(*c.kernel, harness.args());
    if (!ran.is_ok()) {
      c.report.status = ChoiceStatus::run_failed;
      c.report.reason = ran.message();
      continue;
    }
    VerifyOutcome outcome = harness.check();
    c.report.error = outcome.error;
    if (!outcome.ok) {
      c.report.status = ChoiceStatus::wrong_result;
      c.report.reason = outcome.reason;
    }
  }
}

// Times the ok candidates: one short sample each, then full timing of those within
// prune_factor of the fastest short sample.
void time_all(std::vector<Candidate>& candidates, Harness& harness, const TuneOptions& options) {
  auto time_some = [&](std::vector<Candidate*>& which, const TimingOptions& timing) {
    std::vector<Kernel*> kernels;
    for (Candidate* c : which) kernels.push_back(c->kernel.get());
    harness.reset_c();
    std::vector<Result<TimingStats>> stats = harness.time(kernels, timing);
    std::vector<Candidate*> survivors;
    for (std::size_t i = 0; i < which.size(); ++i) {
      if (!stats[i].is_ok()) {
        which[i]->report.status = ChoiceStatus::run_failed;
        which[i]->report.reason = stats[i].status().message();
        continue;
      }
      which[i]->report.time_us = stats[i]->median_us;
      which[i]->report.time_mad_us = stats[i]->mad_us;
      survivors.push_back(which[i]);
    }
    which = survivors;
  };

  std::vector<Candidate*> timed;
  for (Candidate& c : candidates) {
    if (c.report.status == ChoiceStatus::ok) timed.push_back(&c);
  }
  if (options.prune_factor > 0 && timed.size() > 1) {
    TimingOptions quick = options.timing;
    quick.samples = 1;
    quick.warmup_runs = 1;
    quick.min_sample_ms = std::min(quick.min_sample_ms, 1.0);
    time_some(timed, quick);
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
  time_some(timed, options.timing);
}

std::uint64_t fresh_seed() {
  static std::atomic<std::uint64_t> counter{0};
  return std::random_device{}() ^ (std::uint64_t(std::chrono::steady_clock::now().time_since_epoch().count()) +
                                   (counter++ << 32));
}

}  // namespace

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

TuneOutcome autotune(const Problem& problem, const DeviceInfo& device, const BackendList& backends,
                     const TuneOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  auto compiled_so_far = [&backends] {
    std::int64_t total = 0;
    for (const auto& backend : backends) total += backend->compilations();
    return total;
  };
  const std::int64_t compilations_before = compiled_so_far();
  std::vector<Candidate> candidates = gather(problem, backends, options);
  prepare_all(problem, candidates);
  TuneOutcome outcome;
  auto harness = create_harness(device);
  Status ready = harness.is_ok() ? (*harness)->prepare(problem, options.seed != 0 ? options.seed : fresh_seed())
                                 : harness.status();
  if (!ready.is_ok()) {
    // Without operands nothing can be checked, so nothing may be picked.
    for (Candidate& c : candidates) {
      if (c.report.status != ChoiceStatus::ok) continue;
      c.report.status = ChoiceStatus::run_failed;
      c.report.reason = "cannot set up operands: " + ready.message();
    }
  } else {
    verify_all(candidates, **harness);
    time_all(candidates, **harness, options);
  }

  TuneReport& report = outcome.report;
  report.problem = problem.describe();
  report.key = ProblemKey::of(problem);
  report.device = device.fingerprint();
  for (Candidate& c : candidates) report.choices.push_back(c.report);
  report.best = pick_best(report.choices, options.noise_band);
  if (report.best >= 0) outcome.kernel = std::move(candidates[std::size_t(report.best)].kernel);
  report.compilations = compiled_so_far() - compilations_before;
  report.tuning_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (options.print_table) std::fputs(report.table().c_str(), stderr);
  return outcome;
}

}  // namespace gemmtune
