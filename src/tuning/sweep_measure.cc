#include "sweep_measure.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <numeric>
#include <random>

#include "../core/harness.h"
#include "../core/usable_cpus.h"
#include "autotuner.h"
#include "candidates.h"
#include "guarded_choice.h"

namespace gemmtune {
namespace {

using Clock = std::chrono::steady_clock;

double micros_since(Clock::time_point start) {
  return std::chrono::duration<double, std::micro>(Clock::now() - start).count();
}

// The single kernel's timing, and its wall time.
Result<TimingStats> time_one(Harness& harness, Kernel& kernel, const TimingOptions& timing, double& cost_us) {
  const auto start = Clock::now();
  harness.reset_c();
  std::vector<Result<TimingStats>> stats = harness.time({&kernel}, timing);
  cost_us = micros_since(start);
  return stats.front();
}

// One verified run of a prepared kernel, its wall time recorded; the kernel when it passed.
std::unique_ptr<Kernel> verified(std::unique_ptr<Kernel> kernel, Harness& harness, ConfigMeasurement& m) {
  if (!kernel || m.status != ChoiceStatus::ok) return nullptr;
  const auto verify_start = Clock::now();
  CheckedRun checked = run_and_check(*kernel, harness);
  m.status = checked.status;
  m.reason = std::move(checked.reason);
  m.verify_us = micros_since(verify_start);
  if (m.status != ChoiceStatus::ok) return nullptr;
  return kernel;
}

// The configs of `backend` a sweep measures: every one, or a random sample of at most
// options.configs_per_backend drawn from a generator seeded by the seed, the shape and the
// backend (FNV-1a and the standard's mt19937_64: the same sample in every build), kept in the
// space's order.
std::vector<KernelConfig> swept_configs(const Backend& backend, const Problem& problem, const SweepOptions& options) {
  std::vector<KernelConfig> configs = backend.configs(problem, options.search);
  const std::size_t keep = options.configs_per_backend;
  if (keep == 0 || configs.size() <= keep) return configs;
  std::uint64_t seed = 1469598103934665603ull ^ options.seed;
  for (char c : ProblemKey::of(problem).to_string() + "/" + std::string(backend.name())) {
    seed = (seed ^ std::uint8_t(c)) * 1099511628211ull;
  }
  std::mt19937_64 random(seed);
  std::vector<std::size_t> order(configs.size());
  std::iota(order.begin(), order.end(), 0);
  for (std::size_t i = 0; i < keep; ++i) {
    std::swap(order[i], order[i + std::size_t(random() % (order.size() - i))]);
  }
  order.resize(keep);
  std::sort(order.begin(), order.end());
  std::vector<KernelConfig> sample;
  for (std::size_t i : order) sample.push_back(std::move(configs[i]));
  return sample;
}

}  // namespace

Result<ShapeMeasurement> measure_every_config(const Problem& problem, const DeviceInfo& device,
                                              const BackendList& backends, const SweepOptions& options) {
  if (options.full_within < 1) return invalid_argument("full_within must be >= 1");
  ShapeMeasurement out;
  const auto setup_start = Clock::now();
  GEMMTUNE_ASSIGN_OR_RETURN(std::unique_ptr<Harness> harness, create_harness(device));
  GEMMTUNE_RETURN_IF_ERROR(harness->prepare(problem, options.seed));
  out.setup_us = micros_since(setup_start);

  // Every wanted backend's configs, in the fixed order. One that cannot run is marked skipped
  // here, with what finding that out cost as its prepare time (a tuning pays it too), and
  // prepare_all passes over it.
  std::vector<Candidate> all;
  for (const auto& backend : backends) {
    if (!options.backends.empty() &&
        std::find(options.backends.begin(), options.backends.end(), backend->name()) == options.backends.end()) {
      continue;
    }
    for (const KernelConfig& config : swept_configs(*backend, problem, options)) {
      Candidate c = candidate(*backend, config);
      const auto check_start = Clock::now();
      if (Status can = backend->can_implement(problem, config); !can.is_ok()) {
        c.report.status = ChoiceStatus::skipped;
        c.report.reason = can.message();
        c.report.prepare_s = micros_since(check_start) * 1e-6;
      }
      all.push_back(std::move(c));
    }
  }

  // Batches of as many configs as there are cores, each prepared in parallel as a tuning
  // prepares its choices (compiles spread over the cores; each config's prepare time is its own
  // wall time there), then measured one by one and released: a batch bounds the kernels alive
  // at once (a GPU kernel may hold gigabytes of split-k workspace). Each config is verified,
  // given the short sample, and timed in full when its short sample is within full_within of the
  // fastest so far. The fastest so far is never faster than the final fastest, so every config
  // within full_within of that is timed in full; some early ones beyond it are too.
  const TimingOptions quick = short_sample_timing(options.timing);
  const std::size_t batch = std::size_t(std::max(1, usable_cpus()));
  double fastest = -1;
  for (std::size_t first = 0; first < all.size(); first += batch) {
    std::vector<Candidate> prepared(std::make_move_iterator(all.begin() + std::ptrdiff_t(first)),
                                    std::make_move_iterator(all.begin() + std::ptrdiff_t(std::min(all.size(), first + batch))));
    prepare_all(problem, prepared);
    for (Candidate& c : prepared) {
      ConfigMeasurement m;
      m.backend = c.report.backend;
      m.config = c.report.config;
      m.status = c.report.status;
      m.reason = c.report.reason;
      m.prepare_us = c.report.prepare_s * 1e6;
      std::unique_ptr<Kernel> kernel = verified(std::move(c.kernel), *harness, m);
      if (kernel) {
        auto stats = time_one(*harness, *kernel, quick, m.quick_cost_us);
        if (stats.is_ok()) {
          m.quick_us = m.time_us = short_sample_us(*stats);
          fastest = fastest < 0 ? m.quick_us : std::min(fastest, m.quick_us);
          if (m.quick_us <= options.full_within * fastest) stats = time_one(*harness, *kernel, options.timing, m.full_cost_us);
        }
        if (!stats.is_ok()) {
          m.status = ChoiceStatus::run_failed;
          m.reason = stats.status().message();
          m.time_us = -1;
        } else if (m.full_cost_us > 0) {
          m.time_us = stats->median_us;
          m.mad_us = stats->mad_us;
          m.full = true;
        }
      }
      out.configs.push_back(std::move(m));
    }
  }
  return out;
}

}  // namespace gemmtune
